// An OpenAI-compatible chat-completions endpoint (the judge of model-graded checks), over its own
// transport: its own base, key, budget and retries, never the service's key. What the protocol
// needs beyond one POST lives here: dropping a parameter the endpoint refuses (once, then for the
// run), reading the answer's content, refusal and usage, and errors that say it was the judge.
import { clip } from '../shared/format.js';
import { ApiError, type ExplainInput, readErrorEnvelope } from './errors.js';
import { type Json, isObject } from './shapes.js';
import type { Transport } from './transport.js';

export interface CompletionRequest {
  model: string;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  temperature?: number;
  seed?: number;
  max_tokens?: number;
  response_format?: Json;
}

/** What came back, read tolerantly: the text, why it stopped, a refusal, who answered, the cost. */
export interface Completion {
  content?: string;
  finishReason?: string;
  refusal?: string;
  model?: string;
  fingerprint?: string;
  tokens?: number;
  /** The request carried `response_format` and the endpoint took it: the answer follows that schema. */
  structured?: boolean;
}

/** Parameters an endpoint may refuse (reasoning models refuse `temperature`; some servers `seed` or `json_schema`). */
const DROPPABLE = ['temperature', 'seed', 'response_format', 'max_tokens'] as const;
type Droppable = (typeof DROPPABLE)[number];

export class ChatCompletions {
  /** Parameters the endpoint refused during this run: never sent again. */
  readonly dropped = new Set<Droppable>();

  constructor(
    private readonly transport: Transport,
    /** Told once per parameter dropped. */
    private readonly onDrop: (message: string) => void,
  ) {}

  close(): void {
    this.transport.close();
  }

  async complete(request: CompletionRequest, options: { deadline: number; signal?: AbortSignal }): Promise<Completion> {
    for (;;) {
      const body = this.withoutDropped(request);
      try {
        const res = await this.transport.request({
          method: 'POST',
          route: '/chat/completions',
          body,
          scope: '',
          what: 'the judge endpoint',
          ...options,
        });
        return { ...readCompletion(res.body), structured: 'response_format' in body };
      } catch (err) {
        const refused = err instanceof ApiError && err.status === 400 ? refusedParameter(err, body) : undefined;
        if (!refused) throw err;
        this.dropped.add(refused);
        // Newer OpenAI models take max_completion_tokens instead of max_tokens.
        const instead = refused === 'max_tokens' ? ' (max_completion_tokens instead)' : '';
        this.onDrop(
          `The judge refused '${refused === 'response_format' ? 'response_format (json_schema)' : refused}' (400); sending without it${instead} for the rest of the run.`,
        );
      }
    }
  }

  /** Embeddings of `input` (`/embeddings`), in order. */
  async embed(
    model: string,
    input: string[],
    options: { deadline: number; signal?: AbortSignal },
  ): Promise<{ vectors: number[][]; tokens?: number } | { problem: string }> {
    const root = await this.post('/embeddings', { model, input }, 'the embeddings endpoint', options);
    const data = Array.isArray(root.data) ? root.data : [];
    const rows = data.filter(isObject).sort((x, y) => Number(x.index ?? 0) - Number(y.index ?? 0));
    const vectors = rows.map((row) =>
      Array.isArray(row.embedding) && row.embedding.every((n) => typeof n === 'number')
        ? (row.embedding as number[])
        : [],
    );
    if (vectors.length !== input.length || vectors.some((v) => v.length === 0))
      return { problem: `the embeddings endpoint answered no embedding for each of the ${input.length} texts` };
    const usage = isObject(root.usage) ? root.usage : {};
    return { vectors, tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : undefined };
  }

  /** The categories a moderation model flags in `text` (`/moderations`), as promptfoo reads them. */
  async moderate(
    model: string,
    text: string,
    options: { deadline: number; signal?: AbortSignal },
  ): Promise<{ flags: string[] } | { problem: string }> {
    // promptfoo sends text parts to the omni models (they take images too), plain text otherwise.
    const input = model.startsWith('omni-moderation') ? [{ type: 'text', text }] : text;
    const root = await this.post('/moderations', { model, input }, 'the moderation endpoint', options);
    if (!Array.isArray(root.results)) return { problem: 'the moderation endpoint answered no results' };
    const flags = new Set<string>();
    for (const result of root.results.filter(isObject)) {
      if (result.flagged !== true || !isObject(result.categories)) continue;
      for (const [category, flagged] of Object.entries(result.categories)) if (flagged === true) flags.add(category);
    }
    return { flags: [...flags] };
  }

  /** One POST beside the completions (no parameter to drop): the answer's object, or an empty one. */
  private async post(
    route: string,
    body: Json,
    what: string,
    options: { deadline: number; signal?: AbortSignal },
  ): Promise<Json> {
    const res = await this.transport.request({ method: 'POST', route, body, scope: '', what, ...options });
    return isObject(res.body) ? res.body : {};
  }

  private withoutDropped(request: CompletionRequest): Json {
    const body: Json = { ...request };
    for (const name of this.dropped) delete body[name];
    if (this.dropped.has('max_tokens') && request.max_tokens !== undefined) {
      body.max_completion_tokens = request.max_tokens;
    }
    return body;
  }
}

/** The parameter a 400 names (its `param`, or its message), when it is one that was sent and may be dropped. */
function refusedParameter(err: ApiError, sent: Json): Droppable | undefined {
  const envelope = isObject(err.body) && isObject(err.body.error) ? err.body.error : isObject(err.body) ? err.body : {};
  const param = typeof envelope.param === 'string' ? envelope.param : '';
  const message = `${param} ${readErrorEnvelope(err.body)?.message ?? ''}`.toLowerCase();
  for (const name of DROPPABLE) {
    if (!(name in sent)) continue;
    const said =
      name === 'response_format' ? /response_format|json_schema|structured output/ : new RegExp(`\\b${name}\\b`);
    if (said.test(message)) return name;
  }
  return undefined;
}

/** `choices[0].message`: content as a string or an array of text parts, the refusal, and the rest. */
export function readCompletion(body: unknown): Completion {
  const root = isObject(body) ? body : {};
  const choice = Array.isArray(root.choices) && isObject(root.choices[0]) ? root.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const usage = isObject(root.usage) ? root.usage : {};
  const tokens =
    typeof usage.total_tokens === 'number'
      ? usage.total_tokens
      : typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
        ? usage.prompt_tokens + usage.completion_tokens
        : undefined;
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    content: readContent(message.content),
    finishReason: str(choice.finish_reason),
    refusal: str(message.refusal),
    model: str(root.model),
    fingerprint: str(root.system_fingerprint),
    tokens,
  };
}

function readContent(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content
    .map((part) => (typeof part === 'string' ? part : isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean);
  return parts.length ? parts.join('') : undefined;
}

/** A judge's quota is spent: a 429 that no wait will cure. */
export function quotaSpent(status: number, body: unknown): boolean {
  const envelope = isObject(body) && isObject(body.error) ? body.error : {};
  return status === 429 && (envelope.code === 'insufficient_quota' || envelope.type === 'insufficient_quota');
}

/** The judge's error responses as advice about the judge, never about the service's key. */
export function explainJudgeError(e: ExplainInput): ApiError {
  const said = e.envelope?.message
    ? ` It said: ${clip(e.envelope.message, 300)}`
    : e.excerpt
      ? ` Body: ${e.excerpt}`
      : '';
  const code = e.envelope?.code;
  const at = `${e.method} ${e.route}`;
  const advice: Record<number, [string, ApiError['kind']]> = {
    401: [`the judge refused its key (401 on ${at}): check the variable named by 'api-key-env'.`, 'unauthorized'],
    403: [`the judge refused the request (403 on ${at}): the key may not use this model or endpoint.`, 'forbidden'],
    404: [`the judge's endpoint or model was not found (404 on ${at}): check 'url' and 'model'.`, 'not_found'],
  };
  if (quotaSpent(e.status, e.body)) {
    return new ApiError(
      `the judge's quota is spent (429 insufficient_quota on ${at}).${said}`,
      'client',
      429,
      'insufficient_quota',
      e.body,
    );
  }
  const [text, kind] = advice[e.status] ?? [
    `the judge answered ${e.status}${code ? ` ${code}` : ''} on ${at}.`,
    e.status >= 500 ? 'server' : 'client',
  ];
  return new ApiError(`${text}${said}`, kind, e.status, code, e.body);
}
