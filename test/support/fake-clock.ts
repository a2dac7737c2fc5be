// A clock whose sleeps return at once and move time forward: the action and the simulator share
// it, so a 30-minute deployment is tested in milliseconds and no test depends on machine speed.
import type { Clock } from '../../src/shared/clock.js';
import { CancelledError } from '../../src/shared/errors.js';

export class FakeClock implements Clock {
  t: number;
  readonly sleeps: number[] = [];

  constructor(start = Date.parse('2026-11-22T12:00:00Z')) {
    this.t = start;
  }

  now = (): number => this.t;

  /** Callbacks to run once the clock reaches their time (a cancel at a given moment, say). */
  private readonly timers: { at: number; run: () => void }[] = [];

  /** Runs `run` as soon as a sleep carries the clock to `at` or past it. */
  at(at: number, run: () => void): void {
    this.timers.push({ at, run });
  }

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw new CancelledError();
    this.sleeps.push(ms);
    const due = this.timers.filter((timer) => timer.at <= this.t + Math.max(0, ms)).sort((a, b) => a.at - b.at)[0];
    if (due) {
      // Stop at the timer's moment, as a real sleep would be cut short by the signal it fires.
      this.t = Math.max(this.t, due.at);
      this.timers.splice(this.timers.indexOf(due), 1);
      due.run();
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw new CancelledError();
      return;
    }
    this.t += Math.max(0, ms);
    // Let sockets and other tasks run, as a real sleep would.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw new CancelledError();
  };

  advance(ms: number): void {
    this.t += ms;
  }
}
