// A simulated week of scheduled health runs, each one `node dist/index.js` as the runner starts it,
// against the simulator and the fake GitHub API, on a clock that starts each run at its scheduled
// time (a hook shifts Date in the child; the simulator and the fake read the same time): a Claw
// down for three runs, a single failed run, a flapping Claw, a service outage, a Claw that answers
// badly while up, two runs writing history at once, and the page rendered from that week.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../sim/github.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { type ActionRun, runAction } from './harness.ts';

const MONDAY = Date.parse('2026-11-16T00:00:00Z');
const HOUR = 3600_000;
const at = (day: number, hour: number, minute = 0): number => MONDAY + day * 24 * HOUR + hour * HOUR + minute * 60_000;

const CHECKS = `checks:
  - name: greets
    send: Hello
    assert:
      - type: icontains
        value: help
`;

/** Each Claw's state per run: offline, or a rude reply; anything else is fine. */
type Trouble = { offline?: string[]; rude?: boolean; serviceDown?: boolean };

let sim: Simulator;
let github: FakeGitHub;
let offset = 0;
let workspace: string;
const runs: { name: string; when: number; run: ActionRun }[] = [];
let started = 0;

function setTrouble(trouble: Trouble): void {
  for (const id of ['steady', 'outage3', 'blip', 'flappy']) {
    sim.claws.get(id)!.status = trouble.offline?.includes(id) ? 'offline' : 'online';
  }
  sim.claws.get('rude')!.chat.reply = trouble.rude ? 'Go away. <b>Not</b> now.' : 'Hello! How can I help?';
  sim.faults.length = 0;
  if (trouble.serviceDown) sim.fault({ kind: '503', times: 1_000_000, retryAfter: '1' });
}

let runNumber = 5000;
async function runAt(name: string, when: number, trouble: Trouble = {}): Promise<ActionRun> {
  setTrouble(trouble);
  offset = when - Date.now();
  const before = github.requests.length;
  const run = await runAction(inputs(trouble), {
    clockAt: when,
    env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: String(++runNumber), GITHUB_WORKSPACE: workspace },
  });
  runs.push({ name, when, run });
  calls.push(github.requests.length - before);
  return run;
}
/** GitHub API calls per run: a figure for the report, never a test of speed. */
const calls: number[] = [];

const inputs = (trouble: Trouble): Record<string, string> => ({
  command: 'health',
  'api-key': DEMO_KEY,
  'base-url': `${sim.url}/v1`,
  'claw-id': '*',
  checks: 'claw-checks.yml',
  'poll-interval': '100ms',
  // A run during the outage ends at its deadline rather than after minutes of retries. GitHub's
  // part keeps the last quarter of it: 2 s, so a loaded machine still writes the history.
  timeout: trouble.serviceDown ? '8s' : '20s',
  incidents: 'true',
  'status-page': 'true',
  mention: '@octo/oncall',
});

const issuesOf = (label: string) => github.repo.issues.filter((i) => i.labels.includes(label));
const commentsOn = (n: number) => (github.comments.get(n) ?? []).map((c) => c.body);

beforeAll(async () => {
  started = performance.now();
  const now = (): number => Date.now() + offset;
  sim = new Simulator({ now, pageSize: 10 });
  await sim.start();
  for (const id of ['steady', 'outage3', 'blip', 'flappy', 'rude']) {
    sim.addClaw(id, { chat: { mode: 'sync', reply: 'Hello! How can I help?' } });
    sim.addDeployment(id, [['live']]);
  }
  github = new FakeGitHub({ now });
  await github.start();
  workspace = mkdtempSync(join(tmpdir(), 'claw-week-'));
  writeFileSync(join(workspace, 'claw-checks.yml'), CHECKS);

  // Monday: all well, then one failed run of blip.
  await runAt('mon 00', at(0, 0));
  await runAt('mon 06', at(0, 6), { offline: ['blip'] });
  await runAt('mon 12', at(0, 12));
  // Tuesday: outage3 down for three runs, then back.
  await runAt('tue 00', at(1, 0), { offline: ['outage3'] });
  await runAt('tue 06', at(1, 6), { offline: ['outage3'] });
  await runAt('tue 12', at(1, 12), { offline: ['outage3'] });
  await runAt('tue 18', at(1, 18));
  // Wednesday: flappy fails and recovers three times within the hour's reopen window.
  await runAt('wed 00', at(2, 0));
  for (let cycle = 0; cycle < 3; cycle++) {
    const minute = cycle * 60;
    await runAt(`wed flap ${cycle}a`, at(2, 10, minute), { offline: ['flappy'] });
    await runAt(`wed flap ${cycle}b`, at(2, 10, minute + 15), { offline: ['flappy'] });
    await runAt(`wed flap ${cycle}c`, at(2, 10, minute + 30));
    await runAt(`wed flap ${cycle}d`, at(2, 10, minute + 45));
  }
  // Thursday: the service fails for everyone for two runs.
  await runAt('thu 06', at(3, 6), { serviceDown: true });
  await runAt('thu 06:30', at(3, 6, 30), { serviceDown: true });
  await runAt('thu 07', at(3, 7));
  await runAt('thu 12', at(3, 12));
  // Friday: rude is up but answers badly, then is fixed.
  await runAt('fri 00', at(4, 0), { rude: true });
  await runAt('fri 06', at(4, 6), { rude: true });
  await runAt('fri 12', at(4, 12));
  await runAt('fri 18', at(4, 18));
  // Saturday: two runs write the history at once.
  github.repo.holdBranchReads(2);
  offset = at(5, 12) - Date.now();
  setTrouble({});
  const pair = await Promise.all(
    ['6001', '6002'].map((id) =>
      runAction(inputs({}), {
        clockAt: at(5, 12),
        env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: id, GITHUB_WORKSPACE: workspace },
      }),
    ),
  );
  pair.forEach((run, i) => runs.push({ name: `sat pair ${i}`, when: at(5, 12), run }));
  // Sunday: the week's last run renders the page.
  await runAt('sun 18', at(6, 18));
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await github?.stop();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const page = github?.repo.file('claw-health', 'index.html') ?? '';
  process.stderr.write(
    `health week: ${runs.length} runs in ${seconds} s; GitHub calls per run ${Math.min(...calls)} to ${Math.max(...calls)} (5 Claws); index.html ${Buffer.byteLength(page)} bytes\n`,
  );
});

describe('a simulated week of scheduled health runs', () => {
  it('every run reports health; only the service outage ends in an error', () => {
    for (const { name, run } of runs) {
      const outage = name.startsWith('thu 06');
      expect({ name, code: run.exitCode, outcome: run.outputs.outcome }).toEqual(
        outage ? { name, code: 1, outcome: 'error' } : { name, code: expect.any(Number), outcome: undefined },
      );
      expect(run.stdout).not.toMatch(/::warning::(History|Incidents)/);
    }
  });

  it('a Claw down for three runs: one issue, one comment, closed with its duration', () => {
    const [issue] = issuesOf('outage3');
    expect(issuesOf('outage3')).toHaveLength(1);
    expect(issue).toMatchObject({ state: 'closed', title: 'outage3 is down', labels: ['claw-incident', 'outage3'] });
    // Opened by the second failing run (each run's clock starts at its hour, then runs at real pace).
    expect(issue.created_at.slice(0, 16)).toBe('2026-11-17T06:00');
    expect(issue.body).toContain('@octo/oncall');
    expect(issue.body).toMatch(/\*\*Status:\*\* `offline \/ live`/);
    const comments = commentsOn(issue.number);
    expect(comments).toHaveLength(1);
    // 18 hours from Tuesday 00:00 to 18:00, give or take the runs' start-up.
    expect(comments[0]).toMatch(
      /\*\*Duration:\*\* (18h|18h\d{1,2}s|17h59m\d{1,2}s), from the first failing run to the first healthy one\./,
    );
    expect(comments[0]).toContain('**First failing run:** [run 5004](https://github.com/octo/claws/actions/runs/5004)');
    expect(comments[0]).toContain('**Last failing run:** [run 5006](https://github.com/octo/claws/actions/runs/5006)');
  });

  it('a single failed run opens nothing', () => {
    expect(issuesOf('blip')).toEqual([]);
  });

  it('a flapping Claw: one issue, reopened, not five', () => {
    expect(issuesOf('flappy')).toHaveLength(1);
    const [issue] = issuesOf('flappy');
    expect(issue.state).toBe('closed');
    const comments = commentsOn(issue.number);
    expect(comments.filter((c) => c.startsWith('Failing again'))).toHaveLength(2);
    expect(comments.filter((c) => c.startsWith('✅ Recovered'))).toHaveLength(3);
    expect(comments.filter((c) => c.startsWith('Failing again')).every((c) => c.includes('@octo/oncall'))).toBe(true);
  });

  it('a service outage: one issue about the service, none per Claw', () => {
    const service = issuesOf('claw-service');
    expect(service).toHaveLength(1);
    expect(service[0]).toMatchObject({ title: 'The Agent Management Service is failing', state: 'closed' });
    expect(issuesOf('steady')).toEqual([]);
    expect(github.repo.issues).toHaveLength(4);
  });

  it('a Claw that answers badly while up: an incident from its checks, the reply escaped', () => {
    const [issue] = issuesOf('rude');
    expect(issuesOf('rude')).toHaveLength(1);
    expect(issue).toMatchObject({ title: 'rude fails its checks: greets', state: 'closed' });
    expect(issue.body).toContain('Check `greets` failed');
    expect(issue.body).toContain('Go away. &lt;b&gt;Not&lt;/b&gt; now.');
    expect(issue.body).not.toContain('<b>');
  });

  it('two runs that write history at once: both records kept', () => {
    const records = ['history/2026-11.ndjson', 'history/2026-11.2.ndjson']
      .map((p) => github.repo.file('claw-health', p) ?? '')
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { run: string; claw?: string });
    for (const run of ['6001', '6002']) expect(records.filter((r) => r.run === run && r.claw)).toHaveLength(5);
    const pair = runs.filter((r) => r.name.startsWith('sat pair')).map((r) => r.run.stdout);
    expect(pair.some((out) => out.includes('moved while this run wrote; reading it again'))).toBe(true);
  });

  it('the page rendered from that week', () => {
    const files = github.repo.files('claw-health');
    expect(files).toEqual(
      expect.arrayContaining([
        '.nojekyll',
        'badge.svg',
        'badges/flappy.svg',
        'badges/rude.svg',
        'index.html',
        'status.json',
        'history/daily/2026-11.ndjson',
      ]),
    );
    const html = github.repo.file('claw-health', 'index.html')!;
    for (const id of ['steady', 'outage3', 'blip', 'flappy', 'rude']) expect(html).toContain(`>${id}</h2>`);
    expect(html).not.toMatch(/<script|https?:\/\/(?!github\.com)/);
    const status = JSON.parse(github.repo.file('claw-health', 'status.json')!) as {
      claws: { id: string; uptime: Record<string, number | null>; days: { day: string }[] }[];
    };
    const outage3 = status.claws.find((c) => c.id === 'outage3')!;
    expect(outage3.uptime['7d']).toBeLessThan(1);
    expect(outage3.days.map((d) => d.day)).toContain('2026-11-17');
    expect(status.claws.find((c) => c.id === 'steady')!.uptime['7d']).toBe(1);
    const out = join(tmpdir(), 'claw-health-week');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'index.html'), html);
    const last = runs.at(-1)!.run;
    expect(last.summary).toContain('#### Last 90 days');
  });
});
