// The one paced poll loop: the deployment wait, the probe's task poll and a fleet's rounds and
// bake all wait between polls here. The interval is the user's, stretched by the team's budget;
// no wait runs past the deadline, and a change of pace is logged once, not every poll.
import type { PaceMode } from './rate-limit.js';
import type { RunContext } from './context.js';
import { formatDuration } from '../shared/format.js';

/** A poll delayed by this factor of its interval or more is a change of pace the log says. */
const NOTICEABLE = 1.5;

export interface Poller {
  /** Sleeps until the next poll is due; false once the deadline has come. */
  next(): Promise<boolean>;
}

/**
 * `interval` is the user's `poll-interval`, or a schedule that says the wait before each poll (one
 * learned from history grows while the answer is far off); the pacer may stretch either.
 */
export function pollEvery(
  ctx: Pick<RunContext, 'clock' | 'log' | 'pacer' | 'signal'>,
  interval: number | (() => number),
  deadline: number,
): Poller {
  const { clock, log, pacer, signal } = ctx;
  let pace: PaceMode = 'steady';
  return {
    async next(): Promise<boolean> {
      const intervalMs = typeof interval === 'number' ? interval : interval();
      const due = pacer?.pollDelay(intervalMs) ?? { delayMs: intervalMs, mode: 'steady' as const, detail: '' };
      // A stretch of less than half the interval is not a change of pace worth a line (59 of 60
      // requests left spread a 1 s poll to 1.1 s): it is said once the pace really changes.
      const mode = due.mode === 'stretched' && due.delayMs < intervalMs * NOTICEABLE ? pace : due.mode;
      if (mode !== pace) {
        log.info(
          due.mode === 'steady'
            ? `Polling at the usual pace again (next in ${formatDuration(due.delayMs)}).`
            : `Next poll in ${formatDuration(due.delayMs)}: ${due.detail}.`,
        );
        pace = mode;
      }
      const left = deadline - clock.now();
      if (left <= 0) return false;
      await clock.sleep(Math.min(due.delayMs, left), signal);
      return clock.now() < deadline;
    },
  };
}
