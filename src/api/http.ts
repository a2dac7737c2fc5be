// The one place that speaks HTTP. One exchange with the service: send, read the body up to a cap,
// time out, and redact the key from everything that comes back (and, at the end, the fetch that
// GitHub's calls go through). One keep-alive agent serves every request (no new TLS
// handshake per poll); a request that times out or is cancelled destroys only its own socket.
import * as http from 'node:http';
import * as https from 'node:https';
import { HttpClient } from '@actions/http-client';
import { CancelledError } from '../shared/errors.js';
import { formatDuration } from '../shared/format.js';

export type Headers = Record<string, string | string[] | undefined>;

/** One header's value (the first, when repeated), trimmed; undefined when absent or blank. */
export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** JSON text, or undefined for no body. */
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What one exchange gave: a response (whole or cut off), a body over the cap, or nothing. */
export type Attempt =
  | { kind: 'response'; status: number; headers: Headers; text: string; complete: boolean }
  | { kind: 'too-large'; status: number; headers: Headers; maxBytes: number }
  | { kind: 'no-response'; sent: boolean; reason: string; timedOut?: true; code?: string };

export interface HttpOptions {
  userAgent: string;
  /** The most a body may hold; a longer one is abandoned. */
  maxBodyBytes: number;
  /** Removes the key, in every form, from text the service sent. */
  redact: (text: string) => string;
}

/** A few MiB: far more than any answer of the spec's, far less than what would hurt. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

type RequestInfo = Parameters<HttpClient['requestRawWithCallback']>[0];

// Refused or unresolved: the request never left this machine.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export class HttpSession {
  private readonly client: HttpClient;

  constructor(private readonly options: HttpOptions) {
    this.client = new HttpClient(options.userAgent, [], {
      allowRedirects: false,
      allowRetries: false,
      keepAlive: true,
    });
  }

  /** Ends the shared agent's idle sockets, so the process can exit. */
  close(): void {
    this.client.dispose();
  }

  async send(exchange: Exchange): Promise<Attempt> {
    if (exchange.signal?.aborted) throw new CancelledError();
    const parsedUrl = new URL(exchange.url);
    const usingSsl = parsedUrl.protocol === 'https:';
    const abort = new AbortController();
    const options: http.RequestOptions = {
      // URL keeps IPv6 literals in brackets; the socket layer wants the bare address.
      host: parsedUrl.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsedUrl.port ? Number(parsedUrl.port) : usingSsl ? 443 : 80,
      path: parsedUrl.pathname + parsedUrl.search,
      method: exchange.method,
      headers: { ...exchange.headers, 'user-agent': this.options.userAgent },
      agent: this.client.getAgent(exchange.url),
      signal: abort.signal,
    };

    let timer: NodeJS.Timeout | undefined;
    let onCancel: (() => void) | undefined;
    const limits = new Promise<Attempt>((resolve, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve({
          kind: 'no-response',
          sent: true,
          reason: `no response within ${formatDuration(exchange.timeoutMs)}`,
          timedOut: true,
        });
      }, exchange.timeoutMs);
      onCancel = () => {
        abort.abort();
        reject(new CancelledError());
      };
      exchange.signal?.addEventListener('abort', onCancel, { once: true });
    });
    try {
      const info = { options, parsedUrl, httpModule: usingSsl ? https : http };
      return await Promise.race([this.exchange(info, exchange.body, abort), limits]);
    } finally {
      clearTimeout(timer);
      if (onCancel) exchange.signal?.removeEventListener('abort', onCancel);
    }
  }

  private exchange(info: RequestInfo, body: string | undefined, abort: AbortController): Promise<Attempt> {
    return new Promise<Attempt>((resolve) => {
      this.client.requestRawWithCallback(info, body ?? '', (err, res) => {
        if (err || !res) {
          const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
          const reason = `network error (${code || err?.message || 'no response'})`;
          return resolve({
            kind: 'no-response',
            sent: !NOT_SENT.has(code),
            reason: this.options.redact(reason),
            // Node's own error code (not the peer's words): the transport reads an unreachable address from it.
            ...(/^[A-Z0-9_]{1,64}$/.test(code) ? { code } : {}),
          });
        }
        const message = res.message;
        const status = message.statusCode ?? 0;
        const headers = this.redactHeaders(message.headers as Headers);
        const { maxBodyBytes } = this.options;
        const declared = Number(message.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBodyBytes) {
          abort.abort();
          return resolve({ kind: 'too-large', status, headers, maxBytes: maxBodyBytes });
        }
        const chunks: Buffer[] = [];
        let bytes = 0;
        let settled = false;
        const settle = (attempt: Attempt): void => {
          if (settled) return;
          settled = true;
          resolve(attempt);
        };
        const finish = (complete: boolean): void =>
          settle({
            kind: 'response',
            status,
            headers,
            text: this.options.redact(Buffer.concat(chunks).toString('utf8')),
            complete,
          });
        message.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > maxBodyBytes) {
            chunks.length = 0;
            abort.abort(); // an endless body: stop reading and drop the socket
            settle({ kind: 'too-large', status, headers, maxBytes: maxBodyBytes });
            return;
          }
          chunks.push(chunk);
        });
        message.on('end', () => finish(message.complete));
        message.on('error', () => finish(false));
        message.on('aborted', () => finish(false));
        message.on('close', () => finish(message.complete));
      });
    });
  }

  private redactHeaders(headers: Headers): Headers {
    const out: Headers = {};
    for (const [name, value] of Object.entries(headers)) {
      out[name] = Array.isArray(value)
        ? value.map(this.options.redact)
        : value === undefined
          ? undefined
          : this.options.redact(value);
    }
    return out;
  }
}

// Octokit's fetch, over the same HTTP client: GitHub calls (src/github/) honour the runner's proxy
// settings (HTTPS_PROXY, NO_PROXY) as the service's calls do, and the bundle carries no second HTTP
// stack for them (the toolkit's undici, 430 KiB, is left out: see tools/undici-stub). Bodies are
// read up to a cap, as every answer from outside is; redirects are not followed with the token.

/** GitHub's largest answers here (a page of comments, a history file) stay well under this. */
const MAX_GITHUB_BODY_BYTES = 32 * 1024 * 1024;
/** No GitHub call should take longer; a stalled one must not hold the step. */
const GITHUB_TIMEOUT_MS = 60_000;

/**
 * A fetch that Octokit can use (`request: { fetch }`). It honours `signal`: the call is given up at
 * once and its socket closed (a client of its own, disposed), so a late GitHub never holds the step.
 */
export function httpClientFetch(userAgent = 'claw-deploy'): typeof fetch {
  const shared = new HttpClient(userAgent, [], { allowRedirects: false, socketTimeout: GITHUB_TIMEOUT_MS });
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    if (!signal) return fetchWith(shared, input, init);
    signal.throwIfAborted();
    const client = new HttpClient(userAgent, [], { allowRedirects: false, socketTimeout: GITHUB_TIMEOUT_MS });
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        client.dispose();
        reject(signal.reason instanceof Error ? signal.reason : new Error('the GitHub call was given up'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const call = fetchWith(client, input, init);
    call.catch(() => undefined); // its failure after an abort is the abort's
    try {
      return await Promise.race([call, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      client.dispose();
    }
  };
}

async function fetchWith(
  client: HttpClient,
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const headers: http.OutgoingHttpHeaders = {};
  new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
  const body =
    init?.body === undefined || init.body === null
      ? null
      : typeof init.body === 'string'
        ? init.body
        : Buffer.from(await new Response(init.body).arrayBuffer()).toString('utf8');
  const response = await client.request(init?.method ?? 'GET', url, body, headers);
  const status = response.message.statusCode ?? 0;
  const bytes = await readGitHubBody(response.message);
  const answer = new Response([101, 204, 205, 304].includes(status) ? null : bytes, {
    status,
    statusText: response.message.statusMessage ?? '',
    headers: Object.entries(response.message.headers).flatMap(([name, value]) =>
      value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
    ),
  });
  Object.defineProperty(answer, 'url', { value: url });
  return answer;
}

async function readGitHubBody(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > MAX_GITHUB_BODY_BYTES)
      throw new Error(`GitHub's answer is over ${MAX_GITHUB_BODY_BYTES / 1024 / 1024} MiB`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
