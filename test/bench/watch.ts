// The watch after a deployment (src/compare/watch.ts) on simulated health runs: how soon a drop
// is found, and how often a harmless deployment is flagged over the whole 7-day watch. Each
// health run asks 10 questions × 3 repeats of the reference Claw (test/sim/behaviour.ts, 0.90
// overall); the baseline is the week before at 4 runs a day (28 runs, 840 attempts), and so is
// the watch. Measures; never passes or fails. `--only watch --runs N` (N watches per scenario).
import { type WatchResult, type WatchRun, watchDeployment } from '../../src/compare/watch.ts';
import { type BehaviourProfile, drawCheck, referenceBehaviour } from '../sim/behaviour.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const DEPLOYED = Date.parse('2026-03-08T00:00:00Z');
const RUNS_PER_DAY = 4;
const QUESTIONS = 10;
const REPEATS = 3;

/** One health run drawn from a profile, as the health records count it. */
function healthRun(profile: BehaviourProfile, at: number, seed: number): WatchRun {
  const counts = { at, passed: 0, failed: 0, unjudged: 0 };
  for (const a of drawCheck('suite', profile, QUESTIONS, REPEATS, seed).attempts)
    if (a.outcome === 'pass') counts.passed++;
    else if (a.outcome === 'fail') counts.failed++;
    else counts.unjudged++;
  return counts;
}

/** Watch i: a week before at `before`, then `afterRuns` runs at `after`, looked at `now`. */
function watch(i: number, before: BehaviourProfile, after: BehaviourProfile, afterRuns: number): WatchResult {
  const spacing = DAY / RUNS_PER_DAY;
  const runs: WatchRun[] = [];
  for (let k = 7 * RUNS_PER_DAY; k >= 1; k--) runs.push(healthRun(before, DEPLOYED - k * spacing, i * 1000 + k));
  for (let k = 0; k < afterRuns; k++) runs.push(healthRun(after, DEPLOYED + HOUR + k * spacing, i * 1000 + 500 + k));
  return watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + HOUR + afterRuns * spacing });
}

/** How many runs after the deployment a watch took to decide (Infinity when it did not). */
const runsToDecide = (r: WatchResult) =>
  r.decidedAt === undefined ? Infinity : Math.round((r.decidedAt - DEPLOYED - HOUR) / (DAY / RUNS_PER_DAY)) + 1;

interface Scenario {
  name: string;
  goal: string;
  after: BehaviourProfile;
  afterRuns: number;
  figures: (results: WatchResult[]) => string;
}

const share = (results: WatchResult[], test: (r: WatchResult) => boolean) =>
  `${((100 * results.filter(test).length) / results.length).toFixed(1)}%`;

const SCENARIOS: Scenario[] = [
  {
    name: '20% drop (0.90 → 0.72), watched for 3 runs',
    goal: 'regressed within 3 runs ≥ 85%',
    after: referenceBehaviour(0.2),
    afterRuns: 3,
    figures: (rs) =>
      `regressed ${share(rs, (r) => r.verdict === 'regressed')} (by run 1 ${share(rs, (r) => runsToDecide(r) <= 1)}, by run 2 ${share(rs, (r) => runsToDecide(r) <= 2)})`,
  },
  {
    name: 'harmless deployment (0.90 → 0.90), the whole 7-day watch (28 runs)',
    goal: 'regressed ≤ 5%',
    after: referenceBehaviour(),
    afterRuns: 7 * RUNS_PER_DAY,
    figures: (rs) =>
      `regressed ${share(rs, (r) => r.verdict === 'regressed')}; improved ${share(rs, (r) => r.verdict === 'improved')}; unchanged ${share(rs, (r) => r.verdict === 'unchanged')}`,
  },
  {
    name: '10% drop (0.90 → 0.81), the whole 7-day watch',
    goal: '(how far below the goal a smaller drop is found)',
    after: referenceBehaviour(0.1),
    afterRuns: 7 * RUNS_PER_DAY,
    figures: (rs) => {
      const found = rs
        .map(runsToDecide)
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      const median = found.length ? found[Math.floor(found.length / 2)] : NaN;
      return `regressed ${share(rs, (r) => r.verdict === 'regressed')}, median run of detection ${median}`;
    },
  },
];

export function measureWatch(watches: number): string[] {
  const lines = [
    `The watch after a deployment: ${QUESTIONS} questions × ${REPEATS} repeats a health run, ${RUNS_PER_DAY} runs a day, the week before as the baseline (${7 * RUNS_PER_DAY} runs), one-sided level 0.05 over the whole watch, ${watches} simulated watches a row.`,
    '',
    '| scenario | goal | watches | figures | ms per watch |',
    '|---|---|---|---|---|',
  ];
  for (const s of SCENARIOS) {
    const started = performance.now();
    const results = Array.from({ length: watches }, (_, i) => watch(i + 1, referenceBehaviour(), s.after, s.afterRuns));
    const ms = (performance.now() - started) / watches;
    lines.push(`| ${s.name} | ${s.goal} | ${watches} | ${s.figures(results)} | ${ms.toFixed(1)} |`);
  }
  return lines;
}
