// Faults on the trigger and on the poll: the right outcome, and never a second deployment.
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultKind } from '../../test/sim/server.ts';
import { type Harness, policy, setup, timeout } from '../../test/support/setup.ts';
import { ApiError } from '../api/errors.js';
import { GIVE_UP_AFTER_FAILURES, GIVE_UP_AFTER_MS } from '../api/retry.js';
import { deployClaw } from './deploy.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const FAULTS: FaultKind[] = ['500', '502-html', '503', 'reset', 'hang', 'truncated', '429', 'lost-create'];

async function deployWith(options: Parameters<typeof setup>[0] = {}) {
  // A short request timeout so a hung request costs little real time.
  h = await setup(options, { requestTimeoutMs: 300 });
  h.sim.addClaw('c1', { plan: [['pending', 10_000], ['in_progress', 20_000], ['live']] });
  return h;
}

const run = (harness: Harness) =>
  deployClaw(harness.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, policy());

describe('fault matrix', () => {
  describe.each(FAULTS)('%s', (kind) => {
    it.each([
      ['on the trigger', 'POST', '/deployments'],
      ['on the poll', 'GET', '/deployments/'],
    ])('%s: succeeds with exactly one deployment', async (_, method, path) => {
      const harness = await deployWith({ honourIdempotency: false });
      harness.sim.fault({ kind, method, path, times: 2, retryAfter: '2' });
      const result = await run(harness);
      expect(result).toMatchObject({ ok: true, outcome: 'succeeded', status: 'live' });
      expect(harness.sim.triggered('c1')).toHaveLength(1);
      const warnings = harness.log.text('warning');
      expect(warnings).toMatch(kind === '429' ? /rate limited \(429\); waiting/ : /retry 1 in/);
    });
  });

  it('finds a lost trigger even when the service clock is an hour off', async () => {
    for (const skew of [3_600_000, -3_600_000]) {
      const harness = await deployWith({ clockSkewMs: skew });
      harness.sim.fault({ kind: 'lost-create', method: 'POST', path: '/deployments', times: 1 });
      const result = await run(harness);
      expect(result.outcome).toBe('succeeded');
      expect(harness.sim.triggered('c1')).toHaveLength(1);
      expect(harness.log.text('info')).toContain('the earlier attempt had taken effect');
      await harness.sim.stop();
    }
  });

  it('sends the same Idempotency-Key on every retry of one trigger', async () => {
    const harness = await deployWith({ honourIdempotency: true });
    harness.sim.fault({ kind: '503', method: 'POST', path: '/deployments', times: 3, retryAfter: '1' });
    await run(harness);
    const keys = harness.sim.requests.filter((r) => r.method === 'POST').map((r) => r.idempotencyKey);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
  });

  it.each([400, 401, 403, 404, 422])('never retries a %d, on the trigger or the poll', async (status) => {
    const harness = await deployWith();
    harness.sim.fault({ kind: 'error', status, times: 10 });
    await expect(run(harness)).rejects.toBeInstanceOf(ApiError);
    const dep = harness.sim.addDeployment('c1', [['live']]);
    await expect(harness.client.getDeployment(dep.id)).rejects.toBeInstanceOf(ApiError);
    expect(harness.sim.requests).toHaveLength(2);
    expect(harness.sim.triggered()).toHaveLength(0);
  });
});

describe('transient failures', () => {
  it('a blip never fails a long deployment: failures in a row reset on success', async () => {
    h = await setup({}, { requestTimeoutMs: 300 });
    h.sim.addClaw('c1', { plan: [['in_progress', 30 * 60_000 - 60_000], ['live']] });
    // Far more failures in total than the give-up bound, but never more than 3 in a row.
    h.sim.fault({ kind: 'reset', method: 'GET', path: '/deployments/', times: 100, passEvery: 4 });
    const result = await run(h);
    expect(result.outcome).toBe('succeeded');
    expect(h.log.lines.filter((l) => l.level === 'warning').length).toBeGreaterThanOrEqual(GIVE_UP_AFTER_FAILURES * 3);
  });

  it('gives up only after 10 failures in a row that span 2 minutes: one warning, then info lines', async () => {
    h = await setup({}, { requestTimeoutMs: 300 });
    h.sim.addClaw('c1', { plan: [['live']] });
    const dep = h.sim.addDeployment('c1', [['in_progress']]);
    h.sim.fault({ kind: '500', method: 'GET', path: '/deployments/', times: 10_000 });
    const began = h.clock.now();
    const err = await h.client.getDeployment(dep.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/gave up after \d+ failures in a row over/);
    const failures = h.sim.requests.length;
    expect(failures).toBeGreaterThanOrEqual(GIVE_UP_AFTER_FAILURES);
    expect(h.clock.now() - began).toBeGreaterThanOrEqual(GIVE_UP_AFTER_MS);
    // GitHub shows few annotations per step: the episode warns once, each retry is an info line.
    expect(h.log.lines.filter((l) => l.level === 'warning')).toHaveLength(1);
    expect(h.log.lines.filter((l) => l.level === 'info' && /; retry \d+ in /.test(l.message))).toHaveLength(
      failures - 2,
    );
  });

  it('stops retrying at the deadline and reports a timeout', async () => {
    h = await setup({}, { requestTimeoutMs: 300 });
    h.sim.addClaw('c1', { plan: [['live']] });
    h.sim.fault({ kind: '502-html', method: 'GET', path: '/deployments/', times: 10_000 });
    const result = await deployClaw(
      h.deps,
      { clawId: 'c1', strategy: '', payload: {}, wait: true },
      policy({ timeoutMs: timeout(h, 60_000) }),
    );
    expect(result.outcome).toBe('timed-out');
    expect(h.clock.now() - h.deps.startedAt).toBeLessThanOrEqual(60_000);
  });

  it('shows what an error page held, with the key removed', async () => {
    h = await setup({ echoKey: true });
    const dep = h.sim.addDeployment('c1', [['live']]);
    h.sim.fault({ kind: 'error', status: 418, times: 1 });
    const err = (await h.client.getDeployment(dep.id).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe(
      'GET /v1/deployments/:id failed with 418. Body: <html><body>Error 418 for ***</body></html>',
    );
  });
});

describe('unreadable answers', () => {
  it('a 200 that is never JSON ends with its status and the start of its body, the key removed', async () => {
    h = await setup({ echoKey: true }, { requestTimeoutMs: 300 });
    const dep = h.sim.addDeployment('c1', [['live']]);
    h.sim.fault({ kind: 'error', status: 200, method: 'GET', times: 10_000 });
    const err = (await h.client
      .getDeployment(dep.id, { deadline: h.clock.now() + 10_000 })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toMatch(
      /^GET \/v1\/deployments\/:id failed: 200 with a body that is not JSON \(no time left before the deadline to retry\)\. Body: <html><body>Error 200 for \*\*\*<\/body><\/html>$/,
    );
  });
});
