// What every command runs with, built once a run in run.ts (from the layers wiring.ts builds): the
// client, the clock, the log, the cancel signal, when the run started and when it must end.
import type { AmsClient } from './client.js';
import type { RateLimitPacer } from './rate-limit.js';
import type { Clock, Logger } from '../shared/clock.js';
import type { Words } from '../shared/words.js';

export interface RunContext {
  client: AmsClient;
  clock: Clock;
  log: Logger;
  pacer?: RateLimitPacer;
  signal?: AbortSignal;
  /** Clock time the run started; timeline times and durations count from it. */
  startedAt: number;
  /** The whole run's deadline (`timeout` after the start): no request or wait goes past it. */
  deadline: number;
  /** How messages name inputs for this entry's user (absent: the action's words). */
  words?: Words;
}
