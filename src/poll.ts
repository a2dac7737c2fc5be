// The one paced poll loop: the deployment wait, the probe's task poll and a fleet's rounds and
// bake all wait between polls here. The interval is the user's, stretched by the team's budget;
// no wait runs past the deadline, and a change of pace is logged once, not every poll.
import type { PaceMode } from './api/rate-limit.js';
import type { RunContext } from './context.js';
import { formatDuration } from './format.js';

export interface Poller {
  /** Sleeps until the next poll is due; false once the deadline has come. */
  next(): Promise<boolean>;
}

export function pollEvery(
  ctx: Pick<RunContext, 'clock' | 'log' | 'pacer' | 'signal'>,
  intervalMs: number,
  deadline: number,
): Poller {
  const { clock, log, pacer, signal } = ctx;
  let pace: PaceMode = 'steady';
  return {
    async next(): Promise<boolean> {
      const due = pacer?.pollDelay(intervalMs) ?? { delayMs: intervalMs, mode: 'steady' as const, detail: '' };
      if (due.mode !== pace) {
        log.info(
          due.mode === 'steady'
            ? `Polling every ${formatDuration(intervalMs)} again.`
            : `Next poll in ${formatDuration(due.delayMs)}: ${due.detail}.`,
        );
        pace = due.mode;
      }
      const left = deadline - clock.now();
      if (left <= 0) return false;
      await clock.sleep(Math.min(due.delayMs, left), signal);
      return clock.now() < deadline;
    },
  };
}
