// Reading the three rate-limit headers (whose units the spec leaves open) and pacing requests so
// one run never spends the team's shared budget.
import type { Logger } from '../shared/clock.js';
import { type Headers, header } from './http.js';

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
 * milliseconds (the limits are per minute). A small delay that is no smaller a second later, and
 * fell no faster than the clock, is seconds: a millisecond delay of at most 120 is the last 120 ms
 * of a minute's window, and cannot come back a second later. (A window of a second or so, outside
 * the spec's per-minute limits, could fool this; the reset's epoch or date forms never are.)
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
  // Seconds fall no faster than the clock: 30 then 29 a second later; never 100 then 5.
  const elapsedS = last ? (localNow - last.localAt) / 1000 : 0;
  if (!memory.unit && last && elapsedS >= 0.9 && n <= last.value && n >= last.value - elapsedS - 1 && n > 0) {
    memory.unit = 's';
  }
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

/**
 * The IETF fields (draft-ietf-httpapi-ratelimit-headers), in both the structured form
 * (`RateLimit: "default";r=50;t=30`, `RateLimit-Policy: "default";q=60;w=60`) and the older ones
 * (`RateLimit: limit=60, remaining=50, reset=30`, or `RateLimit-Limit` / `-Remaining` / `-Reset`).
 * Their reset is always a delay in seconds.
 */
export function readIetfRateLimit(headers: Headers): { limit?: number; remaining?: number; resetInS?: number } {
  const param = (text: string | undefined, names: string[]): number | undefined => {
    if (!text) return undefined;
    for (const name of names) {
      const match = new RegExp(`(?:^|[;,\\s])${name}\\s*=\\s*"?(\\d+(?:\\.\\d+)?)`, 'i').exec(text);
      if (match) return Number(match[1]);
    }
    return undefined;
  };
  const plain = (name: string): number | undefined => {
    const text = header(headers, name);
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const combined = header(headers, 'ratelimit');
  const policy = header(headers, 'ratelimit-policy');
  return {
    limit: param(policy, ['q']) ?? param(combined, ['limit']) ?? plain('ratelimit-limit') ?? leadingNumber(policy),
    remaining: param(combined, ['r', 'remaining']) ?? plain('ratelimit-remaining'),
    resetInS: param(combined, ['t', 'reset']) ?? plain('ratelimit-reset'),
  };
}

/** `1s`, `6m0s`, `59.5s`, `20ms`, `1h2m3s` (OpenAI's reset form), clamped; undefined when not one. */
export function readGoDuration(text: string): number | undefined {
  const match = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/.exec(text.trim());
  if (!match || text.trim() === '') return undefined;
  const [, h = '0', m = '0', s = '0', ms = '0'] = match;
  const total = Number(h) * 3_600_000 + Number(m) * 60_000 + Number(s) * 1000 + Number(ms);
  return Math.min(Math.round(total), MAX_HEADER_WAIT_MS);
}

/** The older policy form's first item: `60;w=60` → 60. */
function leadingNumber(text: string | undefined): number | undefined {
  const match = text ? /^\s*(\d+)\s*(?:[;,]|$)/.exec(text) : null;
  return match ? Number(match[1]) : undefined;
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
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const reset = header(headers, 'x-ratelimit-reset');
  const retryAfter = header(headers, 'retry-after');
  // The spec's X- headers first; the IETF fields for services that send those instead.
  const ietf = readIetfRateLimit(headers);
  const ietfReset = ietf.resetInS === undefined ? undefined : Math.min(ietf.resetInS * 1000, MAX_HEADER_WAIT_MS);
  // OpenAI-compatible servers (a judge) count requests apart from tokens, with a Go-style reset.
  const goReset = header(headers, 'x-ratelimit-reset-requests');
  const resetInMs =
    reset !== undefined
      ? readReset(reset, serverNow, log, memory, localNow)
      : (ietfReset ?? (goReset === undefined ? undefined : readGoDuration(goReset)));
  return {
    limit: int('x-ratelimit-limit') ?? ietf.limit ?? int('x-ratelimit-limit-requests'),
    remaining: int('x-ratelimit-remaining') ?? ietf.remaining ?? int('x-ratelimit-remaining-requests'),
    resetInMs,
    retryAfterMs: retryAfter === undefined ? undefined : readRetryAfter(retryAfter, serverNow, log),
  };
}

/** Responses of its own after which a window's estimate of the sharers stands on its own. */
const CARRY_WEIGHT = 3;

/**
 * Shared view of the team's budget, fed by every response. Polls are spread so what is left lasts
 * until the reset, minus a reserve left for the team's other clients; jitter keeps concurrent
 * runs from moving in step.
 *
 * Other clients spend the same budget, and each run sees only its own requests. When Remaining
 * falls faster than this run spends it, others are at work: the run paces to its share (what it
 * spent over what the window lost), so twenty runs together keep to the team's rate rather than
 * each spending it twenty times over.
 */
export class RateLimitPacer {
  private limit?: number;
  private remaining?: number;
  private resetAt?: number;
  /**
   * This window as this run saw it: Remaining at its first counted response, its responses since,
   * and Remaining at the last of them (a 429 is not counted: see `observe`).
   */
  private window?: { firstRemaining: number; mine: number; lastRemaining: number; resetAt: number };
  /**
   * How many share the budget, as the last window ended: the best guess for the next one until
   * it has shown its own pace, so the first poll of a window does not go out as if alone.
   */
  private carried?: number;
  /** Requests sent whose answers have not been observed yet. */
  private inFlight = 0;

  constructor(
    private readonly now: () => number,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Learns from one response's headers. A 429's Remaining (0) says the window is spent until its
   * reset; it says nothing of how many share it, so it never feeds the estimate of the sharers.
   * Nor does what a window had spent before this run first looked: spent requests are not clients.
   */
  observe(reading: RateLimitReading, rateLimited = false): void {
    const now = this.now();
    if (reading.limit !== undefined) this.limit = reading.limit;
    if (reading.resetInMs !== undefined) this.resetAt = now + reading.resetInMs;
    if (reading.remaining === undefined) return;
    this.remaining = rateLimited ? 0 : reading.remaining;
    if (rateLimited) return;
    const w = this.window;
    // A new window: the old one's reset has passed, or Remaining rose by more than reordered
    // responses of our own could explain.
    const fresh = !w || now >= w.resetAt || reading.remaining > w.lastRemaining + 4;
    if (fresh) {
      if (w && w.mine > 0) this.carried = this.sharers;
      this.window = {
        firstRemaining: reading.remaining,
        mine: 0,
        lastRemaining: reading.remaining,
        resetAt: this.resetAt ?? Infinity,
      };
    } else {
      w.mine += 1;
      w.lastRemaining = reading.remaining;
    }
  }

  /**
   * What the headers last said of the team's window (read only): for a caller that plans a burst
   * (a task's polls) and would rather wait for the reset than have it cut in two, and for the cost
   * said before a comparison. Absent figures were never sent, or belong to a window now past.
   */
  reading(): { limit?: number; remaining?: number; resetInMs?: number } {
    const budget = this.budget();
    return {
      limit: this.limit,
      ...(budget ? { remaining: budget.remaining - this.inFlight, resetInMs: budget.resetInMs } : {}),
    };
  }

  /** Requests kept back for the team's other clients: a tenth of the limit, at least one. */
  get reserve(): number {
    return Math.max(1, Math.ceil((this.limit ?? 10) * 0.1));
  }

  /**
   * How many runs like this one share the window, judged by how fast Remaining falls against this
   * run's own spending; early in a window, blended with the estimate carried from the last one.
   */
  get sharers(): number {
    const w = this.window;
    if (!w || w.mine === 0) return this.carried ?? 1;
    const seen = Math.max(1, (w.firstRemaining - w.lastRemaining) / w.mine);
    if (this.carried === undefined) return seen;
    const weight = Math.min(w.mine, CARRY_WEIGHT);
    return (this.carried * (CARRY_WEIGHT - weight) + seen * weight) / CARRY_WEIGHT;
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
    // Runs that wait for the reset wake just after it, spread over up to a second so they do not stampede.
    const afterReset = budget.resetInMs + this.random() * Math.min(budget.resetInMs * 0.1, 1000);
    if (spendable <= 0) {
      return {
        delayMs: Math.max(baseMs, afterReset),
        mode: 'held',
        detail: `${left}; keeping them for the team's other clients until it resets`,
      };
    }
    const sharers = this.sharers;
    const spread = (budget.resetInMs * sharers) / spendable;
    if (spread <= baseMs) return { delayMs: jitter(baseMs), mode: 'steady', detail: '' };
    const shared = sharers >= 1.5 ? `, shared by about ${Math.round(sharers)} clients` : '';
    // Never past the reset: the next window brings a fresh budget and a fresh count.
    const delayMs = Math.max(baseMs, Math.min(jitter(spread), afterReset));
    return { delayMs, mode: 'stretched', detail: `${left}${shared}; spreading them until it resets` };
  }

  /**
   * The wait before any request: when the window is spent outright, counting requests in flight;
   * with `keepReserve` (conversations, which come in bursts), as soon as only the reserve is left.
   */
  requestDelay(keepReserve = false): number {
    const budget = this.budget();
    const floor = keepReserve ? this.reserve : 0;
    return budget && budget.remaining - this.inFlight <= floor ? budget.resetInMs : 0;
  }

  /**
   * Claims a request's place in the window when there is one (returns 0), or says how long to
   * wait. Claiming and checking are one step, so concurrent requests never count the same slot.
   * `force` claims it regardless (Retry-After has said when to go).
   */
  claim(force = false, keepReserve = false): number {
    const wait = force ? 0 : this.requestDelay(keepReserve);
    if (wait <= 0) this.inFlight += 1;
    return wait;
  }

  /** A claimed request has been answered (its response, if any, already observed) or failed. */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }
}
