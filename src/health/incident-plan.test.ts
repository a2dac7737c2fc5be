// The incident rules as a table: what health knows in, the writes (and their texts) out. No
// GitHub, no executor: each row is one decision.
import { describe, expect, it } from 'vitest';
import type { SuspectView } from './incident-report.js';
import type { IncidentIssue } from './host.js';
import {
  type DeploymentFacts,
  type IncidentFacts,
  type IssueCall,
  type Observation,
  type PlannedWrite,
  planIncidents,
} from './incident-plan.js';
import { type IncidentState, type KnownIncident, digest } from './incident-state.js';
import type { RunRecord } from './records.js';

const T = Date.parse('2026-11-22T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const COMMIT = 'a'.repeat(40);

const issue = (number: number, state: 'open' | 'closed'): IncidentIssue => ({
  number,
  url: `https://github.com/octo/claws/issues/${number}`,
  state,
  title: 'a is down',
  body: '<!-- claw-deploy incident: x.y -->\nold text',
  own: true,
});
const known = (state: Partial<IncidentState>, open = true): KnownIncident => ({
  issue: issue(1, open ? 'open' : 'closed'),
  state: {
    v: 1,
    subject: { claw: 'a' },
    signature: 'sha256:' + 'A'.repeat(43),
    since: T - HOUR,
    sinceRun: '90',
    reopened: 0,
    ...state,
  },
});

const suspect: SuspectView = {
  id: 'dep-2',
  at: T - 2 * HOUR,
  outcome: 'succeeded',
  commit: COMMIT,
  commitUrl: `https://github.com/octo/claws/commit/${COMMIT}`,
  previousCommit: 'b'.repeat(40),
  compareUrl: `https://github.com/octo/claws/compare/${'b'.repeat(40)}...${COMMIT}`,
  run: { id: '4242', url: 'https://github.com/octo/claws/actions/runs/4242' },
  figures: {
    before: { passRate: 0.9, n: 840, runs: 28 },
    after: { passRate: 0.7, n: 90, runs: 3 },
    change: -0.2,
    low: -0.3,
    high: -0.1,
  },
};
const deployed: DeploymentFacts = { windowDays: 7, suspect, known: [suspect] };
const nothing: DeploymentFacts = { windowDays: 7, known: [] };
const regressed: DeploymentFacts = {
  ...deployed,
  regression: { figures: suspect.figures!, deployment: 'dep-2', signature: 'regressed:dep-2' },
};

const down = (deployments?: DeploymentFacts): Observation => ({
  subject: { claw: 'a' },
  status: 'unhealthy',
  failing: { signature: 'down', title: 'a is down', view: { summary: 'status down' } },
  ...(deployments ? { deployments } : {}),
});
const up = (deployments?: DeploymentFacts): Observation => ({
  subject: { claw: 'a' },
  status: 'healthy',
  ...(deployments ? { deployments } : {}),
});
const pastOf = (...statuses: ('healthy' | 'unhealthy')[]): RunRecord[] =>
  statuses.map((status, i) => ({ at: T - (statuses.length - i) * 5 * MIN, run: String(90 + i), claw: 'a', status }));

function plan(observation: Observation, past: RunRecord[], incident?: KnownIncident): PlannedWrite[] {
  const facts: IncidentFacts = {
    options: { confirm: 2, recover: 2, reopenWithinMs: HOUR, assignees: [], mention: '', maxNew: 20 },
    observations: [observation],
    past,
    listedAll: false,
    now: T,
    runId: '100',
    runUrl: (id) => `https://github.com/octo/claws/actions/runs/${id}`,
    redact: (t) => t,
    known: new Map(incident ? [['claw:a', incident]] : []),
    duplicates: [],
    older: [],
  };
  return planIncidents(facts).steps.filter((s): s is PlannedWrite => !('info' in s));
}

/** The text a write's calls carry, bodies and comments together. */
const textOf = (w: PlannedWrite): string =>
  w.calls
    .map((c: IssueCall) => (c.call === 'comment' ? c.text : c.call === 'update' ? (c.body?.text ?? '') : c.body.text))
    .join('\n');
const stateOf = (w: PlannedWrite): IncidentState | undefined => {
  for (const c of w.calls) if (c.call !== 'comment' && c.body) return c.body.state;
  return undefined;
};

describe('planIncidents', () => {
  // [case, observation, past statuses, incident, the writes' kinds, what the state names as suspect]
  const table: [string, Observation, RunRecord[], KnownIncident | undefined, string[], unknown][] = [
    ['one failure under confirm opens nothing', down(deployed), pastOf('healthy'), undefined, [], undefined],
    [
      'confirm failures open one, naming the suspect',
      down(deployed),
      pastOf('unhealthy'),
      undefined,
      ['opened'],
      'dep-2',
    ],
    [
      'with nothing in the window, the suspect is none',
      down(nothing),
      pastOf('unhealthy'),
      undefined,
      ['opened'],
      null,
    ],
    [
      'without the records (no history), no suspect at all',
      down(),
      pastOf('unhealthy'),
      undefined,
      ['opened'],
      undefined,
    ],
    [
      'a regression opens at once, its runs healthy',
      up(regressed),
      pastOf('healthy', 'healthy'),
      undefined,
      ['opened'],
      'dep-2',
    ],
    [
      'a regression joins an open incident: a comment',
      down(regressed),
      pastOf('unhealthy'),
      known({ suspect: null }),
      ['commented'],
      'dep-2',
    ],
    [
      'the same failure again says nothing',
      down(deployed),
      pastOf('unhealthy'),
      known({ signature: digest('down') }),
      [],
      undefined,
    ],
    [
      'a regression holds the incident open while healthy',
      up(regressed),
      pastOf('healthy', 'healthy'),
      known({ signature: digest('regressed:dep-2') }),
      [],
      undefined,
    ],
    [
      'recover healthy runs close it',
      up(deployed),
      pastOf('unhealthy', 'healthy'),
      known({ suspect: 'dep-2' }),
      ['closed'],
      'dep-2',
    ],
    [
      'failing again within the hour reopens, naming the suspect now',
      down(deployed),
      pastOf('unhealthy'),
      known({ closedAt: T - 10 * MIN, suspect: null }, false),
      ['reopened'],
      'dep-2',
    ],
    [
      'unknown opens and closes nothing',
      { subject: { claw: 'a' }, status: 'unknown', deployments: regressed },
      [],
      undefined,
      [],
      undefined,
    ],
  ];
  it.each(table)('%s', (_case, observation, past, incident, kinds, named) => {
    const writes = plan(observation, past, incident);
    expect(writes.map((w) => w.kind)).toEqual(kinds);
    if (kinds.length) expect(stateOf(writes[0])?.suspect).toEqual(named);
  });

  it('an opening names its suspect: id, time, commit, the run that deployed it, the compare link, the figures', () => {
    const [open] = plan(down(deployed), pastOf('unhealthy'));
    const text = textOf(open);
    expect(text).toContain('**Suspect deployment:** `dep-2` (2026-11-22 10:00 UTC, succeeded)');
    expect(text).toContain(`[\`${COMMIT.slice(0, 12)}\`](https://github.com/octo/claws/commit/${COMMIT})`);
    expect(text).toContain('deployed by [run 4242](https://github.com/octo/claws/actions/runs/4242)');
    expect(text).toContain(`(https://github.com/octo/claws/compare/${'b'.repeat(40)}...${COMMIT})`);
    expect(text).toContain(
      'pass rate 90.0% (840 judged in 28 run(s)) before → 70.0% (90 judged in 3 run(s)) after: −20.0 points',
    );
  });

  it('a change with nothing deployed says the change came from outside', () => {
    const [open] = plan(down(nothing), pastOf('unhealthy'));
    expect(textOf(open)).toContain('Nothing was deployed to this Claw in the 7 days before');
    expect(textOf(open)).toContain('the change came from outside the deployments (the model, its tools, the judge)');
  });

  it("a regression's issue says the watch found it, with the figures, and is titled by its deployment", () => {
    const [open] = plan(up(regressed), pastOf('healthy'));
    const create = open.calls[0] as Extract<IssueCall, { call: 'create' }>;
    expect(create.title).toBe('a behaves worse since deployment dep-2');
    expect(textOf(open)).toContain("Claw `a` behaves worse since deployment `dep-2`: the watch's sequential test");
    expect(textOf(open)).toContain('**The watch:** pass rate 90.0%');
  });

  it("a comment names the suspect its sealed state names, not the window's latest", () => {
    const other: SuspectView = { ...suspect, id: 'dep-3', at: T - HOUR };
    const later: DeploymentFacts = { windowDays: 7, suspect: other, known: [suspect, other] };
    const [comment] = plan(down(later), pastOf('unhealthy'), known({ suspect: 'dep-2' }));
    expect(stateOf(comment)?.suspect).toBe('dep-2');
    expect(textOf(comment)).toContain('**Suspect deployment:** `dep-2`');
    expect(textOf(comment)).not.toContain('`dep-3`');
  });

  it('a Claw failing after its latest deployment ran healthy for days names none, and says why', () => {
    const old: SuspectView = { ...suspect, at: T - 5 * 24 * HOUR };
    const facts: DeploymentFacts = { windowDays: 7, suspect: old, known: [old] };
    // Healthy every 12 hours since the deployment, then failing.
    const past: RunRecord[] = Array.from({ length: 9 }, (_, i) => ({
      at: old.at + (i + 1) * 12 * HOUR,
      run: String(50 + i),
      claw: 'a',
      status: 'healthy' as const,
    }));
    past.push({ at: T - 5 * MIN, run: '60', claw: 'a', status: 'unhealthy' });
    const [open] = plan(down(facts), past);
    expect(stateOf(open)?.suspect).toBeNull();
    expect(textOf(open)).toContain(
      '**Suspect deployment:** none. `dep-2` (2026-11-17 12:00 UTC) was deployed 5 days earlier and healthy since; not named as the cause',
    );
  });

  it('a Claw failing at its first runs after a deployment names it, with the evidence', () => {
    const [open] = plan(down(deployed), pastOf('unhealthy'));
    expect(stateOf(open)?.suspect).toBe('dep-2');
    expect(textOf(open)).toContain('**Evidence:** the Claw began failing at its first run after it');
  });

  it('a regression that began after the deployment ran unchanged is titled so and names none', () => {
    const facts: DeploymentFacts = {
      ...deployed,
      regression: {
        figures: suspect.figures!,
        cleared: { deployment: 'dep-2', deployedAt: suspect.at, changeAt: suspect.at + 3 * 24 * HOUR },
        signature: 'regressed:after:dep-2',
      },
    };
    const [open] = plan(up(facts), pastOf('healthy'));
    const create = open.calls[0] as Extract<IssueCall, { call: 'create' }>;
    expect(create.title).toBe('a behaves worse, not since its latest deployment');
    expect(stateOf(open)?.suspect).toBeNull();
    expect(textOf(open)).toContain('was deployed 3 days earlier and healthy since; not named as the cause');
    expect(textOf(open)).not.toContain('with nothing deployed');
  });
});
