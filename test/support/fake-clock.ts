// A clock whose sleeps return at once and move time forward: the action and the simulator share
// it, so a 30-minute deployment is tested in milliseconds and no test depends on machine speed.
import type { Clock } from '../../src/clock.js';
import { CancelledError } from '../../src/errors.js';

export class FakeClock implements Clock {
  t: number;
  readonly sleeps: number[] = [];

  constructor(start = Date.parse('2026-11-22T12:00:00Z')) {
    this.t = start;
  }

  now = (): number => this.t;

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw new CancelledError();
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
    // Let sockets and other tasks run, as a real sleep would.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw new CancelledError();
  };

  advance(ms: number): void {
    this.t += ms;
  }
}
