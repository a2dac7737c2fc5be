// The incident rules on an in-memory issue host: what opens, comments, closes and reopens, and
// what never does (unknown runs, another change of the same failure, a history that cannot be read).
import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '../../test/support/setup.ts';
import { readSealed, sealKey, stateSealKey } from '../shared/seal.js';
import type { IncidentIssue, IssueHost, NewIssue } from './host.js';
import { type IncidentOptions, type Observation, trackIncidents } from './incidents.js';
import type { ClawRecord, RunRecord } from './records.js';

const T = Date.parse('2026-11-22T12:00:00Z');
const MIN = 60_000;
const OPTIONS: IncidentOptions = {
  confirm: 2,
  recover: 2,
  reopenWithinMs: 60 * MIN,
  assignees: ['octocat'],
  mention: '',
  maxNew: 20,
};

class MemoryIssues implements IssueHost {
  readonly issues: (IncidentIssue & NewIssue & { comments: string[] })[] = [];
  list = async (): Promise<IncidentIssue[]> => [...this.issues].reverse();
  create = async (issue: NewIssue) => {
    const number = this.issues.length + 1;
    const url = `https://github.com/octo/claws/issues/${number}`;
    this.issues.push({ ...issue, number, url, state: 'open', own: true, comments: [] });
    return { number, url };
  };
  update = async (number: number, change: { title?: string; body?: string; state?: 'open' | 'closed' }) => {
    Object.assign(this.issues[number - 1], change);
  };
  comment = async (number: number, body: string) => void this.issues[number - 1].comments.push(body);
}

function harness(
  redact = (t: string) => t.replaceAll('s3cret', '***'),
  options: Partial<IncidentOptions> = {},
  seal = sealKey('key', 'octo/claws'),
) {
  const issues = new MemoryIssues();
  const log = new RecordingLogger();
  const past: RunRecord[] = [];
  let run = 100;
  const step = async (at: number, observations: Observation[]) => {
    const runId = String(++run);
    const outcome = await trackIncidents(
      {
        issues,
        log,
        seal,
        redact,
        now: at,
        runId,
        runUrl: (id) => `https://github.com/octo/claws/actions/runs/${id}`,
      },
      { ...OPTIONS, ...options },
      observations,
      [...past],
    );
    for (const o of observations) {
      if ('claw' in o.subject) past.push({ at, run: runId, claw: o.subject.claw, status: o.status } as ClawRecord);
    }
    return outcome;
  };
  return { issues, log, step };
}

const down = (claw: string, signature = 'down', reply?: string): Observation => ({
  subject: { claw },
  status: 'unhealthy',
  failing: { signature, title: `${claw} is ${signature}`, view: { summary: `status ${signature}`, reply } },
});
const up = (claw: string): Observation => ({ subject: { claw }, status: 'healthy' });
const unknown = (claw: string): Observation => ({ subject: { claw }, status: 'unknown' });

describe('trackIncidents', () => {
  it('gives the DORA figures a span per Claw incident its own issues tell of (the service is not a Claw)', async () => {
    const { step } = harness(undefined, { confirm: 1, recover: 1 });
    await step(T, [down('a'), { subject: { service: true }, status: 'healthy' }]);
    await step(T + 10 * MIN, [up('a')]);
    const outcome = await step(T + 20 * MIN, [up('a')]);
    expect(outcome.spans).toEqual([{ claw: 'a', openedAt: T, closedAt: T + 10 * MIN }]);
  });

  it('an issue alone for its Claw stays its own whatever its labels (GitHub may keep a label as it likes)', async () => {
    const { issues, log, step } = harness(undefined, { confirm: 1 });
    await step(T, [down('a')]);
    issues.issues[0].labels = ['claw-incident'];
    await step(T + 10 * MIN, [down('a', 'still down')]);
    expect(log.text('warning')).toBe('');
    expect(issues.issues.map((i) => [i.number, i.state])).toEqual([[1, 'open']]);
  });

  it('a sealed state pasted into another of its issues is not read: each Claw keeps its own; a label GitHub kept in another case still matches', async () => {
    const { issues, log, step } = harness(undefined, { confirm: 1 });
    await step(T, [down('a'), down('b')]);
    expect(issues.issues.map((i) => [i.number, i.labels])).toEqual([
      [1, ['claw-incident', 'a']],
      [2, ['claw-incident', 'b']],
    ]);
    // A collaborator pastes a's body (its sealed state) into b's issue; GitHub keeps a's label as 'A'.
    issues.issues[1].body = issues.issues[0].body;
    issues.issues[0].labels = ['claw-incident', 'A'];
    await step(T + 10 * MIN, [down('a'), down('b')]);
    expect(log.text('warning')).toContain(
      "Incidents: ignored https://github.com/octo/claws/issues/2: its state is #1's, whose labels name its subject",
    );
    expect(issues.issues.map((i) => [i.number, i.title, i.state])).toEqual([
      [1, 'a is down', 'open'],
      [2, 'b is down', 'open'],
      [3, 'b is down', 'open'],
    ]);
  });

  it('unknown runs neither open, close, nor break a run of failures', async () => {
    const { issues, step } = await harness();
    await step(T, [down('a')]);
    await step(T + 5 * MIN, [unknown('a')]);
    expect(issues.issues).toHaveLength(0);
    await step(T + 10 * MIN, [down('a')]); // the second failure in a row, the unknown between them skipped
    expect(issues.issues).toHaveLength(1);
    await step(T + 15 * MIN, [up('a')]);
    await step(T + 20 * MIN, [unknown('a')]);
    expect(issues.issues[0].state).toBe('open');
    await step(T + 25 * MIN, [up('a')]);
    expect(issues.issues[0].state).toBe('closed');
  });

  it('never redacts inside its own seal: a redactor that would cut it leaves the state readable', async () => {
    // A secret whose letters happen to appear in the marker's base64 must not break the seal.
    const { issues, log, step } = harness((t) => t.replaceAll('e', '*'));
    await step(T, [down('a')]);
    await step(T + 5 * MIN, [down('a')]);
    await step(T + 10 * MIN, [down('a')]);
    expect(issues.issues).toHaveLength(1);
    expect(issues.issues[0].body).toMatch(/<!-- claw-deploy incident: [\w-]+\.[\w-]{43} -->/);
    expect(log.text('warning')).not.toMatch(/seal/);
    await step(T + 15 * MIN, [up('a')]);
    await step(T + 20 * MIN, [up('a')]);
    expect(issues.issues[0].state).toBe('closed');
  });

  it('comments only when what fails changes, and redacts what it writes', async () => {
    const { issues, step } = await harness();
    await step(T, [down('a')]);
    await step(T + 5 * MIN, [down('a', 'down', 'my s3cret')]);
    await step(T + 10 * MIN, [down('a')]);
    expect(issues.issues[0].comments).toEqual([]);
    expect(issues.issues[0].body).toContain('`my ***`');
    expect(issues.issues[0]).toMatchObject({
      labels: ['claw-incident', 'a'],
      assignees: ['octocat'],
      title: 'a is down',
    });
    await step(T + 15 * MIN, [down('a', 'checks:greets')]);
    expect(issues.issues[0].comments).toHaveLength(1);
    expect(issues.issues[0].comments[0]).toMatch(/^What fails has changed/);
    expect(issues.issues[0].title).toBe('a is checks:greets');
  });

  it('without history, counts this run only: one failure never opens with confirm 2', async () => {
    const issues = new MemoryIssues();
    const deps = {
      issues,
      log: new RecordingLogger(),
      seal: sealKey('key', 'octo/claws'),
      redact: (t: string) => t,
      runId: '1',
      runUrl: () => undefined,
    };
    for (let i = 0; i < 3; i++) await trackIncidents({ ...deps, now: T + i * MIN }, OPTIONS, [down('a')], []);
    expect(issues.issues).toHaveLength(0);
  });

  it('the service and the key are one incident, not one per Claw', async () => {
    const { issues, step } = await harness();
    const service = (state: 'down' | 'refused'): Observation => ({
      subject: { service: true },
      status: 'unhealthy',
      failing: { signature: state, title: `service ${state}`, view: { summary: state } },
    });
    const past: Observation[] = [unknown('a'), unknown('b')];
    await step(T, [service('down'), ...past]);
    // The service's own history is kept as service records by the caller; here two runs in one go.
    const outcome = await trackIncidents(
      {
        issues,
        log: new RecordingLogger(),
        seal: sealKey('key', 'octo/claws'),
        redact: (t) => t,
        now: T + 5 * MIN,
        runId: '2',
        runUrl: () => undefined,
      },
      OPTIONS,
      [service('refused'), ...past],
      [{ at: T, run: '1', service: 'down' }],
    );
    expect(issues.issues.map((i) => [i.title, i.labels])).toEqual([
      ['service refused', ['claw-incident', 'claw-service']],
    ]);
    expect(outcome.open.get('service')).toMatchObject({ number: 1 });
  });

  it('closes the incident of a Claw the workspace no longer lists, only when the run listed every Claw', async () => {
    const { issues, step } = await harness();
    await step(T, [down('gone'), up('b')]);
    await step(T + 5 * MIN, [down('gone'), up('b')]);
    expect(issues.issues[0].state).toBe('open');
    const deps = {
      issues,
      log: new RecordingLogger(),
      seal: sealKey('key', 'octo/claws'),
      redact: (t: string) => t,
      now: T + 10 * MIN,
      runId: '9',
      runUrl: () => undefined,
    };
    await trackIncidents(deps, OPTIONS, [up('b')], [], false);
    expect(issues.issues[0].state).toBe('open');
    const outcome = await trackIncidents(deps, OPTIONS, [up('b')], [], true);
    expect(issues.issues[0].state).toBe('closed');
    expect(issues.issues[0].comments.at(-1)).toMatch(/^Closed: Claw `gone` is no longer in the workspace/);
    expect(outcome.actions).toEqual([expect.objectContaining({ action: 'closed', number: 1 })]);
  });

  it('a failure to talk to GitHub is one warning, and nothing else happens', async () => {
    const issues = new MemoryIssues();
    issues.list = async () => Promise.reject(Object.assign(new Error('Forbidden'), { status: 403 }));
    const log = new RecordingLogger();
    const outcome = await trackIncidents(
      { issues, log, seal: sealKey('k', 'o/r'), redact: (t) => t, now: T, runId: '1', runUrl: () => undefined },
      { ...OPTIONS, confirm: 1 },
      [down('a')],
      [],
    );
    expect(outcome.actions).toEqual([]);
    expect(log.text('warning')).toBe(
      "Incidents: could not read the issues (403: give the workflow 'permissions: issues: write' (and 'github-token' that has it)); no incident was opened or closed in this run.",
    );
  });

  it('keeps a small state whatever the failing checks are called, and reads it back', async () => {
    const { issues, log, step } = harness(undefined, { confirm: 1 });
    const names = Array.from({ length: 30 }, (_, i) => `check ${i} ${'described at length '.repeat(10)}`);
    const failing = down('a', `checks:${names.join(',')}`);
    await step(T, [failing]);
    await step(T + 5 * MIN, [failing]);
    expect(issues.issues).toHaveLength(1);
    expect(issues.issues[0].comments).toEqual([]); // the same failure: nothing new to say
    const marker = /<!-- claw-deploy incident: [^ ]+ -->/.exec(issues.issues[0].body)![0];
    expect(marker.length).toBeLessThan(400);
    expect(log.lines.filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([]);
  });

  it('opens at most maxNew issues a run, says how many waited, and opens them on the next run', async () => {
    const { issues, log, step } = harness(undefined, { confirm: 1, maxNew: 2 });
    await step(T, [down('a'), down('b'), down('c')]);
    expect(issues.issues.map((i) => i.labels[1])).toEqual(['a', 'b']);
    expect(log.text('info')).toContain(
      'Incidents: 1 new incident(s) held back by max-new-incidents (2); they open on the next run(s).',
    );
    await step(T + 5 * MIN, [down('a'), down('b'), down('c')]);
    expect(issues.issues.map((i) => i.labels[1])).toEqual(['a', 'b', 'c']);
  });

  it('a write refused for a permission is one warning for the run, the other writes counted, not tried', async () => {
    const { issues, log, step } = harness(undefined, { confirm: 1 });
    let tries = 0;
    issues.create = async () => {
      tries++;
      throw Object.assign(new Error('Resource not accessible by integration'), { status: 403 });
    };
    await step(T, [down('a'), down('b'), down('c')]);
    expect(tries).toBe(1);
    expect(log.lines.filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([
      "Incidents: could not open an incident issue (403: give the workflow 'permissions: issues: write' (and 'github-token' that has it)); no more issue writes in this run (2 more held back).",
    ]);
  });

  it('an issue sealed under the API key is sealed again under the state-secret, with a notice', async () => {
    const first = harness(undefined, { confirm: 1 });
    await first.step(T, [down('a')]);
    const ring = stateSealKey({ stateSecret: 'state-secret-0123456789', apiKey: 'key' }, 'octo/claws');
    const { issues, log, step } = harness(undefined, { confirm: 1 }, ring);
    issues.issues.push(...first.issues.issues);
    const outcome = await step(T + 5 * MIN, [down('a')]);
    expect(outcome.notices).toEqual([
      expect.stringMatching(/^Incidents: re-sealed 1 issue\(s\) under the state-secret/),
    ]);
    expect(issues.issues).toHaveLength(1);
    expect(readSealed(issues.issues[0].body, 'incident', ring)).toMatchObject({ found: true, state: { v: 1 } });
    expect(readSealed(issues.issues[0].body, 'incident', ring)).not.toHaveProperty('older');
    expect(log.lines.filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([]);
  });

  it('an incident edited to name another suspect still names its sealed one, in its next body and its outcome', async () => {
    const { issues, step } = harness(undefined, { confirm: 1 });
    const view = (id: string, at: number) => ({ id, at, outcome: 'succeeded', run: { id: '7' } });
    const deployments = {
      windowDays: 7,
      suspect: view('dep-2', T - 60 * MIN),
      known: [view('dep-1', T - 120 * MIN), view('dep-2', T - 60 * MIN)],
    };
    const failing = (signature: string): Observation => ({ ...down('a', signature), deployments });
    await step(T, [failing('down')]);
    expect(issues.issues[0].body).toContain('**Suspect deployment:** `dep-2`');
    // A collaborator edits the text (the seal kept) to blame dep-1.
    issues.issues[0].body = issues.issues[0].body.replaceAll('`dep-2`', '`dep-1`');
    const outcome = await step(T + 5 * MIN, [failing('checks:greets')]);
    expect(issues.issues[0].body).toContain('**Suspect deployment:** `dep-2`');
    expect(issues.issues[0].comments[0]).toContain('**Suspect deployment:** `dep-2`');
    expect(outcome.open.get('claw:a')).toMatchObject({ number: 1, suspect: 'dep-2' });
    // The figures teams track count the sealed suspect too (dora.ts).
    expect(outcome.spans).toEqual([{ claw: 'a', openedAt: T, suspect: 'dep-2' }]);
  });
});
