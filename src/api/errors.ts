// The service's failures as one typed error whose message is already advice for the user.
import { ACTION_WORDS, type Words } from '../shared/words.js';
import { clip } from '../shared/format.js';

export type ApiErrorKind =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'client' // other 4xx: the request itself is wrong; never retried
  | 'server' // 5xx
  | 'network' // no response: refused, reset, timed out
  | 'unreadable' // a response we could not make sense of
  | 'redirect'
  | 'deadline' // the caller's deadline came first
  | 'unreachable' // nothing answered at the address on the first request: refused, no such name, TLS
  | 'address'; // something answered, but not as the service does: a wrong path

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly kind: ApiErrorKind,
    readonly status?: number,
    readonly code?: string,
    /** The error response's parsed body (the key already redacted), for callers that read more of it. */
    readonly body?: unknown,
    /** For a deadline that came while retrying: the transient failure being retried. */
    readonly failing?: string,
    /** For a peer that said "not before T" (Retry-After) past the deadline: T, on the local clock. */
    readonly retryAt?: number,
  ) {
    super(message);
  }

  /** Worth another try later (the transport has already retried what it could). */
  get transient(): boolean {
    return ['server', 'network', 'unreadable', 'deadline'].includes(this.kind);
  }
}

export interface ErrorEnvelope {
  code?: string;
  message?: string;
}

/** Reads `{"error": {"code", "message", "status"}}`, tolerating a string `error` or top-level fields. */
export function readErrorEnvelope(body: unknown): ErrorEnvelope | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const inner = record.error;
  // The service's own words, cut to a sane length: they end up in the step's message.
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim() ? clip(v.trim(), 300) : undefined;
  if (typeof inner === 'object' && inner !== null) {
    const e = inner as Record<string, unknown>;
    return { code: text(e.code), message: text(e.message) ?? text(e.detail) };
  }
  if (typeof inner === 'string') return { code: text(record.code), message: text(record.message) ?? inner };
  if (text(record.message) || text(record.code)) return { code: text(record.code), message: text(record.message) };
  return undefined;
}

export interface ExplainInput {
  status: number;
  method: string;
  /** The path template, e.g. `/v1/deployments/:id`. */
  route: string;
  /** What the request addressed, for 404s: `deployment "dep_1"`. */
  what: string;
  scope: string;
  envelope: ErrorEnvelope | undefined;
  /** First characters of a body that was not an envelope (already redacted). */
  excerpt: string;
  /** The parsed body, kept on the error for callers that read more of it (a 409's deployment). */
  body?: unknown;
}

/** Turns an error response into a one-line explanation with advice, in the entry's `words`. */
export function explainErrorResponse(e: ExplainInput, words: Words = ACTION_WORDS): ApiError {
  const said = e.envelope?.message
    ? ` The service said: ${e.envelope.message}`
    : e.excerpt
      ? ` Body: ${e.excerpt}`
      : '';
  const code = e.envelope?.code;
  const request = `${e.method} ${e.route}`;
  switch (e.status) {
    case 401:
      return new ApiError(
        `The API key was refused (401 unauthorized) on ${request}: it is missing, invalid or revoked. ${words.keyAdvice}${said}`,
        'unauthorized',
        401,
        code,
        e.body,
      );
    case 403:
      return new ApiError(
        `The API key lacks the '${e.scope}' scope needed for ${request} (403 forbidden). Grant that scope to the key.${said}`,
        'forbidden',
        403,
        code,
        e.body,
      );
    case 404:
      return new ApiError(
        `${capitalize(e.what)} was not found (404 on ${request}).${said}`,
        'not_found',
        404,
        code,
        e.body,
      );
  }
  if (e.status >= 300 && e.status < 400) {
    return new ApiError(
      `${request} answered ${e.status} with a redirect, which is not followed so the key never leaves ${words.input('base-url')}. Check ${words.input('base-url')}.`,
      'redirect',
      e.status,
      code,
      e.body,
    );
  }
  const kind = e.status >= 500 ? 'server' : 'client';
  return new ApiError(
    `${request} failed with ${e.status}${code ? ` ${code}` : ''}.${said}`,
    kind,
    e.status,
    code,
    e.body,
  );
}

/**
 * The trigger was refused because the Claw already has a deployment in progress (409, whatever
 * its code word). `blockingId` is the deployment the error names, when it names one.
 */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
  constructor(
    message: string,
    readonly blockingId: string | undefined,
    body?: unknown,
  ) {
    super(message, 'client', 409, 'conflict', body);
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
