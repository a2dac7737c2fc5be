// The grader of a promptfoo config's model-graded assertions (`options.provider`, a test's or
// defaultTest's, or an assertion's `provider`), as promptfoo reads it, mapped to the judge:
// `openai:chat:<model>`, `openai:<model>`, or `{id, config: {apiBaseUrl | apiHost, apiKey |
// apiKeyEnvar, temperature, max_tokens, seed, headers}}`, with OPENAI_API_KEY and
// OPENAI_BASE_URL / OPENAI_API_BASE_URL / OPENAI_API_HOST read from the environment as promptfoo
// reads them. Every key read is a secret of the run. Other providers are refused by name: the
// judge speaks the OpenAI chat-completions API only.
import { ACTION_WORDS, type Words } from '../../shared/words.js';
import { readSecureUrl } from '../../shared/url.js';
import { forkRefusal } from '../../config/fork.js';
import { DEFAULT_JUDGE_TIMEOUT_MS, forkSecret, HEADER_NAME, headerValueProblem } from '../judge-file.js';
import type { EndpointJudgeSpec } from '../judge-spec.js';
import { type Obj, isObj, show } from './located.js';

/** promptfoo 0.123's grader when none is named and OPENAI_API_KEY is set. */
export const DEFAULT_GRADER_MODEL = 'gpt-5.6-sol';
const OPENAI_BASE = 'https://api.openai.com/v1';

const CONFIG_KEYS = [
  'apiBaseUrl',
  'apiHost',
  'apiKey',
  'apiKeyEnvar',
  'temperature',
  'max_tokens',
  'seed',
  'headers',
  'organization',
];

export type GraderRead = { spec: EndpointJudgeSpec; ignored?: string[] } | { problem: string; key?: string };

/** What a grader is for: chat answers, embeddings (`similar`, `answer-relevance`), moderation. */
export type GraderKind = 'text' | 'embedding' | 'moderation';

/** promptfoo 0.123's default models when none is named. */
const DEFAULT_MODELS: Record<GraderKind, string> = {
  text: DEFAULT_GRADER_MODEL,
  embedding: 'text-embedding-3-large',
  moderation: 'omni-moderation-latest',
};
const PREFIX: Record<GraderKind, string> = {
  text: 'openai:chat',
  embedding: 'openai:embedding',
  moderation: 'openai:moderation',
};

/**
 * The judge for `provider` (undefined: promptfoo's default grader). `problem` says what to write
 * instead; `key` names the part of the provider at fault. `forkEvent` (the files may be a fork's): a key
 * from the environment goes only to an address the environment names too, never to the file's.
 */
export function readGrader(
  provider: unknown,
  env: NodeJS.ProcessEnv,
  words: Words = ACTION_WORDS,
  forkEvent?: string,
  kind: GraderKind = 'text',
): GraderRead {
  let id: unknown = provider;
  let config: Obj = {};
  if (provider === undefined || provider === null) {
    if (!env.OPENAI_API_KEY?.trim()) {
      return {
        problem: `a model-graded assertion needs a grader: set OPENAI_API_KEY (promptfoo's default grader, ${DEFAULT_MODELS[kind]}), or name one with defaultTest.options.provider, such as ${PREFIX[kind]}:${kind === 'text' ? 'gpt-4.1-mini-2025-04-14' : DEFAULT_MODELS[kind]}`,
      };
    }
    id = `${PREFIX[kind]}:${DEFAULT_MODELS[kind]}`;
  } else if (isObj(provider)) {
    // promptfoo's provider by purpose: {text: …, embedding: …}.
    if (!('id' in provider) && ['text', 'embedding', 'moderation', 'classification'].some((k) => k in provider)) {
      if (!(kind in provider))
        return {
          problem: `the grader names no '${kind}' provider: expected ${kind}: ${PREFIX[kind]}:<model> beside the others`,
        };
      return readGrader(provider[kind], env, words, forkEvent, kind);
    }
    const unknown = Object.keys(provider).filter((k) => !['id', 'config', 'label'].includes(k));
    if (unknown.length)
      return {
        problem: `the grader has ${unknown.map((k) => `'${k}'`).join(', ')}: expected 'id' and 'config'`,
        key: unknown[0],
      };
    id = provider.id;
    if (provider.config !== undefined) {
      if (!isObj(provider.config)) return { problem: "the grader's 'config' is not a mapping", key: 'config' };
      config = provider.config;
    }
  }
  if (typeof id !== 'string')
    return { problem: `the grader is ${show(id)}: expected a provider id such as openai:chat:gpt-4.1-mini-2025-04-14` };
  const model = openAiModel(id, kind);
  if ('problem' in model) return model;
  const read = endpoint(model.model, config, env, words, forkEvent);
  if ('problem' in read) return read;
  if (kind === 'embedding') read.spec.embeddingModel = model.model;
  if (kind === 'moderation') read.spec.moderationModel = model.model;
  // Options of promptfoo's own provider call (response_format, top_p, …): they steer a model's
  // wording, not which model grades, so they are ignored, named, rather than the config refused.
  const ignored = Object.keys(config)
    .filter((k) => !CONFIG_KEYS.includes(k))
    .map((k) => `the grader's config.${k} (the judge sends its own request)`);
  return ignored.length ? { ...read, ignored } : read;
}

function openAiModel(id: string, kind: GraderKind): { model: string } | { problem: string } {
  const parts = id.split(':');
  if (kind !== 'text') {
    const names = kind === 'embedding' ? ['embedding', 'embeddings'] : ['moderation'];
    if (parts[0] === 'openai' && names.includes(parts[1] ?? '') && parts.length <= 3)
      return { model: parts[2] || DEFAULT_MODELS[kind] };
    // As promptfoo reads openai:text-embedding-3-small: an embedding model by its name.
    if (parts[0] === 'openai' && parts.length === 2 && parts[1].includes(kind)) return { model: parts[1] };
    return {
      problem: `the grader is ${show(id)}, which is not an OpenAI-compatible ${kind} model: expected ${PREFIX[kind]}:<model> (any OpenAI-compatible server: {id: ${PREFIX[kind]}:<model>, config: {apiBaseUrl: https://…/v1}}), or {text: …, ${kind}: …}`,
    };
  }
  if (parts[0] === 'openai') {
    if (parts.length === 3 && parts[1] === 'chat' && parts[2]) return { model: parts[2] };
    if (
      parts.length === 2 &&
      parts[1] &&
      !['chat', 'responses', 'completion', 'embedding', 'assistant'].includes(parts[1])
    ) {
      return { model: parts[1] };
    }
    if (parts[1] === 'responses' || parts[1] === 'completion' || parts[1] === 'assistant' || parts[1] === 'embedding') {
      return {
        problem: `the grader is ${show(id)}: the judge speaks the chat-completions API only: expected openai:chat:<model>`,
      };
    }
  }
  return {
    problem: `the grader is ${show(id)}, which is not an OpenAI-compatible chat model: expected openai:chat:<model> (any OpenAI-compatible server: {id: openai:chat:<model>, config: {apiBaseUrl: https://…/v1}})`,
  };
}

/** A config's text value, or undefined for anything else. */
const textOf =
  (config: Obj) =>
  (key: string): string | undefined =>
    typeof config[key] === 'string' ? (config[key] as string) : undefined;

/** What a fork's file may not set in a grader's config: a secret read from the environment, or where the replies go. */
function forkProblem(config: Obj, env: NodeJS.ProcessEnv, forkEvent: string): string | undefined {
  const text = textOf(config);
  if (text('apiKeyEnvar'))
    return `the grader's 'apiKeyEnvar' reads a secret from the environment: ${forkSecret(forkEvent)}`;
  if (!text('apiKey') && (text('apiHost') || text('apiBaseUrl')) && env.OPENAI_API_KEY?.trim()) {
    return `the grader's ${text('apiHost') ? "'apiHost'" : "'apiBaseUrl'"} would be sent OPENAI_API_KEY from the environment: ${forkSecret(forkEvent)}`;
  }
  // A fork's file never chooses where the replies go: the workflow's environment may name an address.
  const chooser = ['apiHost', 'apiBaseUrl', 'headers'].find((k) => config[k] !== undefined);
  if (chooser) {
    return `the grader's '${chooser}' chooses where the replies go: ${forkRefusal(forkEvent, 'name the address in the environment (OPENAI_BASE_URL)')}`;
  }
  return undefined;
}

/** The grader's headers, each checked as a request would send it; a problem, said, when one cannot be sent. */
function graderHeaders(value: unknown): Record<string, string> | string {
  const headers: Record<string, string> = {};
  if (value === undefined) return headers;
  if (!isObj(value)) return "the grader's headers are not a mapping of names to text";
  for (const [name, header] of Object.entries(value)) {
    // Checked as a request would send it, so a header no request can carry fails before any write.
    const problem = HEADER_NAME.test(name) ? headerValueProblem(String(header)) : 'is not a header name';
    if (problem) return `the grader's header ${JSON.stringify(name)} ${problem}`;
    headers[name] = String(header);
  }
  return headers;
}

function endpoint(
  model: string,
  config: Obj,
  env: NodeJS.ProcessEnv,
  words: Words,
  forkEvent: string | undefined,
): GraderRead {
  const text = textOf(config);
  const refused = forkEvent ? forkProblem(config, env, forkEvent) : undefined;
  if (refused) return { problem: refused, key: 'config' };
  const base =
    (text('apiHost') && `https://${text('apiHost')}/v1`) ||
    text('apiBaseUrl') ||
    (env.OPENAI_API_HOST && `https://${env.OPENAI_API_HOST}/v1`) ||
    env.OPENAI_API_BASE_URL ||
    env.OPENAI_BASE_URL ||
    OPENAI_BASE;
  const read = readSecureUrl(base);
  if ('expected' in read)
    return { problem: `the grader's base URL is ${show(base)}: expected ${read.expected}`, key: 'config' };
  const url = `${read.url.origin}${read.url.pathname.replace(/\/+$/, '')}`;
  let apiKey = text('apiKey') ?? '';
  const envar = text('apiKeyEnvar');
  if (!apiKey && envar) apiKey = env[envar] ?? '';
  if (!apiKey) apiKey = env.OPENAI_API_KEY ?? '';
  apiKey = apiKey.trim();
  if (!apiKey && url === OPENAI_BASE) {
    return {
      problem: `the grader ${model} has no key: set ${envar ?? 'OPENAI_API_KEY'} in ${words.environment}`,
    };
  }
  const headers = graderHeaders(config.headers);
  if (typeof headers === 'string') return { problem: headers, key: 'config' };
  if (text('organization')) headers['OpenAI-Organization'] = text('organization')!;
  const number = (key: string, fallback: number): number =>
    typeof config[key] === 'number' ? (config[key] as number) : fallback;
  return {
    spec: {
      kind: 'endpoint',
      url,
      model,
      apiKey,
      apiKeyEnv: envar ?? (text('apiKey') ? undefined : 'OPENAI_API_KEY'),
      headers,
      query: {},
      temperature: number('temperature', 0),
      seed: number('seed', 0),
      maxTokens: number('max_tokens', 512),
      timeoutMs: DEFAULT_JUDGE_TIMEOUT_MS,
      // The key is a secret of the run: its redactor hides it everywhere.
      secrets: apiKey ? [apiKey] : [],
    },
  };
}
