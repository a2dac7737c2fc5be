import { CancelledError } from './errors.js';

/** Time as the layers below main.ts see it: injected, so tests never wait for real. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with CancelledError as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `tick` every `ms` of this clock's time until the returned function is called. Absent, no
   * tick comes: a clock whose sleeps return at once has no time passing between them to tell.
   */
  every?(ms: number, tick: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new CancelledError());
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    // A tick never keeps the process alive.
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Where the layers below main.ts write their log; main.ts wires it to @actions/core. */
export interface Logger {
  info(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
  /** A foldable group in the runner's log, for a phase (a wave of a fleet). */
  startGroup?(name: string): void;
  endGroup?(): void;
}

export const silentLogger: Logger = { info() {}, warning() {}, debug() {} };

/** A logger that writes each distinct debug line once: for assumptions repeated on every response. */
export function debugOnce(log: Logger): Logger {
  const seen = new Set<string>();
  return {
    ...log,
    debug: (message) => {
      if (seen.has(message)) return;
      seen.add(message);
      log.debug(message);
    },
  };
}
