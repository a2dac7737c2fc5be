import { describe, expect, it } from 'vitest';
import { silentLogger } from '../shared/clock.js';
import { MAX_HEADER_WAIT_MS, RateLimitPacer, readIetfRateLimit, readRateLimit, readReset } from './rate-limit.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('readReset', () => {
  it.each([
    ['epoch seconds', String(NOW / 1000 + 30), 30_000],
    ['epoch milliseconds', String(NOW + 30_000), 30_000],
    ['delay in seconds (once known)', '30', 30_000],
    ['delay in milliseconds', '30000', 30_000],
    ['HTTP date', new Date(NOW + 30_000).toUTCString(), 30_000],
    ['ISO date', new Date(NOW + 30_000).toISOString(), 30_000],
  ])('%s', (_, value, ms) => expect(readReset(value, NOW, silentLogger, { unit: 's' })).toBe(ms));

  it('learns the unit of a delay: above 120 means milliseconds', () => {
    const memory = {};
    expect(readReset('45000', NOW, silentLogger, memory, NOW)).toBe(45_000);
    expect(readReset('90', NOW, silentLogger, memory, NOW + 10)).toBe(90);
  });

  it('learns the unit of a delay: a small value no smaller a second later means seconds', () => {
    const memory = {};
    expect(readReset('30', NOW, silentLogger, memory, NOW)).toBe(1000); // not yet known: wait at most 1 s
    expect(readReset('29', NOW, silentLogger, memory, NOW + 1000)).toBe(29_000);
    expect(readReset('5', NOW, silentLogger, memory, NOW + 2000)).toBe(5000);
  });

  it('does not take a value that fell faster than the clock for seconds', () => {
    const memory = {};
    readReset('100', NOW, silentLogger, memory, NOW);
    readReset('5', NOW, silentLogger, memory, NOW + 1000);
    expect(memory).not.toHaveProperty('unit', 's');
  });

  it('never waits long on a small delay of unknown unit', () => {
    expect(readReset('17', NOW, silentLogger, {}, NOW)).toBe(1000);
    expect(readReset('0.2', NOW, silentLogger, {}, NOW)).toBe(200);
  });

  it('clamps the absurd: the past to 0, the far future to the maximum', () => {
    expect(readReset(String(NOW / 1000 - 100), NOW, silentLogger)).toBe(0);
    expect(readReset(String(NOW + 86_400_000), NOW, silentLogger)).toBe(MAX_HEADER_WAIT_MS);
    expect(readReset('soon', NOW, silentLogger)).toBeUndefined();
  });
});

describe('readRateLimit', () => {
  it('prefers the server Date for epoch resets, whatever the local clock says', () => {
    const localNow = NOW + 3_600_000; // local clock an hour fast
    const reading = readRateLimit(
      {
        date: new Date(NOW).toUTCString(),
        'x-ratelimit-reset': String(NOW / 1000 + 20),
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '7',
      },
      localNow,
      silentLogger,
    );
    expect(reading).toEqual({ limit: 60, remaining: 7, resetInMs: 20_000, retryAfterMs: undefined });
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(readRateLimit({ 'retry-after': '3' }, NOW, silentLogger).retryAfterMs).toBe(3000);
    const date = new Date(NOW + 5000).toUTCString();
    expect(
      readRateLimit({ date: new Date(NOW).toUTCString(), 'retry-after': date }, NOW, silentLogger).retryAfterMs,
    ).toBe(5000);
  });
});

describe('RateLimitPacer', () => {
  /** A run alone on the budget: two responses of its own, one request apart. */
  const pacerAt = (remaining: number, resetInMs: number, limit = 60) => {
    const pacer = new RateLimitPacer(
      () => NOW,
      () => 0.5,
    );
    pacer.observe({ limit, remaining: remaining + 1, resetInMs });
    pacer.observe({ limit, remaining, resetInMs });
    return pacer;
  };

  it('keeps the user interval while the budget is ample', () => {
    expect(pacerAt(60, 30_000).pollDelay(5000)).toMatchObject({ delayMs: 5000, mode: 'steady' });
  });

  it('spreads what is left, less the reserve, until the reset', () => {
    // 16 left, reserve 6 → 10 spendable over 50 s → one every 5 s... over 100 s, one every 10 s.
    expect(pacerAt(16, 100_000).pollDelay(5000)).toMatchObject({ delayMs: 10_000, mode: 'stretched' });
  });

  it('holds off until the reset once only the reserve is left', () => {
    expect(pacerAt(6, 40_000).pollDelay(5000)).toMatchObject({ delayMs: 40_500, mode: 'held' });
    const neverEarly = new RateLimitPacer(
      () => NOW,
      () => 0,
    );
    neverEarly.observe({ limit: 60, remaining: 3, resetInMs: 40_000 });
    expect(neverEarly.pollDelay(5000).delayMs).toBe(40_000);
    expect(pacerAt(0, 40_000).requestDelay()).toBe(40_000);
    expect(pacerAt(1, 40_000).requestDelay()).toBe(0);
  });

  it('adds symmetric jitter of at most ±5%, capped at ±0.5 s', () => {
    const high = new RateLimitPacer(
      () => NOW,
      () => 0.999,
    );
    const low = new RateLimitPacer(
      () => NOW,
      () => 0,
    );
    expect(high.pollDelay(5000).delayMs).toBeCloseTo(5250, -1);
    expect(low.pollDelay(5000).delayMs).toBe(4750);
    expect(high.pollDelay(60_000).delayMs).toBeLessThan(60_501);
    expect(
      new RateLimitPacer(
        () => NOW,
        () => 0.5,
      ).pollDelay(5000).delayMs,
    ).toBe(5000);
  });

  it('paces to its share when Remaining falls faster than it spends', () => {
    const pacer = new RateLimitPacer(
      () => NOW,
      () => 0.5,
    );
    pacer.observe({ limit: 60, remaining: 50, resetInMs: 30_000 });
    // Two responses of ours, while the window lost 8: four clients at this pace.
    pacer.observe({ limit: 60, remaining: 46, resetInMs: 30_000 });
    pacer.observe({ limit: 60, remaining: 42, resetInMs: 30_000 });
    expect(pacer.sharers).toBe(4);
    // 42 left, 6 kept: 36 over 30 s for four clients → one poll every 3.33 s each.
    expect(pacer.pollDelay(1000)).toMatchObject({ delayMs: (30_000 * 4) / 36, mode: 'stretched' });
    expect(pacer.pollDelay(1000).detail).toContain('shared by about 4 clients');
  });

  it('never stretches a poll past the reset', () => {
    const pacer = new RateLimitPacer(
      () => NOW,
      () => 0.5,
    );
    pacer.observe({ limit: 60, remaining: 59, resetInMs: 2000 });
    pacer.observe({ limit: 60, remaining: 19, resetInMs: 1900 }); // the window lost 40 to one of ours
    expect(pacer.sharers).toBe(40);
    expect(pacer.pollDelay(100).delayMs).toBe(1900 + 0.5 * 190);
  });

  it('carries its estimate of the sharers into a new window, until that window shows its own pace', () => {
    let now = NOW;
    const pacer = new RateLimitPacer(
      () => now,
      () => 0.5,
    );
    pacer.observe({ limit: 60, remaining: 59, resetInMs: 1000 });
    pacer.observe({ limit: 60, remaining: 39, resetInMs: 900 });
    expect(pacer.sharers).toBe(20);
    now += 1000;
    // The first response of the next window: still about twenty, not one alone.
    pacer.observe({ limit: 60, remaining: 59, resetInMs: 60_000 });
    expect(pacer.sharers).toBe(20);
    expect(pacer.pollDelay(100).mode).toBe('stretched');
    // Three of its own responses later the window's own pace stands: two clients now.
    for (const remaining of [57, 55, 53]) pacer.observe({ limit: 60, remaining, resetInMs: 59_000 });
    expect(pacer.sharers).toBe(2);
  });

  it('reads no clients from what a window spent before its first look', () => {
    // 9,000 of 10,000 left is not a thousand clients: the first poll goes at the interval asked for.
    const pacer = new RateLimitPacer(
      () => NOW,
      () => 0.5,
    );
    pacer.observe({ limit: 10_000, remaining: 9000, resetInMs: 60_000 });
    expect(pacer.sharers).toBe(1);
    expect(pacer.pollDelay(5000)).toMatchObject({ delayMs: 5000, mode: 'steady' });
  });

  it("reads a 429's Remaining of 0 as a spent window, never as how many share it", () => {
    let now = NOW;
    const pacer = new RateLimitPacer(
      () => now,
      () => 0.5,
    );
    pacer.observe({ limit: 10_000, remaining: 0, resetInMs: 60_000, retryAfterMs: 1000 }, true);
    // Spent until the reset, for every request that would go now...
    expect(pacer.requestDelay()).toBe(60_000);
    now += 1000;
    // ...but the retry Retry-After allowed is answered with plenty left: poll at the interval.
    pacer.observe({ limit: 10_000, remaining: 9998, resetInMs: 59_000 });
    expect(pacer.sharers).toBe(1);
    expect(pacer.pollDelay(5000)).toMatchObject({ delayMs: 5000, mode: 'steady' });
  });

  it('learns the sharers from its second response on, from the pace Remaining falls at', () => {
    const pacer = new RateLimitPacer(
      () => NOW,
      () => 0.5,
    );
    pacer.observe({ limit: 60, remaining: 40, resetInMs: 3000 });
    expect(pacer.sharers).toBe(1);
    pacer.observe({ limit: 60, remaining: 20, resetInMs: 2900 });
    expect(pacer.sharers).toBe(20);
    expect(pacer.pollDelay(100).mode).toBe('stretched');
  });

  it('forgets a window once its reset has passed', () => {
    let now = NOW;
    const pacer = new RateLimitPacer(
      () => now,
      () => 0,
    );
    pacer.observe({ limit: 60, remaining: 0, resetInMs: 1000 });
    now += 1001;
    expect(pacer.requestDelay()).toBe(0);
    expect(pacer.pollDelay(5000).mode).toBe('steady');
  });
});

describe('readIetfRateLimit', () => {
  it.each([
    [
      { ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=60;w=60' },
      { limit: 60, remaining: 50, resetInS: 30 },
    ],
    [
      { ratelimit: 'limit=60, remaining=7, reset=12', 'ratelimit-policy': '60;w=60' },
      { limit: 60, remaining: 7, resetInS: 12 },
    ],
    [
      { 'ratelimit-limit': '100', 'ratelimit-remaining': '3', 'ratelimit-reset': '9' },
      { limit: 100, remaining: 3, resetInS: 9 },
    ],
    [{}, { limit: undefined, remaining: undefined, resetInS: undefined }],
  ])('%j', (headers, reading) => expect(readIetfRateLimit(headers)).toEqual(reading));

  it('leaves the X- headers first when both are sent', () => {
    const reading = readRateLimit(
      { 'x-ratelimit-remaining': '5', ratelimit: '"d";r=50;t=30', 'x-ratelimit-limit': '60' },
      NOW,
      silentLogger,
    );
    expect(reading).toMatchObject({ limit: 60, remaining: 5, resetInMs: 30_000 });
  });
});
