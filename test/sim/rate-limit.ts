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
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(this.options.limit),
      'X-RateLimit-Remaining': String(Math.max(0, this.options.limit - this.count)),
      'X-RateLimit-Reset': reset,
    };
    if (limited && this.options.retryAfter) headers['Retry-After'] = String(Math.max(1, Math.ceil(resetIn / 1000)));
    return headers;
  }
}
