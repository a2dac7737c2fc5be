// A fake OpenAI-compatible chat-completions endpoint on 127.0.0.1: the judge of model-graded
// checks, its answers scripted per test, with `/embeddings` (a letter-count vector per text, or the
// test's own) and `/moderations` (the categories the test flags) as OpenAI answers them. It records every request (headers and body) so tests can
// see exactly what left for the judge, and can refuse parameters as real servers do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JudgeRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The raw text, for "never contains" checks. */
  text: string;
}

/** One scripted answer: a status with a body (an error), or a completion. */
/** The text of every message a judge request carries, one per line (what the judge was asked). */
export function judgeText(r: JudgeRequest): string {
  return ((r.body.messages as { content: string }[]) ?? []).map((m) => m.content).join('\n');
}

export type JudgeReply =
  | { status: number; body?: unknown; headers?: Record<string, string>; /** The body byte for byte. */ text?: string }
  | {
      content?: string | { type: string; text: string }[] | null;
      finishReason?: string;
      refusal?: string;
      model?: string;
      fingerprint?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
    };

export interface FakeJudgeOptions {
  /** Answers each request; by default a passing rubric verdict. */
  answer?: (request: JudgeRequest, index: number) => JudgeReply;
  /** Parameters refused with a 400 naming them, as reasoning models refuse `temperature`. */
  refuse?: string[];
  /** The embedding of a text (default: its letter counts, a-z, so alike texts are close). */
  embed?: (text: string) => number[];
  /** The moderation categories a text is flagged for (default: none). */
  moderate?: (text: string) => string[];
}

/** Letter counts a-z: texts with the same letters point the same way. */
export function letterVector(text: string): number[] {
  const v = new Array<number>(26).fill(0);
  for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') v[c.charCodeAt(0) - 97] += 1;
  return v.map((n, i) => n + (i === 25 ? 0.01 : 0));
}

/** A verdict as a judge would write it. */
export function verdict(fields: Record<string, unknown>): JudgeReply {
  return { content: JSON.stringify(fields), usage: { prompt_tokens: 300, completion_tokens: 40 } };
}

export class FakeJudge {
  readonly requests: JudgeRequest[] = [];
  url = '';
  private server?: http.Server;
  private readonly options: FakeJudgeOptions;

  constructor(options: FakeJudgeOptions = {}) {
    this.options = options;
  }

  /** Requests that reached /chat/completions. */
  completions(): JudgeRequest[] {
    return this.requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
  }

  /** Requests that reached /embeddings or /moderations. */
  others(route: 'embeddings' | 'moderations'): JudgeRequest[] {
    return this.requests.filter((r) => r.path.startsWith(`/v1/${route}`));
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, text: string): void {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text || '{}') as Record<string, unknown>;
    } catch {
      // recorded as is
    }
    const request: JudgeRequest = { path: req.url ?? '', headers: req.headers, body, text };
    const index = this.requests.push(request) - 1;
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (request.path.startsWith('/v1/embeddings')) {
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      const embed = this.options.embed ?? letterVector;
      return send(200, {
        object: 'list',
        model: body.model,
        data: input.map((text, i) => ({ object: 'embedding', index: i, embedding: embed(text) })),
        usage: { prompt_tokens: input.length * 5, total_tokens: input.length * 5 },
      });
    }
    if (request.path.startsWith('/v1/moderations')) {
      const input = Array.isArray(body.input)
        ? (body.input as { text?: string }[]).map((p) => p.text ?? '').join(' ')
        : String(body.input);
      const flagged = this.options.moderate?.(input) ?? [];
      const names = ['harassment', 'hate', 'self-harm', 'sexual', 'violence', ...flagged];
      const categories = Object.fromEntries(names.map((n) => [n, flagged.includes(n)]));
      const scores = Object.fromEntries(names.map((n) => [n, flagged.includes(n) ? 0.9 : 0.01]));
      return send(200, {
        id: `modr-${index}`,
        model: body.model,
        results: [{ flagged: flagged.length > 0, categories, category_scores: scores }],
      });
    }
    if (!request.path.startsWith('/v1/chat/completions')) return send(404, { error: { message: 'no such route' } });
    const refused = (this.options.refuse ?? []).find((name) =>
      name === 'json_schema'
        ? (body.response_format as { type?: string } | undefined)?.type === 'json_schema'
        : name in body,
    );
    if (refused) {
      const param = refused === 'json_schema' ? 'response_format' : refused;
      return send(400, {
        error: {
          message: `Unsupported parameter: '${refused}' is not supported with this model.`,
          type: 'invalid_request_error',
          param,
          code: 'unsupported_parameter',
        },
      });
    }
    const reply =
      this.options.answer?.(request, index) ?? verdict({ reason: 'Meets the rubric.', pass: true, score: 1 });
    if ('status' in reply && reply.text !== undefined) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      return void res.end(reply.text);
    }
    if ('status' in reply) return send(reply.status, reply.body ?? {}, reply.headers);
    send(200, {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      model: reply.model ?? body.model,
      system_fingerprint: reply.fingerprint ?? 'fp_test',
      choices: [
        {
          index: 0,
          finish_reason: reply.finishReason ?? 'stop',
          message: { role: 'assistant', content: reply.content ?? null, refusal: reply.refusal ?? null },
        },
      ],
      usage: reply.usage
        ? { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens }
        : undefined,
    });
  }
}
