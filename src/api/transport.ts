// One request in, one parsed response out. Builds the URL (one `/v1`, ids percent-encoded, next
// pages only on the base origin), waits for the team's budget, sends through the HTTP session,
// and acts on the retry policy: backoff, 429 waits, lost writes, and the give-up rule.
import { ACTION_WORDS, type Words } from '../shared/words.js';
import { randomUUID } from 'node:crypto';
import { type Clock, type Logger, debugOnce } from '../shared/clock.js';
import { formatDuration } from '../shared/format.js';
import { isValidId } from '../shared/identifiers.js';
import { ApiError, type ExplainInput, explainErrorResponse, readErrorEnvelope } from './errors.js';
import { type Attempt, type Headers, HttpSession, MAX_BODY_BYTES } from './http.js';
import { type RateLimitPacer, type ResetMemory, readRateLimit, serverTime } from './rate-limit.js';
import { Redactor } from './redact.js';
import {
  FailureRun,
  UNREACHABLE_RETRY_MS,
  UNREACHABLE_TRIES,
  type Verdict,
  classify,
  excerpt,
  fullJitterBackoff,
  unreachableCause,
} from './retry.js';

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
  /**
   * For reads that only save work (the deployment history): one attempt, no retry and no wait
   * after a 429, and at most `timeoutMs` however long `request-timeout` allows.
   */
  once?: { timeoutMs: number };
  /**
   * For conversations (chat, task polls, a judge Claw), which come in bursts: wait for the reset
   * once only the team's reserve is left, rather than spend it.
   */
  keepReserve?: boolean;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  headers: Headers;
  /**
   * When the request was asked for, when its answering attempt went on the wire and when its
   * answer was read, on the run's clock: from `sentAt` on it is the peer's own time; before it, the
   * waits for the budget, a Retry-After and retries.
   */
  timing?: ExchangeTiming;
}

export interface ExchangeTiming {
  calledAt: number;
  sentAt: number;
  receivedAt: number;
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
  maxBodyBytes?: number;
  /** Put before every route: `/v1` for the service (the default); empty for an endpoint whose base holds its own. */
  pathPrefix?: string;
  /** Sent with every request (a judge's own headers), besides Authorization. */
  headers?: Record<string, string>;
  /** Added to every request's query (a judge's `api-version`). */
  query?: Record<string, string>;
  /** Other secrets to remove from what comes back (values read from the environment for headers). */
  secrets?: string[];
  /**
   * The run's one redactor: what comes back is redacted of every secret the run knows (a judge's
   * key in the service's answer too) before it is decoded or cut. This transport's own key and
   * secrets are added to it. Without one, a redactor of this transport's secrets alone.
   */
  redactor?: Redactor;
  /** Turns an error response into the error thrown; the service's explanation by default. */
  explain?: (input: ExplainInput) => ApiError;
  /** How advice names the key and the address for the entry's user (absent: the action's words). */
  words?: Words;
  /** Answers never retried, though their status usually is (a 429 that says the quota is spent). */
  final?: (status: number, body: unknown) => boolean;
  /** Who answers, in messages: `the service` (the default), `the judge`. */
  peer?: string;
  /**
   * A Retry-After that lands past the request's deadline: `wait` until the deadline, then fail
   * (the default: no header ends a wait early), or `fail` at once, saying until when (a judge,
   * whose callers have other work to do meanwhile).
   */
  retryAfterPastDeadline?: 'wait' | 'fail';
  /**
   * What to check when nothing answers at the address: the service's `base-url` (the default, in
   * the entry's words), `the judge's url`.
   */
  addressAdvice?: string;
}

export class Transport {
  private readonly random: () => number;
  private readonly baseBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly authorization: string;
  private readonly http: HttpSession;
  /** Removes every form of the key from what came from the service: its text, then its decoded body. */
  private readonly redactor: Redactor;
  /** Says each assumption about the rate-limit headers once, not on every response. */
  private readonly headerLog: Logger;
  /** What the service's reset values have shown of their unit. */
  private readonly resetMemory: ResetMemory = {};
  /** Server clock minus local clock, from the last `Date` header. */
  private clockOffsetMs = 0;
  /** Local time before which no request is sent: the latest Retry-After, obeyed by every caller. */
  private notBefore = 0;
  /** Something answered at the address (any response): from then on a refused connection is a moment's trouble. */
  private answered = false;
  /** The service answered as itself (a success, or an error in its envelope): a bare 404 is then about the thing asked for. */
  private heardService = false;
  /** Why nothing answers at the address, once known: every later request fails with it at once. */
  private unreachableError?: ApiError;

  constructor(private readonly options: TransportOptions) {
    this.random = options.random ?? Math.random;
    this.headerLog = debugOnce(options.log);
    this.baseBackoffMs = options.baseBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.authorization = options.authScheme ? `${options.authScheme} ${options.apiKey}` : options.apiKey;
    this.redactor = (options.redactor ?? new Redactor()).add(
      options.apiKey,
      this.authorization,
      ...(options.secrets ?? []),
    );
    this.http = new HttpSession({
      userAgent: options.userAgent ?? 'claw-deploy',
      maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
      redact: this.redactor.redact,
    });
  }

  /** Closes the keep-alive connections. */
  close(): void {
    this.http.close();
  }

  /** Local clock time now, for `toServerTime` later. */
  localNow(): number {
    return this.options.clock.now();
  }

  /** A local time on the service's clock, as far as its latest `Date` header tells. */
  toServerTime(localMs: number): number {
    return localMs + this.clockOffsetMs;
  }

  /** A time on the service's clock as a local one. */
  toLocalTime(serverMs: number): number {
    return serverMs - this.clockOffsetMs;
  }

  url(request: Pick<ApiRequest, 'route' | 'params' | 'query' | 'url'>): string {
    if (request.url !== undefined) {
      const next = new URL(request.url, `${this.options.baseUrl}/`);
      if (next.origin !== new URL(this.options.baseUrl).origin) {
        throw new ApiError(
          `The service pointed to another origin for the next page; it is not followed so the key never leaves ${(this.options.words ?? ACTION_WORDS).input('base-url')}.`,
          'redirect',
        );
      }
      return next.toString();
    }
    const path = request.route.replace(/:(\w+)/g, (_, name: string) => {
      const value = request.params?.[name];
      if (value === undefined) throw new Error(`missing path parameter ${name} for ${request.route}`);
      // The last guard: `..` or `/` would address another resource than the one meant.
      if (!isValidId(value)) {
        throw new ApiError(
          `Refused to put ${JSON.stringify(value.slice(0, 80))} into ${request.route}: not a usable identifier.`,
          'unreadable',
        );
      }
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    const pairs = { ...this.options.query, ...request.query };
    for (const [name, value] of Object.entries(pairs)) if (value !== undefined) query.set(name, value);
    const search = query.size > 0 ? `?${query}` : '';
    return `${this.options.baseUrl}${this.prefix}${path}${search}`;
  }

  private get prefix(): string {
    return this.options.pathPrefix ?? '/v1';
  }

  async request(spec: ApiRequest): Promise<ApiResponse> {
    const { clock } = this.options;
    const label = `${spec.method} ${this.prefix}${spec.route}`;
    const isWrite = spec.method !== 'GET';
    // One logical write, one key, on every retry: a service that honours it applies it once.
    const request = isWrite ? { ...spec, idempotencyKey: spec.idempotencyKey ?? randomUUID() } : spec;
    const failures = new FailureRun();
    // Retry-After wins: after a 429 that carries it, the next attempt goes when it says, even
    // if Remaining reads 0 until a later reset.
    let skipBudget = false;
    let limited = 0;
    let lastFailure: string | undefined;
    const calledAt = clock.now();

    for (;;) {
      if (this.unreachableError) throw this.unreachableError;
      if (!skipBudget) await this.waitNotBefore(request, label);
      await this.waitForBudget(request, label, skipBudget);
      skipBudget = false;
      let attempt: Attempt;
      const sentAt = clock.now();
      // An exchange whose time was cut short by the deadline says nothing about the service.
      const cutByDeadline = request.deadline !== undefined && request.deadline - sentAt < this.exchangeLimitMs(request);
      try {
        attempt = await this.attempt(request, label);
      } finally {
        this.options.pacer?.release();
      }
      if (attempt.kind === 'no-response' && attempt.timedOut && cutByDeadline) {
        const failing = failures.count > 0 ? lastFailure : undefined;
        throw new ApiError(
          `${label}: no response before the deadline.`,
          'deadline',
          undefined,
          undefined,
          undefined,
          failing,
        );
      }
      const timing = { calledAt, sentAt, receivedAt: clock.now() };
      const verdict: Verdict = this.decoded(classify(attempt, isWrite, label, clock.now(), this.headerLog, this.peer));
      switch (verdict.kind) {
        case 'done':
          return { ...this.finish(request, verdict), timing };
        case 'fail':
          throw verdict.error;
        case 'rate-limited':
          if (request.once) throw new ApiError(`${label}: rate limited (429); not retried`, 'client', 429);
          if (this.options.final?.(429, verdict.body)) {
            return this.finish(request, {
              kind: 'done',
              status: 429,
              headers: verdict.headers,
              body: verdict.body,
              text: '',
            });
          }
          skipBudget = await this.waitAfter429(request, verdict.headers, label, ++limited);
          continue; // a 429 never counts as a failed attempt
        case 'retry': {
          if (request.once) throw new ApiError(`${label} failed: ${verdict.reason}`, verdict.errorKind);
          failures.record(clock.now());
          lastFailure = verdict.reason;
          const recovered = await this.retryAfter(request, label, attempt, verdict, failures);
          if (recovered) return recovered;
        }
      }
    }
  }

  /**
   * After a failed attempt that may be retried: gives up (the address unreachable, the failures
   * exhausted, no time left) by throwing, else waits its backoff. A write that may have applied
   * is looked for first: its response when found, so it is not sent twice.
   */
  private async retryAfter(
    request: ApiRequest,
    label: string,
    attempt: Attempt,
    verdict: Extract<Verdict, { kind: 'retry' }>,
    failures: FailureRun,
  ): Promise<ApiResponse | undefined> {
    const { clock, log } = this.options;
    const isWrite = request.method !== 'GET';
    // Nothing has ever answered here, and the error says the address is at fault: a couple of
    // quick tries, then the run is told what to check, not two minutes of retries.
    const unreachable = !this.answered && attempt.kind === 'no-response' ? unreachableCause(attempt.code) : undefined;
    if (unreachable && failures.count >= UNREACHABLE_TRIES) {
      this.unreachableError = new ApiError(
        `Nothing answered at ${this.address} (${unreachable}): ${this.addressAdvice}.`,
        'unreachable',
      );
      throw this.unreachableError;
    }
    const wait = unreachable
      ? UNREACHABLE_RETRY_MS
      : (verdict.retryAfterMs ?? fullJitterBackoff(failures.count, this.baseBackoffMs, this.maxBackoffMs, this.random));
    const body = verdict.excerpt ? ` Body: ${verdict.excerpt}` : '';
    if (failures.exhausted(clock.now())) {
      const why = `gave up after ${failures.count} failures in a row over ${formatDuration(failures.spanMs(clock.now()))}`;
      throw new ApiError(`${label} failed: ${verdict.reason} (${why}).${body}`, verdict.errorKind);
    }
    // One warning per episode of failures (annotations are few); its retries are info lines.
    const line = `${label}: ${verdict.reason}; retry ${failures.count} in ${formatDuration(wait)}.`;
    if (failures.count === 1) log.warning(`${line} Retrying; further retries are logged as info.`);
    else log.info(line);
    await this.sleepWithin(
      request,
      wait,
      `${label} failed: ${verdict.reason} (no time left before the deadline to retry).${body}`,
      verdict.reason,
    );
    if (isWrite && verdict.mayHaveApplied && request.recover) {
      const found = await request.recover();
      if (found) {
        log.info(`${label}: the earlier attempt had taken effect; not sending it again.`);
        return found;
      }
    }
    return undefined;
  }

  /**
   * Sleeps `waitMs`, or until the deadline when that comes first and then fails with `reason`:
   * no header and no backoff ends a wait before its deadline, and none runs past it.
   */
  private async sleepWithin(request: ApiRequest, waitMs: number, reason: string, failing?: string): Promise<void> {
    const { clock } = this.options;
    const left = request.deadline === undefined ? Infinity : request.deadline - clock.now();
    if (waitMs < left) return clock.sleep(waitMs, request.signal);
    if (left > 0) await clock.sleep(left, request.signal);
    throw new ApiError(reason, 'deadline', undefined, undefined, undefined, failing);
  }

  private get peer(): string {
    return this.options.peer ?? 'the service';
  }

  /** The base address as messages show it: no user, password, query or fragment, and redacted. */
  private get address(): string {
    try {
      const url = new URL(this.options.baseUrl);
      return this.redactor.redact(`${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`);
    } catch {
      return this.options.peer ?? 'the service';
    }
  }

  private get addressAdvice(): string {
    return this.options.addressAdvice ?? `check ${(this.options.words ?? ACTION_WORDS).input('base-url')}`;
  }

  /**
   * A 404 that says the address, not the thing asked for, is wrong: the service's list of Claws is
   * never missing, and before the service has once answered as itself, a 404 without its error
   * envelope comes from something else at that address. Only for the service (the default peer).
   */
  private wrongPath(request: ApiRequest, label: string, status: number, body: unknown): ApiError | undefined {
    if (this.options.peer !== undefined || status !== 404) return undefined;
    const list = request.method === 'GET' && request.route === '/claws' && request.url === undefined;
    if (!list && (this.heardService || readErrorEnvelope(body) !== undefined)) return undefined;
    const base = (this.options.words ?? ACTION_WORDS).input('base-url');
    const why = list ? 'answered 404 for the list of Claws' : "answered 404 without the service's error body";
    return new ApiError(`${base} ${this.address} looks wrong: ${label} ${why}.`, 'address', 404);
  }

  /** A "not before T" as the time it names, on the UTC clock, to the second. */
  private notBeforeError(label: string, retryAt: number, status?: number): ApiError {
    const when = new Date(retryAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const what = status === 429 ? 'rate limited (429)' : 'not sent';
    return new ApiError(
      `${label}: ${what}: ${this.peer} said not before ${when} (Retry-After), after the deadline.`,
      'client',
      status,
      'retry_after',
      undefined,
      undefined,
      retryAt,
    );
  }

  /**
   * Before sending: waits out the latest Retry-After, which every caller obeys (never past the
   * deadline); with `retryAfterPastDeadline: fail`, one that ends past it fails at once.
   */
  private async waitNotBefore(request: ApiRequest, label: string): Promise<void> {
    const wait = this.notBefore - this.options.clock.now();
    if (wait <= 0) return;
    const pastDeadline = request.deadline !== undefined && this.notBefore > request.deadline;
    if (pastDeadline && this.options.retryAfterPastDeadline === 'fail')
      throw this.notBeforeError(label, this.notBefore);
    await this.sleepWithin(request, wait, `${label}: rate limited (429) until after the deadline`);
  }

  /**
   * Before sending: claims a place in the window, or waits for it to reset (never past the
   * deadline). With `skip` (Retry-After said when), the place is claimed without waiting.
   */
  private async waitForBudget(request: ApiRequest, label: string, skip: boolean): Promise<void> {
    const { pacer } = this.options;
    if (!pacer) return;
    const reserve = request.keepReserve === true;
    for (let wait = pacer.claim(skip, reserve); wait > 0; wait = pacer.claim(false, reserve)) {
      this.options.log.debug(`rate limit: window spent; waiting ${formatDuration(wait)} for it to reset`);
      await this.sleepWithin(request, wait, `${label}: the team's rate-limit window resets after the deadline`);
    }
  }

  /** Waits as the 429's headers say; true when Retry-After set the time of the next attempt. */
  private async waitAfter429(request: ApiRequest, headers: Headers, label: string, inARow: number): Promise<boolean> {
    const { clock, log } = this.options;
    const reading = readRateLimit(headers, clock.now(), this.headerLog, this.resetMemory);
    // A peer that keeps answering 429 with "now" (Retry-After: 0, a date or reset in the past) is
    // asked again later each time, doubling from the second 429 in a row, never in a tight loop.
    const floor = inARow < 2 ? 0 : Math.min(this.maxBackoffMs, this.baseBackoffMs * 2 ** (inARow - 2));
    const base = Math.max(reading.retryAfterMs ?? reading.resetInMs ?? this.baseBackoffMs, floor);
    const source =
      reading.retryAfterMs !== undefined
        ? 'Retry-After'
        : reading.resetInMs !== undefined
          ? 'X-RateLimit-Reset'
          : 'no reset header';
    const wait = base + this.random() * Math.min(1000, base * 0.1 + 50);
    if (reading.retryAfterMs !== undefined) {
      const retryAt = clock.now() + reading.retryAfterMs;
      this.notBefore = Math.max(this.notBefore, retryAt);
      const pastDeadline = request.deadline !== undefined && retryAt > request.deadline;
      if (pastDeadline && this.options.retryAfterPastDeadline === 'fail')
        throw this.notBeforeError(label, retryAt, 429);
    }
    log.warning(`${label}: rate limited (429); waiting ${formatDuration(wait)} as ${source} says.`);
    await this.sleepWithin(request, wait, `${label}: rate limited (429) until after the deadline`);
    return reading.retryAfterMs !== undefined;
  }

  /**
   * The verdict with its decoded body redacted too. The raw text was redacted at the door, but JSON
   * decoding can make a form of a secret out of text that showed none (`\\u0025` before `2D` is a
   * percent-encoded key once decoded; one `\\u0063` inside base64 of it): every string the layers
   * read (ids that go into issue titles, labels, history lines, file paths) is redacted as decoded.
   */
  private decoded(verdict: Verdict): Verdict {
    if ((verdict.kind === 'done' || verdict.kind === 'rate-limited') && verdict.body !== undefined) {
      return { ...verdict, body: this.redactor.redactJson(verdict.body) };
    }
    return verdict;
  }

  private finish(request: ApiRequest, done: Extract<Verdict, { kind: 'done' }>): ApiResponse {
    const { status, headers, body, text } = done;
    if (status >= 200 && status < 300) {
      this.heardService = true;
      return { status, body, headers };
    }
    // Not kept for later requests, as an unreachable address is: each costs one answer to tell.
    const wrong = this.wrongPath(request, `${request.method} ${this.prefix}${request.route}`, status, body);
    if (wrong) throw wrong;
    if (readErrorEnvelope(body) !== undefined) this.heardService = true;
    const explain = this.options.explain ?? ((e: ExplainInput) => explainErrorResponse(e, this.options.words));
    throw explain({
      status,
      method: request.method,
      route: `${this.prefix}${request.route}`,
      what: request.what,
      scope: request.scope,
      envelope: readErrorEnvelope(body),
      excerpt: body === undefined ? excerpt(text) : '',
      body,
    });
  }

  /** How long one exchange may take before the deadline is counted: the request timeout, or less. */
  private exchangeLimitMs(request: ApiRequest): number {
    return Math.min(this.options.requestTimeoutMs, request.once?.timeoutMs ?? Infinity);
  }

  /** One exchange within the request timeout and the deadline; feeds the pacer and the clock offset. */
  private async attempt(request: ApiRequest, label: string): Promise<Attempt> {
    const { clock, pacer, log } = this.options;
    const left = request.deadline === undefined ? Infinity : request.deadline - clock.now();
    if (left <= 0) throw new ApiError(`${label}: the deadline has passed.`, 'deadline');
    const url = this.url(request);
    const headers: Record<string, string> = { Accept: 'application/json', ...this.options.headers };
    if (this.authorization) headers.Authorization = this.authorization;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['Content-Type'] = 'application/json';
    }
    if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
    const attempt = await this.http.send({
      method: request.method,
      url,
      headers,
      body,
      timeoutMs: Math.min(this.exchangeLimitMs(request), left),
      signal: request.signal,
    });
    if (attempt.kind !== 'no-response') {
      this.answered = true;
      const localNow = clock.now();
      this.clockOffsetMs = serverTime(attempt.headers, localNow) - localNow;
      pacer?.observe(
        readRateLimit(attempt.headers, localNow, this.headerLog, this.resetMemory),
        attempt.status === 429,
      );
      log.debug(`${request.method} ${this.redactor.redact(url)} → ${attempt.status}`);
    }
    return attempt;
  }
}
