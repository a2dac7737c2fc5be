// The watch after a deployment (src/compare/watch.ts) on simulated health runs: how soon a drop
// is found, and how often a harmless deployment is flagged over the whole 7-day watch, on
// independent runs and on runs that drift alike from day to day. Each health run asks 10
// questions × 3 repeats of the reference Claw (test/sim/behaviour.ts, 0.90 overall); the baseline
// is the week before at 4 runs a day (28 runs, 840 attempts; 14 at the 12-hour schedule), with
// three more weeks of history before it (the drift is fitted on all four), and so is the watch.
// Drift sizes 0.3 and 0.6 on the logit (σ 0.6 reproduces the 5–7% false alarms at φ 0.97,
// before the watch counted drift). Then the watch with nothing deployed: its false incidents over
// simulated Claw-years, and how soon it finds a drop.
// Measures; never passes or fails. `--only watch --runs N` (N watches per scenario).
import {
  WATCH_HISTORY_DAYS,
  type WatchResult,
  type WatchRun,
  quietWatch,
  watchDeployment,
} from '../../src/compare/watch.ts';
import { seededUniform } from '../../src/compare/distributions.ts';
import { watchClaws } from '../../src/health/deployment-watch.ts';
import type { ClawRecord } from '../../src/health/records.ts';
import { type BehaviourProfile, drawCheck, referenceBehaviour } from '../sim/behaviour.ts';
import { type Measured, amount, block } from './figures.ts';

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

/** Weeks of history before the deployment (the baseline is the last of them). */
const HISTORY_WEEKS = 4;

/**
 * Day-to-day drift: the logit of every question's pass rate moves by one AR(1) process a day,
 * x(d) = φ·x(d−1) + sqrt(1 − φ²)·σ·ε (stationary, standard deviation σ on the logit scale).
 * φ = 0 is independent days; the runs of one day share its x.
 */
export interface Drift {
  phi: number;
  sigma: number;
}
export const NO_DRIFT: Drift = { phi: 0, sigma: 0 };

/** `days` daily shifts of the drift, seeded. */
export function driftPath(drift: Drift, days: number, seed: number): number[] {
  if (drift.sigma === 0) return new Array<number>(days).fill(0);
  const uniform = seededUniform(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  const path = [drift.sigma * normal()];
  for (let d = 1; d < days; d++)
    path.push(drift.phi * path[d - 1] + Math.sqrt(1 - drift.phi ** 2) * drift.sigma * normal());
  return path;
}

/** The reference Claw shifted by `x` on the logit scale (a drop then applies as referenceBehaviour's). */
export function drifted(x: number, drop = 0): BehaviourProfile {
  const rates = referenceBehaviour().passRates.map((p) => (1 - drop) / (1 + Math.exp(-(Math.log(p / (1 - p)) + x))));
  return { ...referenceBehaviour(drop), passRates: rates };
}

/** Watch i: `weeks` of history before, then `afterRuns` runs with `drop`, under `drift`, `perDay` runs a day, looked at `now`. */
function watch(
  i: number,
  drop: number,
  afterRuns: number,
  drift: Drift = NO_DRIFT,
  perDay = RUNS_PER_DAY,
  weeks = HISTORY_WEEKS,
): WatchResult {
  const spacing = DAY / perDay;
  const beforeRuns = weeks * 7 * perDay;
  const path = driftPath(drift, weeks * 7 + 8, i * 7919);
  const profileAt = (k: number, d: number) => drifted(path[Math.floor(k / perDay)], d);
  const runs: WatchRun[] = [];
  for (let k = 0; k < beforeRuns; k++)
    runs.push(healthRun(profileAt(k, 0), DEPLOYED - (beforeRuns - k) * spacing, i * 1000 + k));
  for (let k = 0; k < afterRuns; k++)
    runs.push(healthRun(profileAt(beforeRuns + k, drop), DEPLOYED + HOUR + k * spacing, i * 1000 + 500 + k));
  return watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + HOUR + afterRuns * spacing });
}

/** How many runs after the deployment a watch took to decide (Infinity when it did not). */
const runsToDecide = (r: WatchResult, perDay = RUNS_PER_DAY) =>
  r.decidedAt === undefined ? Infinity : Math.round((r.decidedAt - DEPLOYED - HOUR) / (DAY / perDay)) + 1;

interface Scenario {
  name: string;
  goal: string;
  drop: number;
  afterRuns: number;
  drift?: Drift;
  /** Health runs a day (default 4). */
  perDay?: number;
  /** Weeks of runs before the deployment (default HISTORY_WEEKS; 1: the baseline week alone). */
  historyWeeks?: number;
  figures: (results: WatchResult[], perDay: number) => string;
}

const share = (results: WatchResult[], test: (r: WatchResult) => boolean) =>
  `${((100 * results.filter(test).length) / results.length).toFixed(1)}%`;

const dropFound = (rs: WatchResult[], perDay: number) =>
  `regressed ${share(rs, (r) => r.verdict === 'regressed')} (by run 1 ${share(rs, (r) => runsToDecide(r, perDay) <= 1)}, by run 2 ${share(rs, (r) => runsToDecide(r, perDay) <= 2)})`;
const harmless = (rs: WatchResult[]) =>
  `regressed ${share(rs, (r) => r.verdict === 'regressed')}; improved ${share(rs, (r) => r.verdict === 'improved')}; unchanged ${share(rs, (r) => r.verdict === 'unchanged')}`;
/** The drift sizes measured: the logit's standard deviation (0.3 moves the reference Claw's overall rate by about 1.5 points, 0.6 by 3). */
const DRIFT_SIGMAS = [0.3, 0.6];
const PHIS = [0.5, 0.9, 0.97];
const perDayName = (perDay: number) => (perDay === 4 ? 'every 6 h' : `every ${24 / perDay} h`);

const dropScenarios = (perDay: number): Scenario[] => [
  {
    name: `20% drop (0.90 → 0.72), watched for 3 runs, ${perDayName(perDay)}`,
    goal: 'regressed within 3 runs ≥ 85%',
    drop: 0.2,
    afterRuns: 3,
    perDay,
    figures: dropFound,
  },
  ...DRIFT_SIGMAS.map((sigma) => ({
    name: `20% drop, 3 runs, ${perDayName(perDay)}, under drift (φ 0.97, σ ${sigma})`,
    goal: 'regressed within 3 runs ≥ 85%',
    drop: 0.2,
    afterRuns: 3,
    perDay,
    drift: { phi: 0.97, sigma },
    figures: dropFound,
  })),
];

const harmlessScenarios = (perDay: number): Scenario[] => [
  {
    name: `harmless deployment (0.90 → 0.90), the whole 7-day watch (${7 * perDay} runs, ${perDayName(perDay)})`,
    goal: 'regressed ≤ 5%',
    drop: 0,
    afterRuns: 7 * perDay,
    perDay,
    figures: harmless,
  },
  ...DRIFT_SIGMAS.flatMap((sigma) =>
    PHIS.map((phi) => ({
      name: `harmless deployment, ${7 * perDay} runs, ${perDayName(perDay)}, under drift (φ ${phi}, σ ${sigma})`,
      goal: 'regressed ≤ 5%',
      drop: 0,
      afterRuns: 7 * perDay,
      perDay,
      drift: { phi, sigma },
      figures: harmless,
    })),
  ),
];

const SCENARIOS: Scenario[] = [
  ...dropScenarios(4),
  ...dropScenarios(2),
  ...harmlessScenarios(4),
  ...harmlessScenarios(2),
  {
    name: '20% drop, 3 runs, every 6 h, the baseline week alone (no history before it)',
    goal: 'regressed within 3 runs ≥ 85%',
    drop: 0.2,
    afterRuns: 3,
    historyWeeks: 1,
    figures: dropFound,
  },
  {
    name: 'harmless deployment, 28 runs, every 6 h, under drift (φ 0.9, σ 0.6), the baseline week alone',
    goal: 'regressed ≤ 5%',
    drop: 0,
    afterRuns: 28,
    drift: { phi: 0.9, sigma: 0.6 },
    historyWeeks: 1,
    figures: harmless,
  },
  {
    name: '10% drop (0.90 → 0.81), the whole 7-day watch',
    goal: '(how far below the goal a smaller drop is found)',
    drop: 0.1,
    afterRuns: 7 * RUNS_PER_DAY,
    figures: (rs) => {
      const found = rs
        .map((r) => runsToDecide(r))
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      const median = found.length ? found[Math.floor(found.length / 2)] : NaN;
      return `regressed ${share(rs, (r) => r.verdict === 'regressed')}, median run of detection ${median}`;
    },
  },
];

const CLAW = 'claw-quiet';

/**
 * One simulated Claw-year with nothing deployed, health 4 times a day, looked at after every run as
 * health does (watchClaws: the watch with nothing deployed): the false incidents it opens (a
 * regression's signature changing counts as a new one, as it would comment on the open one; the
 * quiet watch's signature is one per alarm).
 */
function quietYear(i: number, drift: Drift): number {
  const days = 365 + 14;
  const path = driftPath(drift, days, i * 104729);
  const start = Date.parse('2026-01-05T00:00:00Z'); // a Monday
  const records: ClawRecord[] = [];
  let incidents = 0;
  let open: string | undefined;
  for (let k = 0; k < days * RUNS_PER_DAY; k++) {
    const at = start + k * (DAY / RUNS_PER_DAY);
    const run = healthRun(drifted(path[Math.floor(k / RUNS_PER_DAY)]), at, i * 100_000 + k);
    records.push({
      at,
      run: String(k),
      claw: CLAW,
      status: 'healthy',
      checks: { passed: run.passed, failed: run.failed, errors: run.unjudged },
    });
    // Two weeks of history before the year is counted; health reads the runs of the last
    // WATCH_HISTORY_DAYS (the scan and the eight weeks its drift is fitted on).
    if (k < 14 * RUNS_PER_DAY) continue;
    const recent = records.slice(-WATCH_HISTORY_DAYS * RUNS_PER_DAY);
    const regression = watchClaws({
      runs: recent,
      deployments: [],
      now: at,
      claws: [CLAW],
      links: { run: () => undefined },
    }).get(CLAW)!.facts.regression;
    if (regression && regression.signature !== open) incidents += 1;
    open = regression?.signature;
  }
  return incidents;
}

/** The quiet watch's rows: independent runs, then drift at each φ and σ the issue names. */
const QUIET_ROWS: readonly { name: string; key: string; goal: string; drift: Drift }[] = [
  { name: 'independent', key: 'independent', goal: '≤ 0.05', drift: NO_DRIFT },
  ...DRIFT_SIGMAS.flatMap((sigma) =>
    [0.9, 0.97].map((phi) => ({
      name: `drift (φ ${phi}, σ ${sigma})`,
      key: `phi${phi}-sigma${sigma}`,
      goal: '≤ 0.2',
      drift: { phi, sigma },
    })),
  ),
];

/** The quiet watch's table over `clawYears` Claw-years a row, of the rows whose key (QUIET_ROWS) is in `only` (all when empty). */
export function measureQuietAt(clawYears: number, only: readonly string[] = []): string[] {
  const lines = [
    `The watch with nothing deployed: ${clawYears} simulated Claw-years a row (health 4 times a day, looked at after every run as health does; an incident is a regression found, once per episode).`,
    '',
    '| runs | goal | Claw-years | false incidents per Claw-year | Claws with one in a year | ms per Claw-year |',
    '|---|---|---|---|---|---|',
  ];
  for (const { name, key, goal, drift } of QUIET_ROWS) {
    if (only.length > 0 && !only.includes(key)) continue;
    const started = performance.now();
    const counts = Array.from({ length: clawYears }, (_, i) => quietYear(i + 1, drift));
    const ms = (performance.now() - started) / clawYears;
    const total = counts.reduce((a, b) => a + b, 0);
    lines.push(
      `| ${name} | ${goal} | ${clawYears} | ${(total / clawYears).toFixed(3)} | ${((100 * counts.filter((c) => c > 0).length) / clawYears).toFixed(1)}% | ${ms.toFixed(0)} |`,
    );
  }
  return lines;
}

/**
 * Trial i of a drop with nothing deployed: ten weeks of runs (under `drift`), then `drop` from a
 * run at a varied hour and weekday, looked at after every run as health does: the run of the
 * first alarm (Infinity when none within `runs`).
 */
function quietDrop(i: number, drop: number, drift: Drift, runs: number): number {
  const before = 70 * RUNS_PER_DAY;
  const path = driftPath(drift, 70 + Math.ceil(runs / RUNS_PER_DAY) + 1, i * 7717);
  const start = Date.parse('2026-01-05T00:00:00Z') + (i % 7) * DAY + (i % 4) * (DAY / RUNS_PER_DAY);
  const list: WatchRun[] = [];
  for (let k = 0; k < before + runs; k++) {
    const at = start + k * (DAY / RUNS_PER_DAY);
    list.push(healthRun(drifted(path[Math.floor(k / RUNS_PER_DAY)], k >= before ? drop : 0), at, i * 100_000 + k));
    if (k >= before && quietWatch(list, at).alarm) return k - before + 1;
  }
  return Infinity;
}

/** How soon the watch with nothing deployed finds a drop: `trials` a row. */
export function measureQuietDetection(trials: number): string[] {
  const lines = [
    `A drop with nothing deployed: ${trials} simulated Claws a row (ten weeks of runs, then the drop; health 4 times a day, looked at after every run).`,
    '',
    '| drop | runs | trials | median run of the alarm | by run 3 | by run 5 | by run 12 | within the week (28) | ms per trial |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const rows: { drop: number; name: string; drift: Drift }[] = [
    { drop: 0.2, name: 'independent', drift: NO_DRIFT },
    { drop: 0.2, name: 'drift (φ 0.9, σ 0.6)', drift: { phi: 0.9, sigma: 0.6 } },
    { drop: 0.1, name: 'independent', drift: NO_DRIFT },
  ];
  for (const { drop, name, drift } of rows) {
    const started = performance.now();
    const found = Array.from({ length: trials }, (_, i) => quietDrop(i + 1, drop, drift, 28)).sort((a, b) => a - b);
    const ms = (performance.now() - started) / trials;
    const by = (run: number) => `${((100 * found.filter((f) => f <= run).length) / trials).toFixed(1)}%`;
    const median = found[Math.floor(trials / 2)];
    lines.push(
      `| ${Math.round(drop * 100)}% (0.90 → ${(0.9 * (1 - drop)).toFixed(2)}) | ${name} | ${trials} | ${Number.isFinite(median) ? median : 'not within 28'} | ${by(3)} | ${by(5)} | ${by(12)} | ${by(28)} | ${ms.toFixed(0)} |`,
    );
  }
  return lines;
}

export function measureQuiet(clawYears: number): string[] {
  return [...measureQuietAt(clawYears), '', ...measureQuietDetection(clawYears)];
}

export function measureWatch(watches: number): string[] {
  const lines = [
    `The watch after a deployment: ${QUESTIONS} questions × ${REPEATS} repeats a health run, every 6 h (or 12 h), the week before as the baseline after ${HISTORY_WEEKS - 1} more weeks of history (the drift is fitted on all ${HISTORY_WEEKS}), one-sided level 0.05 over the whole watch, ${watches} simulated watches a row. Drift: the logit of every pass rate moves by a daily AR(1) (standard deviation σ).`,
    '',
    '| scenario | goal | watches | figures | ms per watch |',
    '|---|---|---|---|---|',
  ];
  for (const s of SCENARIOS) {
    const started = performance.now();
    const perDay = s.perDay ?? RUNS_PER_DAY;
    const results = Array.from({ length: watches }, (_, i) =>
      watch(i + 1, s.drop, s.afterRuns, s.drift, perDay, s.historyWeeks),
    );
    const ms = (performance.now() - started) / watches;
    lines.push(`| ${s.name} | ${s.goal} | ${watches} | ${s.figures(results, perDay)} | ${ms.toFixed(1)} |`);
  }
  return lines;
}

/** The watch's table for the docs (`watch.table`, test/bench/figures.ts), and the watches a row. */
export function watchFigures(watches: number): Measured {
  const lines = measureWatch(watches);
  return { lines, figures: { 'watch.table': block(lines), 'watch.runs': amount(watches) } };
}
