// The incident rules on an in-memory issue host: what opens, comments, closes and reopens, and
// what never does (unknown runs, another change of the same failure, a history that cannot be read).
import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '../../test/support/setup.ts';
import { sealKey } from '../seal.js';
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

function harness(redact = (t: string) => t.replaceAll('s3cret', '***')) {
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
        seal: sealKey('key', 'octo/claws'),
        redact,
        now: at,
        runId,
        runUrl: (id) => `https://github.com/octo/claws/actions/runs/${id}`,
      },
      OPTIONS,
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
});
