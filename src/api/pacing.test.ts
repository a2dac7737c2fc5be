// Pacing by the team's budget, against the simulator's rate limit in every reset form.
import { afterEach, describe, expect, it } from 'vitest';
import { RESET_FORMS } from '../../test/sim/rate-limit.ts';
import { type Harness, policy, setup, timeout } from '../../test/support/setup.ts';
import { deployClaw } from '../deploy/deploy.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

/** The most requests the simulator saw in any window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (const start of times) most = Math.max(most, times.filter((t) => t >= start && t < start + windowMs).length);
  return most;
}

describe('pacing by the rate-limit budget', () => {
  // Every reset form, on a server clock in step or an hour off; and the IETF fields instead of X-.
  const HEADER_READINGS = [
    ...RESET_FORMS.flatMap((resetForm) =>
      [0, 3_600_000].map((clockSkewMs) => ({
        what: `reset as ${resetForm}, clock off by ${clockSkewMs} ms`,
        rateLimit: { resetForm },
        clockSkewMs,
      })),
    ),
    ...(['ietf-structured', 'ietf-combined'] as const).map((fields) => ({
      what: `IETF RateLimit fields (${fields}) without the X- headers`,
      rateLimit: { fields },
      clockSkewMs: 0,
    })),
  ];

  it.each(HEADER_READINGS)(
    '$what: spreads polls, no 429, the deployment succeeds',
    async ({ rateLimit, clockSkewMs }) => {
      h = await setup({ rateLimit: { limit: 10, windowMs: 60_000, ...rateLimit }, clockSkewMs });
      h.sim.addClaw('c1', { plan: [['in_progress', 5 * 60_000], ['live']] });
      // Polling every 2 s would need 30 requests a minute; the team has 10.
      const result = await deployClaw(
        h.deps,
        { clawId: 'c1', strategy: '', payload: {}, wait: true },
        policy({ pollIntervalMs: 2000 }),
      );
      expect(result.outcome).toBe('succeeded');
      expect(h.sim.rateLimit.rejected).toBe(0);
      expect(
        busiestWindow(
          h.sim.requests.map((r) => r.at),
          60_000,
        ),
      ).toBeLessThanOrEqual(10);
      // ... and it did not over-wait: the final status was seen within a minute of happening.
      expect(result.durationMs).toBeLessThan(6 * 60_000);
      expect(h.log.text('info')).toMatch(/Next poll in .*requests left in the team's window/);
    },
  );

  it('waits out a 429 as Retry-After says, without counting it as a failure', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 5000], ['live']] });
    h.sim.fault({ kind: '429', method: 'GET', path: '/deployments/', times: 15, retryAfter: '7' });
    const result = await deployClaw(h.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, policy());
    expect(result.outcome).toBe('succeeded');
    const waits = h.log.lines.filter((l) => l.message.includes('rate limited (429); waiting'));
    expect(waits).toHaveLength(15); // 15 in a row: more than the failure bound, and still fine
    expect(waits[0].message).toMatch(/waiting 7\.\ds as Retry-After says/);
  });

  it('never waits past the deadline for a 429', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 5000], ['live']] });
    h.sim.fault({ kind: '429', method: 'GET', path: '/deployments/', times: 100, retryAfter: '100' });
    const result = await deployClaw(
      h.deps,
      { clawId: 'c1', strategy: '', payload: {}, wait: true },
      policy({ timeoutMs: timeout(h, 30_000) }),
    );
    expect(result.outcome).toBe('timed-out');
    expect(result.message).toContain('rate limited (429) until after the deadline');
    expect(h.clock.now() - h.deps.startedAt).toBeLessThanOrEqual(30_000);
  });

  describe('Retry-After wins, and no header ends a wait early', () => {
    /** A 429 saying: retry in 1 s, though the window is spent and resets in 60 s. */
    const spentFor60s = (h: Harness) => ({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil((h.clock.now() + 60_000) / 1000)),
    });

    it.each([
      ['the trigger', 'POST', '/deployments'],
      ['a poll', 'GET', '/deployments/'],
    ])('after a 429 on %s, the next attempt goes when Retry-After says', async (_, method, path) => {
      h = await setup();
      h.sim.addClaw('c1', { plan: [['pending', 5000], ['live']] });
      h.sim.fault({ kind: '429', method, path, times: 1, retryAfter: '1', headers: spentFor60s(h) });
      const result = await deployClaw(
        h.deps,
        { clawId: 'c1', strategy: '', payload: {}, wait: true },
        policy({ timeoutMs: timeout(h, 40_000) }),
      );
      expect(result.outcome).toBe('succeeded');
      expect(h.sim.triggered('c1')).toHaveLength(1);
      const [limited, next] = h.sim.requests.filter((r) => r.method === method).slice(0, 2);
      expect(limited.status).toBe(429);
      expect(next.at - limited.at).toBeLessThan(2000);
    });

    it('when the budget is spent past the deadline, waits to the deadline and reports timed-out then', async () => {
      h = await setup();
      h.sim.addClaw('c1', { plan: [['pending', 5000], ['live']] });
      h.sim.fault({ kind: '429', method: 'GET', path: '/deployments/', times: 100, headers: spentFor60s(h) });
      const result = await deployClaw(
        h.deps,
        { clawId: 'c1', strategy: '', payload: {}, wait: true },
        policy({ timeoutMs: timeout(h, 40_000) }),
      );
      expect(result.outcome).toBe('timed-out');
      expect(h.clock.now() - h.deps.startedAt).toBe(40_000);
      expect(result.message).not.toContain('.;');
      expect(result.message).toMatch(/timed out: .*until after the deadline\); last status "pending"\.$/);
    });
  });
});

describe('a large plan never stalls', () => {
  it('a trigger answered 429 (Remaining 0, Retry-After 1) is retried after a second, then polled at the interval', async () => {
    h = await setup({ rateLimit: { limit: 10_000, windowMs: 60_000 } });
    h.sim.addClaw('c1', { plan: [['in_progress', 20_000], ['live']] });
    h.sim.fault({
      kind: '429',
      method: 'POST',
      path: '/deployments',
      retryAfter: '1',
      headers: { 'X-RateLimit-Limit': '10000', 'X-RateLimit-Remaining': '0' },
      times: 1,
    });
    timeout(h, 30_000);
    const result = await deployClaw(
      h.deps,
      { clawId: 'c1', strategy: '', payload: {}, wait: true },
      policy({ pollIntervalMs: 5000, timeoutMs: 30_000 }),
    );
    expect(result.outcome).toBe('succeeded');
    const [refused, trigger, firstPoll] = h.sim.requests;
    expect(refused.status).toBe(429);
    expect(trigger.at - refused.at).toBeGreaterThanOrEqual(1000);
    expect(trigger.at - refused.at).toBeLessThan(1200);
    expect(firstPoll.at - trigger.at).toBe(5000);
    expect(h.log.text()).not.toContain('shared by about');
  });

  it('a first answer of 9,000 of 10,000 left polls at the interval, not every 14.7 s', async () => {
    h = await setup({ rateLimit: { limit: 10_000, windowMs: 60_000 } });
    h.sim.rateLimit.spend(h.clock.now(), 1000);
    h.sim.addClaw('c1', { plan: [['in_progress', 20_000], ['live']] });
    await deployClaw(h.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, policy({ pollIntervalMs: 5000 }));
    const gaps = h.sim.requests.slice(1).map((r, i) => r.at - h!.sim.requests[i].at);
    expect(gaps.every((gap) => gap === 5000)).toBe(true);
  });
});

describe('conversations keep the reserve', () => {
  it('a chat message waits for the reset once only the reserve is left; a poll may still go', async () => {
    const { RateLimitPacer } = await import('./rate-limit.js');
    let now = 0;
    const pacer = new RateLimitPacer(
      () => now,
      () => 0.5,
    );
    pacer.observe({ limit: 20, remaining: 3, resetInMs: 2000 });
    // The reserve of a 20-request window is 2: one more conversation request may go...
    expect(pacer.claim(false, true)).toBe(0);
    pacer.release();
    pacer.observe({ limit: 20, remaining: 2, resetInMs: 1900 });
    now = 100;
    // ...then conversations wait for the reset, while a deployment poll may still spend it.
    expect(pacer.claim(false, true)).toBe(1800);
    expect(pacer.claim(false, false)).toBe(0);
  });
});
