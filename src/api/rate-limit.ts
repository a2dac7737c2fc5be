// Reading the three rate-limit headers (whose units the spec leaves open) and pacing requests so
// one run never spends the team's shared budget.
import type { Logger } from '../clock.js';

export type Headers = Record<string, string | string[] | undefined>;

/** How polls are paced: at the user's interval, stretched to spread the budget, or held until the reset. */
export type PaceMode = 'steady' | 'stretched' | 'held';

/** The longest wait any header can ask for; longer values are read as mistakes. Per-minute limits. */
export const MAX_HEADER_WAIT_MS = 120_000;

export interface RateLimitReading {
  limit?: number;
  remaining?: number;
  /** Milliseconds from the response until the window resets. */
  resetInMs?: number;
  /** From `Retry-After`, which wins over the reset when both are present. */
  retryAfterMs?: number;
}

export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function clampWait(ms: number, what: string, log: Logger): number {
  if (!Number.isFinite(ms) || ms < 0) {
    log.debug(`rate limit: ${what} is in the past; read as 0`);
    return 0;
  }
  if (ms > MAX_HEADER_WAIT_MS) {
    log.debug(`rate limit: ${what} asks for ${Math.round(ms)}ms; clamped to ${MAX_HEADER_WAIT_MS}ms`);
    return MAX_HEADER_WAIT_MS;
  }
  return ms;
}

/**
 * What earlier responses taught about a delay-form reset's unit. A delay above 120 can only be
 * milliseconds (the limits are per minute). A small delay that is no smaller a second later is
 * seconds: a millisecond delay would have run out and begun a new window by then.
 */
export interface ResetMemory {
  unit?: 's' | 'ms';
  last?: { value: number; localAt: number };
}

/** The longest wait an ambiguous small delay buys before the next response tells its unit. */
export const AMBIGUOUS_RESET_WAIT_MS = 1000;

function learnDelayUnit(memory: ResetMemory, n: number, localNow: number): void {
  if (n > 120) memory.unit = 'ms';
  const last = memory.last;
  if (!memory.unit && last && localNow - last.localAt >= 900 && n <= last.value && n > 0) memory.unit = 's';
  memory.last = { value: n, localAt: localNow };
}

/**
 * Reads `X-RateLimit-Reset` into a delay. Numbers: above 1e12 epoch milliseconds, above 1e9 epoch
 * seconds, otherwise a delay whose unit `memory` learns (see ResetMemory); until it is known, a
 * small value waits at most AMBIGUOUS_RESET_WAIT_MS. Text: an HTTP or ISO date. `serverNow` is
 * the server's `Date` when it sent one, so epoch forms need no agreement of clocks.
 */
export function readReset(
  value: string,
  serverNow: number,
  log: Logger,
  memory: ResetMemory = {},
  localNow = serverNow,
): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    let ms: number;
    let form: string;
    if (n >= 1e12) [ms, form] = [n - serverNow, 'epoch milliseconds'];
    else if (n >= 1e9) [ms, form] = [n * 1000 - serverNow, 'epoch seconds'];
    else {
      learnDelayUnit(memory, n, localNow);
      if (memory.unit === 'ms') [ms, form] = [n, 'milliseconds from now'];
      else if (memory.unit === 's') [ms, form] = [n * 1000, 'seconds from now'];
      else
        [ms, form] = [Math.min(n * 1000, AMBIGUOUS_RESET_WAIT_MS), 'seconds or milliseconds from now (not yet known)'];
    }
    log.debug(`rate limit: X-RateLimit-Reset read as ${form}`);
    return clampWait(ms, `reset ${value}`, log);
  }
  const date = Date.parse(value);
  if (Number.isNaN(date)) {
    log.debug(`rate limit: reset ${JSON.stringify(value)} not understood; ignored`);
    return undefined;
  }
  return clampWait(date - serverNow, `reset ${value}`, log);
}

/** `Retry-After`: seconds, or an HTTP date. */
export function readRetryAfter(value: string, serverNow: number, log: Logger): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) return clampWait(Number(value) * 1000, `Retry-After ${value}`, log);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : clampWait(date - serverNow, `Retry-After ${value}`, log);
}

/** The server's clock from its `Date` header, or the local one. */
export function serverTime(headers: Headers, localNow: number): number {
  const date = header(headers, 'date');
  const parsed = date ? Date.parse(date) : NaN;
  return Number.isNaN(parsed) ? localNow : parsed;
}

export function readRateLimit(
  headers: Headers,
  localNow: number,
  log: Logger,
  memory: ResetMemory = {},
): RateLimitReading {
  const serverNow = serverTime(headers, localNow);
  const int = (name: string): number | undefined => {
    const text = header(headers, name);
    const n = text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
    return n;
  };
  const reset = header(headers, 'x-ratelimit-reset');
  const retryAfter = header(headers, 'retry-after');
  return {
    limit: int('x-ratelimit-limit'),
    remaining: int('x-ratelimit-remaining'),
    resetInMs: reset === undefined ? undefined : readReset(reset, serverNow, log, memory, localNow),
    retryAfterMs: retryAfter === undefined ? undefined : readRetryAfter(retryAfter, serverNow, log),
  };
}

/**
 * Shared view of the team's budget, fed by every response. Polls are spread so what is left lasts
 * until the reset, minus a reserve left for the team's other clients; jitter keeps concurrent
 * runs from moving in step.
 */
export class RateLimitPacer {
  private limit?: number;
  private remaining?: number;
  private resetAt?: number;

  constructor(
    private readonly now: () => number,
    private readonly random: () => number = Math.random,
  ) {}

  observe(reading: RateLimitReading): void {
    if (reading.limit !== undefined) this.limit = reading.limit;
    if (reading.remaining !== undefined) this.remaining = reading.remaining;
    if (reading.resetInMs !== undefined) this.resetAt = this.now() + reading.resetInMs;
  }

  /** Requests kept back for the team's other clients: a tenth of the limit, at least one. */
  get reserve(): number {
    return Math.max(1, Math.ceil((this.limit ?? 10) * 0.1));
  }

  private budget(): { remaining: number; resetInMs: number } | undefined {
    if (this.remaining === undefined || this.resetAt === undefined) return undefined;
    const resetInMs = this.resetAt - this.now();
    if (resetInMs <= 0) return undefined; // a new window: the old reading says nothing
    return { remaining: this.remaining, resetInMs };
  }

  /**
   * The wait before the next poll: the base interval, stretched when the budget runs low.
   * `mode` says why, so callers can log a change of pace once rather than every poll.
   */
  pollDelay(baseMs: number): { delayMs: number; mode: PaceMode; detail: string } {
    const budget = this.budget();
    // Symmetric jitter (±5%, at most ±0.5 s): runs drift apart while the mean stays the interval asked for.
    const jitter = (ms: number): number => ms + (this.random() - 0.5) * Math.min(ms * 0.1, 1000);
    if (!budget) return { delayMs: jitter(baseMs), mode: 'steady', detail: '' };
    const spendable = budget.remaining - this.reserve;
    const left = `${budget.remaining} of ${this.limit ?? '?'} requests left in the team's window`;
    if (spendable <= 0) {
      // Held runs wake only after the reset, spread over up to a second so they do not stampede.
      const after = this.random() * Math.min(budget.resetInMs * 0.1, 1000);
      return {
        delayMs: Math.max(baseMs, budget.resetInMs) + after,
        mode: 'held',
        detail: `${left}; keeping them for the team's other clients until it resets`,
      };
    }
    const spread = budget.resetInMs / spendable;
    if (spread <= baseMs) return { delayMs: jitter(baseMs), mode: 'steady', detail: '' };
    return { delayMs: jitter(spread), mode: 'stretched', detail: `${left}; spreading them until it resets` };
  }

  /** The wait before any request: only when the window is spent outright. */
  requestDelay(): number {
    const budget = this.budget();
    return budget && budget.remaining <= 0 ? budget.resetInMs : 0;
  }
}
