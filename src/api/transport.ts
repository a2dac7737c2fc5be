// The only module that speaks HTTP. One request in, one parsed response out: auth, one `/v1`,
// timeouts, 429 waits, retries of transient failures, lost writes, and the key kept out of
// everything the service sends back.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpClient } from '@actions/http-client';
import { type Clock, type Logger, debugOnce } from '../clock.js';
import { CancelledError } from '../errors.js';
import { formatDuration } from '../parse.js';
import { fullJitterBackoff } from './backoff.js';
import { ApiError, explainErrorResponse, readErrorEnvelope } from './errors.js';
import {
  type Headers,
  type RateLimitPacer,
  type ResetMemory,
  header,
  readRateLimit,
  readRetryAfter,
  serverTime,
} from './rate-limit.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  method: Method;
  /** Path template under `/v1`, e.g. `/deployments/:id`; `:name` segments come from `params`. */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string | undefined>;
  /** A full next-page link from the service; followed only on the base URL's origin. */
  url?: string;
  body?: unknown;
  /** The scope the endpoint needs, named when the service answers 403. */
  scope: string;
  /** What the request addresses, named when the service answers 404: `deployment "d1"`. */
  what: string;
  /**
   * Sent as `Idempotency-Key`, the same on every retry of this request. Writes get one made up
   * when none is given; pass one to recognize the request's effect later.
   */
  idempotencyKey?: string;
  /**
   * For writes whose response was lost: looks for the effect before sending again, for services
   * that ignore the Idempotency-Key. A value ends the request with it.
   */
  recover?: () => Promise<ApiResponse | undefined>;
  /** Clock time after which no request is sent and no wait is begun. */
  deadline?: number;
  signal?: AbortSignal;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  authScheme: string;
  requestTimeoutMs: number;
  clock: Clock;
  log: Logger;
  pacer?: RateLimitPacer;
  random?: () => number;
  /** First retry wait; doubles per failure up to `maxBackoffMs`. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  userAgent?: string;
}

/** Give up on transient failures only after this many in a row... */
export const GIVE_UP_AFTER_FAILURES = 10;
/** ...that also span at least this long, so a blip never fails a long deployment. */
export const GIVE_UP_AFTER_MS = 120_000;
const EXCERPT_CHARS = 500;

type Attempt =
  | { kind: 'response'; status: number; headers: Headers; text: string; complete: boolean }
  | { kind: 'no-response'; sent: boolean; reason: string };

/** A transient failure, and whether the request may have taken effect. */
interface Transient {
  reason: string;
  /** What arrived, when it was not what was expected (already redacted). */
  excerpt?: string;
  errorKind: 'server' | 'network' | 'unreadable';
  mayHaveApplied: boolean;
  retryAfterMs?: number;
}

export class Transport {
  private readonly random: () => number;
  private readonly baseBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly secrets: string[];
  /** Says each assumption about the rate-limit headers once, not on every response. */
  private readonly headerLog: Logger;
  /** What the service's reset values have shown of their unit. */
  private readonly resetMemory: ResetMemory = {};
  /** Server clock minus local clock, from the last `Date` header. */
  private clockOffsetMs = 0;

  constructor(private readonly options: TransportOptions) {
    this.random = options.random ?? Math.random;
    this.headerLog = debugOnce(options.log);
    this.baseBackoffMs = options.baseBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    const key = options.apiKey;
    // The key as it may come back: raw, JSON-escaped, URL-encoded.
    this.secrets = [...new Set([key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)])].filter(
      (s) => s.length >= 4,
    );
  }

  /** Local clock time now, for `toServerTime` later. */
  localNow(): number {
    return this.options.clock.now();
  }

  /** A local time on the service's clock, as far as its latest `Date` header tells. */
  toServerTime(localMs: number): number {
    return localMs + this.clockOffsetMs;
  }

  /** Removes every form of the key from text that came from the service. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('***');
    return out;
  }

  url(request: Pick<ApiRequest, 'route' | 'params' | 'query' | 'url'>): string {
    if (request.url !== undefined) {
      const next = new URL(request.url, `${this.options.baseUrl}/`);
      if (next.origin !== new URL(this.options.baseUrl).origin) {
        throw new ApiError(
          `The service pointed to ${next.origin} for the next page; it is not followed so the key never leaves 'base-url'.`,
          'redirect',
        );
      }
      return next.toString();
    }
    const path = request.route.replace(/:(\w+)/g, (_, name: string) => {
      const value = request.params?.[name];
      if (value === undefined) throw new Error(`missing path parameter ${name} for ${request.route}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) query.set(name, value);
    const search = query.size > 0 ? `?${query}` : '';
    return `${this.options.baseUrl}/v1${path}${search}`;
  }

  async request(spec: ApiRequest): Promise<ApiResponse> {
    const { clock, log } = this.options;
    const label = `${spec.method} /v1${spec.route}`;
    const isWrite = spec.method !== 'GET';
    // One logical write, one key, on every retry: a service that honours it applies it once.
    const request = isWrite ? { ...spec, idempotencyKey: spec.idempotencyKey ?? randomUUID() } : spec;
    let failures = 0;
    let firstFailureAt = 0;

    for (;;) {
      await this.waitForBudget(request);
      const attempt = await this.attempt(request);
      const transient = this.classify(attempt, isWrite);

      if (!transient) {
        if (attempt.kind !== 'response') throw new Error('unreachable');
        if (attempt.status === 429) {
          await this.waitAfter429(request, attempt.headers, label);
          continue; // a 429 never counts as a failed attempt
        }
        return this.finish(request, attempt);
      }

      failures += 1;
      if (failures === 1) firstFailureAt = clock.now();
      const spanMs = clock.now() - firstFailureAt;
      const wait =
        transient.retryAfterMs ?? fullJitterBackoff(failures, this.baseBackoffMs, this.maxBackoffMs, this.random);
      const pastDeadline = request.deadline !== undefined && clock.now() + wait >= request.deadline;
      if ((failures >= GIVE_UP_AFTER_FAILURES && spanMs >= GIVE_UP_AFTER_MS) || pastDeadline) {
        const why = pastDeadline
          ? 'no time left before the deadline to retry'
          : `gave up after ${failures} failures in a row over ${formatDuration(spanMs)}`;
        const body = transient.excerpt ? ` Body: ${transient.excerpt}` : '';
        throw new ApiError(
          `${label} failed: ${transient.reason} (${why}).${body}`,
          pastDeadline ? 'deadline' : transient.errorKind,
        );
      }
      log.warning(`${label}: ${transient.reason}; retry ${failures} in ${formatDuration(wait)}.`);
      await clock.sleep(wait, request.signal);
      if (isWrite && transient.mayHaveApplied && request.recover) {
        const found = await request.recover();
        if (found) {
          log.info(`${label}: the earlier attempt had taken effect; not sending it again.`);
          return found;
        }
      }
    }
  }

  /** Before sending: when the window is spent, wait for it to reset (never past the deadline). */
  private async waitForBudget(request: ApiRequest): Promise<void> {
    const { clock, pacer, log } = this.options;
    const wait = pacer?.requestDelay() ?? 0;
    if (wait <= 0) return;
    this.assertTimeFor(request, wait, 'the rate-limit window resets after the deadline');
    log.debug(`rate limit: window spent; waiting ${formatDuration(wait)} for it to reset`);
    await clock.sleep(wait, request.signal);
  }

  private async waitAfter429(request: ApiRequest, headers: Headers, label: string): Promise<void> {
    const { clock, log } = this.options;
    const reading = readRateLimit(headers, clock.now(), this.headerLog, this.resetMemory);
    const base = reading.retryAfterMs ?? reading.resetInMs ?? this.baseBackoffMs;
    const source =
      reading.retryAfterMs !== undefined
        ? 'Retry-After'
        : reading.resetInMs !== undefined
          ? 'X-RateLimit-Reset'
          : 'no reset header';
    const wait = base + this.random() * Math.min(1000, base * 0.1 + 50);
    this.assertTimeFor(request, wait, `rate limited (429) until after the deadline`);
    log.warning(`${label}: rate limited (429); waiting ${formatDuration(wait)} as ${source} says.`);
    await clock.sleep(wait, request.signal);
  }

  private assertTimeFor(request: ApiRequest, waitMs: number, reason: string): void {
    if (request.deadline !== undefined && this.options.clock.now() + waitMs >= request.deadline) {
      throw new ApiError(`${request.method} /v1${request.route}: ${reason}.`, 'deadline', 429);
    }
  }

  /** Sorts an attempt into done (undefined) or a transient failure worth a retry. */
  private classify(attempt: Attempt, isWrite: boolean): Transient | undefined {
    if (attempt.kind === 'no-response') {
      return { reason: attempt.reason, errorKind: 'network', mayHaveApplied: attempt.sent };
    }
    const { status, headers } = attempt;
    if (!attempt.complete) {
      return { reason: `response ${status} was cut off`, errorKind: 'unreadable', mayHaveApplied: true };
    }
    if ([500, 502, 503, 504].includes(status)) {
      const retryAfter = header(headers, 'retry-after');
      const serverNow = serverTime(headers, this.options.clock.now());
      // 503 says the service did not take the request on.
      return {
        reason: `${status} from the service`,
        errorKind: 'server',
        mayHaveApplied: status !== 503,
        retryAfterMs: retryAfter ? readRetryAfter(retryAfter, serverNow, this.headerLog) : undefined,
      };
    }
    if (status >= 200 && status < 300 && attempt.text.trim() !== '' && parseJson(attempt.text) === undefined) {
      return {
        reason: `${status} with a body that is not JSON`,
        excerpt: attempt.text.slice(0, EXCERPT_CHARS).replace(/\s+/g, ' ').trim(),
        errorKind: 'unreadable',
        mayHaveApplied: isWrite,
      };
    }
    return undefined;
  }

  private finish(request: ApiRequest, attempt: Extract<Attempt, { kind: 'response' }>): ApiResponse {
    const { status, headers, text } = attempt;
    const body = text.trim() === '' ? undefined : parseJson(text);
    if (status >= 200 && status < 300) return { status, body, headers };
    throw explainErrorResponse({
      status,
      method: request.method,
      route: `/v1${request.route}`,
      what: request.what,
      scope: request.scope,
      envelope: readErrorEnvelope(body),
      excerpt: body === undefined ? text.slice(0, EXCERPT_CHARS).replace(/\s+/g, ' ').trim() : '',
    });
  }

  /** One HTTP exchange, on its own client so a timeout or cancel can tear its socket down. */
  private async attempt(request: ApiRequest): Promise<Attempt> {
    const { clock, requestTimeoutMs, pacer, log } = this.options;
    if (request.signal?.aborted) throw new CancelledError();
    const left = request.deadline === undefined ? Infinity : request.deadline - clock.now();
    if (left <= 0) throw new ApiError(`${request.method} /v1${request.route}: the deadline has passed.`, 'deadline');
    const timeoutMs = Math.min(requestTimeoutMs, left);
    const url = this.url(request);
    const client = new HttpClient(this.options.userAgent ?? 'claw-deploy', [], {
      allowRedirects: false,
      allowRetries: false,
      keepAlive: true, // gives the client its own agent, so dispose() ends exactly this request
      socketTimeout: timeoutMs,
    });
    const headers: Record<string, string> = {
      Accept: 'application/json',
      Authorization: this.options.authScheme
        ? `${this.options.authScheme} ${this.options.apiKey}`
        : this.options.apiKey,
    };
    let data: string | null = null;
    if (request.body !== undefined) {
      data = JSON.stringify(request.body);
      headers['Content-Type'] = 'application/json';
    }
    if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;

    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const exchange = (async (): Promise<Attempt> => {
      try {
        const response = await client.request(request.method, url, data, headers);
        const body = await readText(response.message);
        const responseHeaders = response.message.headers as Headers;
        return { kind: 'response', status: response.message.statusCode ?? 0, headers: responseHeaders, ...body };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        // Refused or unresolved: the request never left this machine.
        const sent = !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code);
        return { kind: 'no-response', sent, reason: `network error (${code || (err as Error).message})` };
      }
    })();
    const limits = new Promise<Attempt>((resolve, reject) => {
      timer = setTimeout(
        () => resolve({ kind: 'no-response', sent: true, reason: `no response within ${formatDuration(timeoutMs)}` }),
        timeoutMs,
      );
      onAbort = () => reject(new CancelledError());
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const attempt = await Promise.race([exchange, limits]);
      if (attempt.kind === 'response') {
        const localNow = clock.now();
        this.clockOffsetMs = serverTime(attempt.headers, localNow) - localNow;
        pacer?.observe(readRateLimit(attempt.headers, localNow, this.headerLog, this.resetMemory));
        attempt.text = this.redact(attempt.text);
        log.debug(`${request.method} ${this.redact(url)} → ${attempt.status}`);
      }
      return attempt;
    } finally {
      clearTimeout(timer);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
      client.dispose();
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads a body to the end, or to where the connection broke (`complete: false`). */
function readText(message: IncomingMessage): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (complete: boolean): void => {
      if (settled) return;
      settled = true;
      resolve({ text: Buffer.concat(chunks).toString('utf8'), complete });
    };
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => settle(message.complete));
    message.on('error', () => settle(false));
    message.on('aborted', () => settle(false));
    message.on('close', () => settle(message.complete));
  });
}
