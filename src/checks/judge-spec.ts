// Who grades `llm-rubric` and `factuality`: an OpenAI-compatible chat-completions endpoint, or a
// grader Claw on the same service. Read from the checks file's `judge:` block (or a check's own);
// the key and any `{env: NAME}` header are read from the environment then, and masked.

export interface EndpointJudgeSpec {
  kind: 'endpoint';
  /** The base: requests go to `{url}/chat/completions`. https, or http to loopback only. */
  url: string;
  model: string;
  /** Read from the variable `apiKeyEnv` names; empty when the endpoint takes none. */
  apiKey: string;
  apiKeyEnv?: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  temperature: number;
  seed: number;
  maxTokens: number;
  /** Per request to the judge. */
  timeoutMs: number;
  /** Values read from the environment (the key, `{env}` headers): masked, never printed. */
  secrets: string[];
  /** For promptfoo's `similar` and `answer-relevance`: the model asked at `{url}/embeddings`. */
  embeddingModel?: string;
  /** For promptfoo's `moderation`: the model asked at `{url}/moderations`. */
  moderationModel?: string;
}

export interface ClawJudgeSpec {
  kind: 'claw';
  clawId: string;
}

export type JudgeSpec = EndpointJudgeSpec | ClawJudgeSpec;

/**
 * What makes two judges the same judge, for the cache key and to build each once: the endpoint,
 * model and parameters, or the grader Claw. Never a secret: header names, not their values.
 */
export function judgeIdentity(spec: JudgeSpec): string {
  if (spec.kind === 'claw') return JSON.stringify({ claw: spec.clawId });
  const { url, model, query, temperature, seed, maxTokens, embeddingModel, moderationModel } = spec;
  const headers = Object.keys(spec.headers).sort();
  const others = { ...(embeddingModel ? { embeddingModel } : {}), ...(moderationModel ? { moderationModel } : {}) };
  return JSON.stringify({ url, model, query, temperature, seed, maxTokens, headers, ...others });
}

/** How the judge is named in the log and the summary. */
export function describeJudge(spec: JudgeSpec): string {
  return spec.kind === 'claw' ? `grader Claw ${spec.clawId}` : `${spec.model} at ${spec.url}`;
}

/** Every secret the checks' judges hold, for the runner's mask. */
export function judgeSecrets(specs: JudgeSpec[]): string[] {
  return specs.flatMap((s) => (s.kind === 'endpoint' ? s.secrets : []));
}
