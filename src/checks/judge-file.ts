// The `judge:` block of a checks file (top level, or a check's own): a grader Claw, or an
// OpenAI-compatible endpoint whose key and `{env}` headers are read from the environment now, so
// an unset variable is a mistake in the file, named with its line, before any request.
import { type Entry, YamlFile } from '../config/yaml-file.js';
import { ID_EXPECTED, isValidId } from '../identifiers.js';
import { readSecureUrl } from '../url.js';
import type { JudgeSpec } from './judge-spec.js';

const ENDPOINT_KEYS = [
  'url',
  'model',
  'api-key-env',
  'headers',
  'query',
  'temperature',
  'seed',
  'max-tokens',
  'timeout',
] as const;
export const JUDGE_EXPECTED = "either 'claw' (a grader Claw) or 'url' and 'model' (an OpenAI-compatible endpoint)";
export const DEFAULT_JUDGE_TIMEOUT_MS = 30_000;

/** A `judge:` block: a grader Claw, or an endpoint whose key is read from the environment now. */
export function readJudge(file: YamlFile, entry: Entry, env: NodeJS.ProcessEnv): JudgeSpec {
  const fields = new Map(file.entries(entry.value, "'judge'", ['claw', ...ENDPOINT_KEYS]).map((e) => [e.key, e]));
  const claw = fields.get('claw');
  if (claw) {
    if (fields.size > 1) file.fail(entry.value, `'judge' has 'claw' beside endpoint keys: expected ${JUDGE_EXPECTED}`);
    const clawId = file.text(claw, `a Claw id: ${ID_EXPECTED}`);
    if (!isValidId(clawId)) file.failValue(claw, ID_EXPECTED);
    return { kind: 'claw', clawId };
  }
  const urlEntry = fields.get('url');
  const modelEntry = fields.get('model');
  if (!urlEntry || !modelEntry)
    file.fail(entry.value ?? entry.pair, `'judge' is incomplete: expected ${JUDGE_EXPECTED}`);
  const read = readSecureUrl(file.text(urlEntry, 'the base URL of the endpoint'));
  if ('expected' in read) file.failValue(urlEntry, `${read.expected}; requests go to {url}/chat/completions`);
  const url = `${read.url.origin}${read.url.pathname.replace(/\/+$/, '')}`;
  const secrets: string[] = [];
  const keyEntry = fields.get('api-key-env');
  let apiKey = '';
  if (keyEntry) {
    const name = file.setVariable(keyEntry, file.text(keyEntry, 'the name of an environment variable'), env);
    apiKey = (env[name] ?? '').trim();
    secrets.push(apiKey);
  }
  const headers = fields.get('headers') ? file.stringMap(fields.get('headers')!, env) : { values: {}, secrets: [] };
  secrets.push(...headers.secrets);
  const query = fields.get('query') ? file.stringMap(fields.get('query')!).values : {};
  const num = (key: string, fallback: number, min: number, max: number, integer = false): number => {
    const e = fields.get(key);
    return e ? file.number(e, min, max, { integer }) : fallback;
  };
  const timeout = fields.get('timeout');
  return {
    kind: 'endpoint',
    url,
    model: file.text(modelEntry, 'a model name; pin a dated one, such as gpt-4.1-mini-2025-04-14'),
    apiKey,
    apiKeyEnv: keyEntry ? file.text(keyEntry, '') : undefined,
    headers: headers.values,
    query,
    temperature: num('temperature', 0, 0, 2),
    seed: num('seed', 0, 0, Number.MAX_SAFE_INTEGER, true),
    maxTokens: num('max-tokens', 512, 16, 100_000, true),
    timeoutMs: timeout ? file.duration(timeout) : DEFAULT_JUDGE_TIMEOUT_MS,
    secrets: secrets.filter(Boolean),
  };
}
