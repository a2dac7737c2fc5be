// The deploy and wait commands against the simulator, on one fake clock shared with it.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, policy, setup, timeout } from '../../test/support/setup.ts';
import { SHAPES } from '../../test/sim/shapes.ts';
import { deployClaw, waitOnDeployment } from './deploy.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const deploy = (harness: Harness, overrides = {}, input: Partial<Parameters<typeof deployClaw>[1]> = {}) =>
  deployClaw(harness.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true, ...input }, policy(overrides));

describe('deployClaw', () => {
  it('triggers, waits and reports success with the timeline', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 10_000], ['in_progress', 20_000], ['live']] });
    const result = await deploy(h);
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded', status: 'live', deploymentId: 'dep_0001' });
    expect(result.timeline.map((e) => e.status)).toEqual(['pending', 'in_progress', 'live']);
    expect(result.durationMs).toBe(30_000);
    // 1 trigger + one poll every 5 s for 30 s.
    expect(h.sim.requests).toHaveLength(7);
  });

  it('sends clawId and the payload, and strategy only when given', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['live']] });
    await deploy(h, {}, { payload: { version: '1.2.3', clawId: 'ignored' } });
    await deploy(h, {}, { strategy: 'blue-green' });
    const posts = h.sim.requests.filter((r) => r.method === 'POST');
    expect(posts[0].body).toEqual({ version: '1.2.3', clawId: 'c1' });
    expect(posts[1].body).toEqual({ clawId: 'c1', strategy: 'blue-green' });
    expect(posts[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[0].idempotencyKey).not.toBe(posts[1].idempotencyKey);
  });

  it('logs each new status once, not every poll', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    await deploy(h);
    expect(h.log.text('info').match(/: pending/g)).toHaveLength(1);
    expect(h.log.text('info').match(/: live/g)).toHaveLength(1);
  });

  it.each([
    ['crashed', 'failed'],
    ['on_hold', 'paused'],
    ['rolled_back', 'failed'],
  ])('a deployment ending %s is %s, and the message names the status', async (final, outcome) => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 5000], [final]] });
    const result = await deploy(h);
    expect(result).toMatchObject({ ok: false, outcome, status: final });
    expect(result.message).toContain(`"${final}"`);
  });

  it('reads the user status words', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['warming', 5000], ['shipped']] });
    const { statusClassifier } = await import('../shared/status.js');
    const result = await deploy(h, { classify: statusClassifier({ success: ['shipped'] }) });
    expect(result.outcome).toBe('succeeded');
  });

  it('times out at the deadline, never sleeping past it', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['in_progress']] });
    const result = await deploy(h, { timeoutMs: timeout(h, 12_000), pollIntervalMs: 5000 });
    expect(result.outcome).toBe('timed-out');
    expect(h.clock.now() - h.deps.startedAt).toBe(12_000);
    expect(Math.max(...h.clock.sleeps)).toBeLessThanOrEqual(5500);
    expect(result.message).toContain('no final status within 12s');
    expect(result.message).toContain('"in_progress"');
  });

  it('returns right after the trigger when not waiting', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    const result = await deploy(h, {}, { wait: false });
    expect(result).toMatchObject({ ok: true, outcome: 'triggered', deploymentId: 'dep_0001' });
    expect(h.sim.requests).toHaveLength(1);
  });

  it('explains a Claw that does not exist', async () => {
    h = await setup();
    await expect(deploy(h)).rejects.toThrow('Claw "c1" was not found');
  });

  it.each(Object.keys(SHAPES))('works with the %s response shape', async (shape) => {
    h = await setup({ shape, urls: true });
    h.sim.addClaw('c1', { plan: [['pending', 5000], ['live']] });
    const result = await deploy(h);
    expect(result).toMatchObject({
      ok: true,
      status: 'live',
      deploymentId: 'dep_0001',
      url: 'https://dashboard.example.com/deployments/dep_0001',
    });
  });
});

describe('waitOnDeployment', () => {
  it('polls at once and waits for a final status', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    const existing = h.sim.addDeployment('c1', [['in_progress', 7000], ['failed']]);
    const result = await waitOnDeployment(h.deps, existing.id, policy());
    expect(result).toMatchObject({ ok: false, outcome: 'failed', status: 'failed', deploymentId: existing.id });
    expect(h.sim.requests[0].path).toBe(`/v1/deployments/${existing.id}`);
    expect(h.clock.sleeps[0]).toBeGreaterThanOrEqual(5000); // the first poll came before any sleep
  });

  it("a deployment already final reports the service's duration, or none: never this run's few milliseconds", async () => {
    for (const timestamps of [true, false]) {
      h = await setup({ timestamps });
      h.sim.addClaw('c1');
      const done = h.sim.addDeployment('c1', [['in_progress', 90_000], ['succeeded']]);
      h.clock.advance(10 * 60_000);
      const result = await waitOnDeployment(h.deps, done.id, policy());
      expect(result).toMatchObject({ ok: true, outcome: 'succeeded' });
      if (timestamps) {
        expect(result.durationMs).toBe(90_000);
        expect(result.message).toMatch(/succeeded with status "succeeded" after 1m30s\.$/);
      } else {
        expect(result.durationMs).toBeUndefined();
        expect(result.message).toMatch(
          /after a time the service does not tell \(it had finished before this wait began\)\.$/,
        );
      }
      await h.sim.stop();
    }
  });

  it('explains a deployment that does not exist, as outcome error', async () => {
    h = await setup();
    const result = await waitOnDeployment(h.deps, 'nope', policy());
    expect(result).toMatchObject({ outcome: 'error', ok: false });
    expect(result.message).toMatch(/^The wait of deployment nope stopped: Deployment "nope" was not found/);
  });
});

describe('cancel paths, on the fake clock', () => {
  /** A harness whose run is cancelled (as SIGINT would) once the clock reaches `afterMs`. */
  async function cancelledAt(afterMs: number, options: Parameters<typeof setup>[0] = {}) {
    const harness = await setup(options);
    const cancel = new AbortController();
    harness.deps.signal = cancel.signal;
    harness.clock.at(harness.clock.now() + afterMs, () => cancel.abort());
    return harness;
  }

  it('before the trigger: cancelled, and no deployment is made', async () => {
    h = await cancelledAt(5000);
    h.sim.addClaw('c1', { plan: [['live']] });
    // The trigger meets a 503 asking for 10 s; the cancel comes during that wait.
    h.sim.fault({ kind: '503', method: 'POST', path: '/deployments', times: 1, retryAfter: '10' });
    const result = await deploy(h, { autoRollback: true, rollbackOn: ['cancelled'] });
    expect(result).toMatchObject({ ok: false, outcome: 'cancelled' });
    expect(result.deploymentId).toBeUndefined();
    expect(result.message).toBe('Cancelled before deployment of Claw c1 was triggered.');
    expect(h.sim.triggered('c1')).toHaveLength(0);
    expect(h.sim.requests.filter((r) => r.path.endsWith('/rollback'))).toHaveLength(0);
  });

  it('during the wait: cancelled, and the rollback is requested, not waited for', async () => {
    h = await cancelledAt(20_000);
    h.sim.addClaw('c1', { plan: [['in_progress', 60_000], ['live']] });
    const result = await deploy(h, { autoRollback: true, rollbackOn: ['cancelled'] });
    expect(result).toMatchObject({ ok: false, outcome: 'cancelled', status: 'in_progress' });
    expect(result.rollback).toMatchObject({ outcome: 'requested', succeeded: false });
    expect(result.message).toMatch(/cancelled while waiting for deployment dep_0001.*A rollback was requested/);
    const rollbacks = h.sim.requests.filter((r) => r.path === '/v1/deployments/dep_0001/rollback');
    expect(rollbacks).toHaveLength(1);
    // Nothing is polled after the rollback request: the runner's grace period is short.
    expect(h.sim.requests.at(-1)?.path).toBe('/v1/deployments/dep_0001/rollback');
  });

  it('during the wait, without cancelled in rollback-on: cancelled, nothing rolled back', async () => {
    h = await cancelledAt(20_000);
    h.sim.addClaw('c1', { plan: [['in_progress', 60_000], ['live']] });
    const result = await deploy(h, { autoRollback: true });
    expect(result).toMatchObject({ outcome: 'cancelled', rollback: undefined });
    expect(h.sim.requests.filter((r) => r.path.endsWith('/rollback'))).toHaveLength(0);
  });

  it("during the rollback's wait: the failure stands, and the rollback is reported as requested", async () => {
    h = await cancelledAt(30_000, { rollbackForm: 'in-place' });
    h.sim.addClaw('c1', {
      plan: [['in_progress', 10_000], ['failed']],
      rollbackPlan: [['rolling_back', 120_000], ['rolled_back']],
    });
    const result = await deploy(h, { autoRollback: true });
    expect(result).toMatchObject({ ok: false, outcome: 'failed' });
    expect(result.rollback).toMatchObject({
      id: 'dep_0001',
      outcome: 'requested',
      succeeded: false,
      message: 'the run was cancelled while waiting for rollback dep_0001',
    });
    expect(h.clock.now() - h.deps.startedAt).toBeLessThan(35_000);
  });
});
