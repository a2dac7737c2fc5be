// The issue's three figures through health's own decisions: simulated health runs (the reference
// Claw of test/sim/behaviour.ts, 10 questions × 3 repeats a run, 4 runs a day) kept as health
// records, deployment records beside them, and at every run the watch (src/health/deployment-watch.ts)
// and the incident rules (src/health/incident-plan.ts) decide as the action does: does an incident
// open, and whom does it name? Measures; never passes or fails. `--only watch --runs N`.
import { planIncidents, type PlannedWrite } from '../../src/health/incident-plan.ts';
import type { DeploymentRecord } from '../../src/health/deployment-records.ts';
import { watchClaws } from '../../src/health/deployment-watch.ts';
import type { ClawRecord } from '../../src/health/records.ts';
import { type BehaviourProfile, drawCheck, referenceBehaviour } from '../sim/behaviour.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const SPACING = DAY / 4;
/** A Monday: the quiet watch's week starts here. */
const MONDAY = Date.parse('2026-03-09T00:00:00Z');
const CLAW = 'claw-support';

/** One health run as health records it: the checks' passes, failures and errors. */
function healthRecord(profile: BehaviourProfile, at: number, seed: number): ClawRecord {
  const checks = { passed: 0, failed: 0, errors: 0 };
  for (const a of drawCheck('suite', profile, 10, 3, seed).attempts)
    if (a.outcome === 'pass') checks.passed++;
    else if (a.outcome === 'fail') checks.failed++;
    else checks.errors++;
  return { at, run: String(Math.round(at / HOUR)), claw: CLAW, status: 'healthy', checks };
}

const deployment = (id: string, at: number): DeploymentRecord => ({
  at,
  claw: CLAW,
  deployment: id,
  outcome: 'succeeded',
  run: '4242',
  commit: id === 'dep-new' ? 'b'.repeat(40) : 'a'.repeat(40),
});

/** The incident this run opens, if any: the watch's facts through the incident rules. */
function opened(records: ClawRecord[], deployments: DeploymentRecord[], now: number): PlannedWrite | undefined {
  const facts = watchClaws({ runs: records, deployments, now, claws: [CLAW], links: { run: () => undefined } }).get(
    CLAW,
  )!.facts;
  const plan = planIncidents({
    options: { confirm: 2, recover: 2, reopenWithinMs: HOUR, assignees: [], mention: '', maxNew: 20 },
    observations: [{ subject: { claw: CLAW }, status: 'healthy', deployments: facts }],
    past: records,
    listedAll: false,
    now,
    runId: '1',
    runUrl: () => undefined,
    redact: (t) => t,
    known: new Map(),
    duplicates: [],
    older: [],
  });
  return plan.steps.find((s): s is PlannedWrite => 'kind' in s && s.kind === 'opened');
}

const bodyOf = (w: PlannedWrite): string => {
  const call = w.calls[0];
  return call.call === 'create' ? call.body.text : '';
};

interface Trial {
  /** The look (1-based run after the change) that opened the incident, Infinity when none did. */
  openedAt: number;
  body: string;
}

/** Trial i: a week of runs before `changeAt` at `before`, then `looks` runs at `after`; a look after each. */
function trial(
  i: number,
  changeAt: number,
  after: BehaviourProfile,
  looks: number,
  deployments: DeploymentRecord[],
): Trial {
  const records: ClawRecord[] = [];
  for (let at = changeAt - 14 * DAY + HOUR; at < changeAt; at += SPACING)
    records.push(healthRecord(referenceBehaviour(), at, i * 1000 + records.length));
  for (let k = 1; k <= looks; k++) {
    const at = changeAt + HOUR + (k - 1) * SPACING;
    records.push(healthRecord(after, at, i * 1000 + records.length));
    const open = opened(records, deployments, at);
    if (open) return { openedAt: k, body: bodyOf(open) };
  }
  return { openedAt: Infinity, body: '' };
}

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : '—');

export function measureSuspects(trials: number): string[] {
  const deployedAt = MONDAY + 2 * DAY;
  const previous = deployment('dep-old', deployedAt - 20 * DAY);
  const rows: string[] = [];
  const time = (run: () => Trial[]): [Trial[], number] => {
    const started = performance.now();
    const results = run();
    return [results, (performance.now() - started) / trials];
  };
  const range = (f: (i: number) => Trial) => Array.from({ length: trials }, (_, i) => f(i + 1));
  const deployments = [previous, deployment('dep-new', deployedAt)];

  const [drop, dropMs] = time(() => range((i) => trial(i, deployedAt, referenceBehaviour(0.2), 3, deployments)));
  const named = drop.filter((t) => t.body.includes('**Suspect deployment:** `dep-new`')).length;
  rows.push(
    `| 20% drop (0.90 → 0.72) after a deployment, 3 health runs | opened within 3 runs, naming it ≥ 85% | ${trials} | opened ${pct(drop.filter((t) => t.openedAt <= 3).length, trials)} (by run 1 ${pct(drop.filter((t) => t.openedAt <= 1).length, trials)}, by run 2 ${pct(drop.filter((t) => t.openedAt <= 2).length, trials)}); naming \`dep-new\` ${pct(named, trials)} | ${dropMs.toFixed(0)} |`,
  );

  const [same, sameMs] = time(() => range((i) => trial(i, deployedAt, referenceBehaviour(), 28, deployments)));
  rows.push(
    `| harmless deployment (0.90 → 0.90), every run of the 7-day watch (28) | flagged ≤ 5% | ${trials} | flagged ${pct(same.filter((t) => t.openedAt <= 28).length, trials)} | ${sameMs.toFixed(0)} |`,
  );

  // Nothing deployed for 20 days; the drop begins on a Tuesday, one day into the quiet watch's week.
  const quietAt = MONDAY + DAY;
  const [quiet, quietMs] = time(() => range((i) => trial(i, quietAt, referenceBehaviour(0.2), 24, [previous])));
  const found = quiet.filter((t) => t.openedAt <= 24);
  const says = found.filter((t) => t.body.includes('Nothing was deployed to this Claw')).length;
  const sorted = found.map((t) => t.openedAt).sort((a, b) => a - b);
  rows.push(
    `| 20% drop with nothing deployed (the last deployment 20 days before), the rest of the week (24 runs) | the incident says nothing was deployed | ${trials} | opened ${pct(found.length, trials)} (median run ${sorted.length ? sorted[sorted.length >> 1] : '—'}); of those, saying nothing was deployed ${pct(says, found.length)}, naming a deployment ${pct(found.filter((t) => t.body.includes('**Suspect deployment:** `')).length, found.length)} | ${quietMs.toFixed(0)} |`,
  );
  const [still, stillMs] = time(() => range((i) => trial(i, quietAt, referenceBehaviour(), 24, [previous])));
  rows.push(
    `| nothing deployed and nothing changed, the rest of the week (24 runs) | flagged ≤ 5% | ${trials} | flagged ${pct(still.filter((t) => t.openedAt <= 24).length, trials)} | ${stillMs.toFixed(0)} |`,
  );
  return [
    `Suspects through health's own decisions (the watch and the incident rules at every run, as the action runs them): the reference Claw (0.90), 10 questions × 3 repeats a run, 4 runs a day, two weeks of history; ${trials} simulated Claws a row. With nothing deployed in the window, the quiet watch is one CUSUM over the Claw's runs.`,
    '',
    '| scenario | goal | trials | figures | ms per trial |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}
