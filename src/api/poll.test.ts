// The poll loop's one line about pace: said when the pace really changes, not for a stretch of a
// tenth of the interval (59 of 60 requests left), and once, not every poll.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import type { RateLimitPacer } from './rate-limit.js';
import { pollEvery } from './poll.js';

/** A pacer whose next poll delays are `delays`, each called stretched while over the interval. */
function pacerOf(delays: number[]): RateLimitPacer {
  return {
    pollDelay: (base: number) => {
      const delayMs = delays.shift() ?? base;
      return delayMs > base
        ? {
            delayMs,
            mode: 'stretched',
            detail: "59 of 60 requests left in the team's window; spreading them until it resets",
          }
        : { delayMs, mode: 'steady', detail: '' };
    },
  } as unknown as RateLimitPacer;
}

describe('pollEvery', () => {
  it('says nothing of a stretch of a tenth of the interval; says a real change of pace once', async () => {
    const clock = new FakeClock();
    const log = new RecordingLogger();
    const poller = pollEvery(
      { clock, log, pacer: pacerOf([1100, 1100, 1100, 3000, 3000, 1000]) },
      1000,
      clock.now() + 60_000,
    );
    for (let i = 0; i < 3; i++) await poller.next();
    expect(log.text('info')).toBe('');
    await poller.next();
    await poller.next();
    await poller.next();
    expect(log.text('info').split('\n')).toEqual([
      "Next poll in 3s: 59 of 60 requests left in the team's window; spreading them until it resets.",
      'Polling at the usual pace again (next in 1s).',
    ]);
  });
});
