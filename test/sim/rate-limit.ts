// The team's rate limit: a fixed window, the three headers on every response, and every form of
// the reset value the spec leaves open.

export type ResetForm = 'epoch-s' | 'epoch-ms' | 'delta-s' | 'delta-ms' | 'http-date' | 'iso';
export const RESET_FORMS: ResetForm[] = ['epoch-s', 'epoch-ms', 'delta-s', 'delta-ms', 'http-date', 'iso'];

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  resetForm: ResetForm;
  /** Also send `Retry-After` (seconds) on 429. */
  retryAfter: boolean;
  /**
   * Which fields carry the limit: the spec's `X-RateLimit-*`, or only the IETF draft's, in its
   * structured form (`RateLimit` + `RateLimit-Policy`) or its older combined one.
   */
  fields?: 'x' | 'ietf-structured' | 'ietf-combined';
}

export class TeamRateLimit {
  options: RateLimitOptions;
  private windowStart = 0;
  private count = 0;
  /** Requests answered 429 because the window was spent. */
  rejected = 0;

  constructor(options: RateLimitOptions) {
    this.options = options;
  }

  private roll(now: number): void {
    if (now >= this.windowStart + this.options.windowMs) {
      // Windows are aligned to their length, as most fixed-window limiters do.
      this.windowStart = now - (now % this.options.windowMs);
      this.count = 0;
    }
  }

  /** Counts a request; false when the window is spent. */
  take(now: number): boolean {
    this.roll(now);
    if (this.count >= this.options.limit) {
      this.rejected += 1;
      return false;
    }
    this.count += 1;
    return true;
  }

  /** Requests other clients spent in the current window (a run that starts in a busy window). */
  spend(now: number, count: number): void {
    this.roll(now);
    this.count += count;
  }

  /** Others spend a whole window that begins now: the next request waits the window's full length. */
  spendWindow(now: number): void {
    this.windowStart = now;
    this.count = this.options.limit;
  }

  /** The three headers (and Retry-After when asked), as seen at `now` on a server clock `serverNow`. */
  headers(now: number, serverNow: number, limited: boolean): Record<string, string> {
    this.roll(now);
    const resetIn = this.windowStart + this.options.windowMs - now;
    const resetAt = serverNow + resetIn;
    const reset = {
      'epoch-s': String(Math.ceil(resetAt / 1000)),
      'epoch-ms': String(Math.round(resetAt)),
      'delta-s': String(Math.ceil(resetIn / 1000)),
      'delta-ms': String(Math.round(resetIn)),
      'http-date': new Date(Math.ceil(resetAt / 1000) * 1000).toUTCString(),
      iso: new Date(resetAt).toISOString(),
    }[this.options.resetForm];
    const remaining = Math.max(0, this.options.limit - this.count);
    const resetS = Math.max(0, Math.ceil(resetIn / 1000));
    const windowS = Math.ceil(this.options.windowMs / 1000);
    const headers: Record<string, string> =
      this.options.fields === 'ietf-structured'
        ? {
            RateLimit: `"default";r=${remaining};t=${resetS}`,
            'RateLimit-Policy': `"default";q=${this.options.limit};w=${windowS}`,
          }
        : this.options.fields === 'ietf-combined'
          ? {
              RateLimit: `limit=${this.options.limit}, remaining=${remaining}, reset=${resetS}`,
              'RateLimit-Policy': `${this.options.limit};w=${windowS}`,
            }
          : {
              'X-RateLimit-Limit': String(this.options.limit),
              'X-RateLimit-Remaining': String(remaining),
              'X-RateLimit-Reset': reset,
            };
    if (limited && this.options.retryAfter) headers['Retry-After'] = String(Math.max(1, Math.ceil(resetIn / 1000)));
    return headers;
  }
}
