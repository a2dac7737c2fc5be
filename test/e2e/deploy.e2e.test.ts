// The bundled action, run as the runner runs it, against the simulator.
import { describe, expect, it } from 'vitest';
import { SHAPES } from '../sim/shapes.ts';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

/** A simulator whose deployments run 20× faster than real time. */
const start = simulatorPerTest({ urls: true });

/** stdout without the one line that tells the runner to mask the key. */
const visible = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');

describe('deploy through dist/index.js', () => {
  it('reaches a service on the IPv6 loopback, http://[::1]:PORT', async (ctx) => {
    const sim = await start({ urls: false }, '::1').catch(() => undefined);
    if (!sim) return ctx.skip(); // this machine has no IPv6 loopback
    sim.addClaw('c1', { plan: [['pending', 2000], ['live']] });
    expect(sim.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const run = await runAction(inputsFor(sim));
    expect(run.errors).toEqual([]);
    expect(run.outputs.outcome).toBe('succeeded');
  });

  it('deploys, waits and reports: outputs, summary, exit 0', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 2000], ['in_progress', 4000], ['live']] });
    const run = await runAction(inputsFor(s, { strategy: 'rolling' }));
    expect(run.exitCode).toBe(0);
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      'deployment-id': 'dep_0001',
      status: 'live',
      outcome: 'succeeded',
      'rolled-back': 'false',
      url: 'https://dashboard.example.com/deployments/dep_0001',
    });
    expect(Number(run.outputs.duration)).toBeGreaterThan(0);
    expect(run.summary).toContain('### ✅ Deployment of Claw `c1`: succeeded');
    for (const text of [
      '| Claw | `c1` |',
      '`dep_0001`',
      '| Strategy | `rolling` |',
      '| Outcome | **succeeded** |',
      '| Duration |',
      '#### Timeline',
    ]) {
      expect(run.summary).toContain(text);
    }
    expect(run.summary).toMatch(/\| \+[\d.]+m?s \| `dep_0001` \| `in_progress` \| in progress \| [\d.]+m?s \|/);
    // A real header, the start in UTC, the commit linked, and the timeline from the trigger on.
    expect(run.summary).toContain('| Field | Value |');
    expect(run.summary).toMatch(/\| Started \| \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d UTC \|/);
    expect(run.summary).toContain('[`a1b2c3d4e5f6`](https://github.com/octo/claws/commit/a1b2c3d4e5f6a7b8c9d0)');
    expect(run.summary).toMatch(/\| \+\d+ms \| `dep_0001` \| `pending` \| in progress \|/);
    // A log group per phase, and the dashboard at the trigger.
    expect(run.commands.filter((c) => c.startsWith('::group::'))).toEqual([
      '::group::Trigger: a deployment of Claw c1',
      '::group::Wait: deployment dep_0001',
    ]);
    expect(run.stdout).toContain('Dashboard: https://dashboard.example.com/deployments/dep_0001');
    expect(s.triggered()).toHaveLength(1);
    expect(s.requests[0].body).toEqual({ clawId: 'c1', strategy: 'rolling' });
  });

  it('a deploy that succeeded after four 502s shows one warning, not four', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 20_000], ['live']] });
    s.fault({ kind: '502-html', method: 'GET', path: '/deployments/', times: 4 });
    const run = await runAction(inputsFor(s));
    expect(run.exitCode).toBe(0);
    expect(run.warnings).toHaveLength(1);
    expect(run.warnings[0]).toMatch(/502 from the service; retry 1 in .*further retries are logged as info/);
    expect(run.stdout.match(/; retry [2-4] in /g)).toHaveLength(3);
  });

  it.each([
    ['crashed', 'failed'],
    ['needs_attention', 'paused'],
  ])('fails the step when the deployment ends %s (%s), naming the status', async (final, outcome) => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 2000], [final]] });
    const run = await runAction(inputsFor(s));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe(outcome);
    expect(run.outputs.status).toBe(final);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(`"${final}"`);
  });

  it('ends a timed-out wait within a second of its deadline, even with a hung request', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['in_progress']] });
    s.fault({ kind: 'hang', method: 'GET', path: '/deployments/', times: 1000 });
    const run = await runAction(inputsFor(s, { timeout: '1500ms', 'request-timeout': '30s' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('timed-out');
    expect(Number(run.outputs.duration)).toBeGreaterThanOrEqual(1.5);
    expect(Number(run.outputs.duration)).toBeLessThan(2.5);
    expect(run.errors[0]).toContain('timed out');
  });

  it('still names the deployment when the service stops answering mid-wait', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['in_progress']] });
    s.fault({ kind: 'error', status: 403, method: 'GET', path: '/deployments/', times: 1 });
    const run = await runAction(inputsFor(s));
    expect(run.exitCode).toBe(1);
    expect(run.outputs['deployment-id']).toBe('dep_0001');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain("lacks the 'deployments:read' scope needed for GET /v1/deployments/:id");
  });

  it('returns right after the trigger with wait: false', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    const run = await runAction(inputsFor(s, { wait: 'false' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({ outcome: 'triggered', 'deployment-id': 'dep_0001', status: 'pending' });
    expect(s.requests).toHaveLength(1);
  });

  it('waits on a given deployment with the wait command', async () => {
    const s = await start();
    s.addClaw('c1');
    const existing = s.addDeployment('c1', [['in_progress', 2000], ['deployed']], 'dep_existing');
    const run = await runAction(inputsFor(s, { command: 'wait', 'claw-id': '', 'deployment-id': existing.id }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({ 'deployment-id': 'dep_existing', status: 'deployed', outcome: 'succeeded' });
    expect(s.triggered()).toHaveLength(0);
  });

  it.each([
    [{ timeout: 'soon' }, 'Input \'timeout\' is "soon"'],
    [{ 'base-url': 'http://api.example.com/v1' }, 'Input \'base-url\' is "http://api.example.com/v1"'],
    [{ 'claw-id': 'has space' }, 'Input \'claw-id\' is "has space"'],
    [{ payload: '[1]' }, 'Input \'payload\' is "[1]"'],
    [{ wait: 'maybe' }, 'Input \'wait\' is "maybe"'],
  ])('rejects bad input %j with one ::error:: line and no request', async (extra, message) => {
    const s = await start();
    const run = await runAction(inputsFor(s, extra));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(message);
    expect(run.stdout.match(/^::error::/gm)).toHaveLength(1);
    expect(s.requests).toHaveLength(0);
  });

  it('runs outside a runner too: no GITHUB_REPOSITORY, no summary file', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['live']] });
    const run = await runAction(inputsFor(s), { env: { GITHUB_REPOSITORY: '', GITHUB_STEP_SUMMARY: '' } });
    expect(run.errors).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(s.requests[0].method).toBe('POST');
  });

  it('never prints the key, even when the service echoes it', async () => {
    const key = 'very-secret-key-4242';
    const s = await start({ echoKey: true, keys: { [key]: ['deployments:read'] } });
    s.addClaw('c1');
    const run = await runAction(inputsFor(s, { 'api-key': key }));
    expect(run.exitCode).toBe(1);
    expect(run.errors[0]).toContain("lacks the 'deployments:write' scope");
    expect(run.stdout).toContain(`::add-mask::${key}`);
    for (const text of [visible(run.stdout), run.stderr, run.summary, JSON.stringify(run.outputs)])
      expect(text).not.toContain(key);
  });

  it.each(Object.keys(SHAPES))('reads the %s response shape', async (shape) => {
    const s = await start({ shape });
    s.addClaw('c1', { plan: [['queued', 2000], ['building', 2000], ['ready']] });
    const run = await runAction(inputsFor(s));
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({ 'deployment-id': 'dep_0001', status: 'ready', outcome: 'succeeded' });
    expect(run.outputs.url).toContain('dep_0001');
  });

  it('polls from the Claw history: one list read, then fewer polls than a fixed poller', async () => {
    const s = await start({ timestamps: true });
    // 20× speed: a 60 s deployment takes 3 s; the poll interval is 100 ms.
    s.addClaw('c1', { plan: [['deploying', 60_000], ['live']] });
    for (const ms of [60_000, 64_000, 70_000]) s.addPastDeployment('c1', ms);
    const run = await runAction(inputsFor(s));
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /The last 3 deployments of c1 took 3s–3\.5s: polling every 100ms from 2\.9s, less often before\./,
    );
    const counts = s.routeCounts();
    expect(counts['GET /v1/deployments']).toBe(1);
    // A fixed 100 ms poller needs about 30 polls for 3 s; the schedule far fewer.
    expect(counts['GET /v1/deployments/:id']).toBeLessThan(20);
  });
});
