// The retry policy: what an attempt means (done, retry, rate limited, or failed for good), how
// long to back off, and when to give up. Data and pure functions; the transport acts on them.
import type { Logger } from '../shared/clock.js';
import { ApiError } from './errors.js';
import { type Attempt, type Headers, header } from './http.js';
import { readJson } from './json.js';
import { readRetryAfter, serverTime } from './rate-limit.js';

/** Statuses worth another try: the service or a proxy in front of it had a bad moment. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);
/** 503 says the service did not take the request on, so a write was not applied. */
const NOT_APPLIED_STATUSES: ReadonlySet<number> = new Set([503]);

/** Give up on transient failures only after this many in a row... */
export const GIVE_UP_AFTER_FAILURES = 10;
/** ...that also span at least this long, so a blip never fails a long deployment. */
export const GIVE_UP_AFTER_MS = 120_000;
export const EXCERPT_CHARS = 500;

export type Verdict =
  | { kind: 'done'; status: number; headers: Headers; body: unknown; text: string }
  | { kind: 'rate-limited'; headers: Headers; body: unknown }
  | {
      kind: 'retry';
      reason: string;
      /** What arrived, when it was not what was expected (already redacted). */
      excerpt?: string;
      errorKind: 'server' | 'network' | 'unreadable';
      /** Whether a write may have taken effect. */
      mayHaveApplied: boolean;
      retryAfterMs?: number;
    }
  | { kind: 'fail'; error: ApiError };

/** The first characters of a body, on one line, for messages. */
export function excerpt(text: string): string {
  return text.slice(0, EXCERPT_CHARS).replace(/\s+/g, ' ').trim();
}

/**
 * Sorts one attempt. `label` names the request in errors: `GET /v1/deployments/:id`; `peer` who
 * answered (`the service`, `the judge`).
 */
export function classify(
  attempt: Attempt,
  isWrite: boolean,
  label: string,
  localNow: number,
  log: Logger,
  peer = 'the service',
): Verdict {
  if (attempt.kind === 'no-response') {
    return { kind: 'retry', reason: attempt.reason, errorKind: 'network', mayHaveApplied: attempt.sent };
  }
  if (attempt.kind === 'too-large') {
    return {
      kind: 'fail',
      error: new ApiError(
        `${label} answered ${attempt.status} with a body over ${Math.round(attempt.maxBytes / 1048576)} MiB; it was abandoned unread.`,
        'unreadable',
        attempt.status,
      ),
    };
  }
  const { status, headers, text } = attempt;
  if (status === 429) {
    const json = attempt.complete ? readJson(text) : undefined;
    return { kind: 'rate-limited', headers, body: json?.ok ? json.value : undefined };
  }
  if (!attempt.complete) {
    return { kind: 'retry', reason: `response ${status} was cut off`, errorKind: 'unreadable', mayHaveApplied: true };
  }
  if (RETRYABLE_STATUSES.has(status)) {
    const retryAfter = header(headers, 'retry-after');
    return {
      kind: 'retry',
      reason: `${status} from ${peer}`,
      errorKind: 'server',
      mayHaveApplied: !NOT_APPLIED_STATUSES.has(status),
      retryAfterMs: retryAfter ? readRetryAfter(retryAfter, serverTime(headers, localNow), log) : undefined,
    };
  }
  if (text.trim() === '') return { kind: 'done', status, headers, body: undefined, text };
  const json = readJson(text);
  if (json.ok) return { kind: 'done', status, headers, body: json.value, text };
  if (status >= 200 && status < 300) {
    return {
      kind: 'retry',
      reason: `${status} with ${json.reason}`,
      excerpt: excerpt(text),
      errorKind: 'unreadable',
      mayHaveApplied: isWrite,
    };
  }
  // An error status with a body we cannot read: the status says enough.
  return { kind: 'done', status, headers, body: undefined, text };
}

/**
 * Full-jitter exponential backoff: a random wait in [0, min(cap, base·2^(failure-1))], so clients
 * that failed together do not retry together.
 */
export function fullJitterBackoff(failure: number, baseMs: number, capMs: number, random: () => number): number {
  return random() * Math.min(capMs, baseMs * 2 ** Math.max(0, failure - 1));
}

/** TLS failures: the address answered, but not as a peer the key may be sent to. */
const TLS_CODES: ReadonlySet<string> = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

/**
 * Why nothing answered at an address, when the network error says the address itself is at fault
 * (nothing listens, the name does not resolve, TLS fails), rather than a moment's trouble.
 */
export function unreachableCause(code: string | undefined): string | undefined {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the name does not resolve: ${code}`;
  if (code && TLS_CODES.has(code)) return `TLS failed: ${code}`;
  return undefined;
}

/** Tries at an address that has never answered and looks unreachable, before the run is told. */
export const UNREACHABLE_TRIES = 3;
/** The wait between them: short, so a wrong address is said in about a second. */
export const UNREACHABLE_RETRY_MS = 300;

/** Transient failures in a row; any success starts a new run. */
export class FailureRun {
  count = 0;
  private firstAt = 0;

  record(now: number): void {
    if (this.count === 0) this.firstAt = now;
    this.count += 1;
  }

  spanMs(now: number): number {
    return this.count === 0 ? 0 : now - this.firstAt;
  }

  /** The give-up rule: enough failures, over enough time, that this is no blip. */
  exhausted(now: number): boolean {
    return this.count >= GIVE_UP_AFTER_FAILURES && this.spanMs(now) >= GIVE_UP_AFTER_MS;
  }
}
