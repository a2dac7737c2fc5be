// The `judge:` block of a checks file (top level, or a check's own): a grader Claw, or an
// OpenAI-compatible endpoint whose key and `{env}` headers are read from the environment now, so
// an unset variable is a mistake in the file, named with its line, before any request.
import { isMap } from 'yaml';
import { type Entry, YamlFile } from '../config/yaml-file.js';
import { ID_EXPECTED, isValidId } from '../shared/identifiers.js';
import { readSecureUrl, withoutUserinfo } from '../shared/url.js';
import { forkRefusal } from '../config/fork.js';
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

/**
 * Why a file that may come from a fork cannot read a secret from the environment for its judge: it
 * names the address too, so it would choose both the secret (any variable of the step: a key, the
 * GitHub token, the runner's own) and where it goes.
 */
export function forkSecret(event: string): string {
  return forkRefusal(
    event,
    'the file would choose both the secret and the address it goes to: grade with a grader Claw (judge: {claw: …})',
  );
}

/**
 * A `judge:` block: a grader Claw, or an endpoint whose key is read from the environment now.
 * `forkEvent` (the files may be a fork's): the block may read nothing from the environment.
 */
export function readJudge(file: YamlFile, entry: Entry, env: NodeJS.ProcessEnv, forkEvent?: string): JudgeSpec {
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
  const written = file.text(urlEntry, 'the base URL of the endpoint');
  const read = readSecureUrl(written);
  // Never echo a password written into the address.
  if ('expected' in read)
    file.failValue(urlEntry, `${read.expected}; requests go to {url}/chat/completions`, withoutUserinfo(written));
  const url = `${read.url.origin}${read.url.pathname.replace(/\/+$/, '')}`;
  const secrets: string[] = [];
  const keyEntry = fields.get('api-key-env');
  let apiKey = '';
  if (keyEntry) {
    if (forkEvent)
      file.fail(keyEntry.pair, `'api-key-env' reads a secret from the environment: ${forkSecret(forkEvent)}`);
    const name = file.setVariable(keyEntry, file.text(keyEntry, 'the name of an environment variable'), env);
    apiKey = (env[name] ?? '').trim();
    // It goes in a header: a key no request could carry is found now, before any write.
    const problem = headerValueProblem(`Bearer ${apiKey}`) ?? (/\s/.test(apiKey) ? 'holds a space' : undefined);
    if (problem) {
      file.fail(
        keyEntry.value,
        `'api-key-env' names ${name}, whose value ${problem}: expected a key on one line, without spaces`,
      );
    }
    secrets.push(apiKey);
  }
  const headers = fields.get('headers')
    ? readHeaders(file, fields.get('headers')!, env, forkEvent)
    : { values: {}, secrets: [] };
  secrets.push(...headers.secrets);
  // A fork's file never chooses where the Claw's replies go (nor what headers carry them): a
  // runner inside a private network would send them wherever it says.
  if (forkEvent) {
    const chooser = fields.get('headers') ?? urlEntry;
    file.fail(
      chooser.pair,
      `'${chooser.key}' chooses where the replies go: ${forkRefusal(forkEvent, 'use a grader Claw (judge: {claw: <id>})')}`,
    );
  }
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

/** Header names as HTTP defines them (a token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What keeps a value out of an HTTP header (as Node refuses it), or undefined. */
export function headerValueProblem(value: string): string | undefined {
  if (/[\r\n]/.test(value)) return 'holds a line break';
  if (/[^\t\x20-\x7e\x80-\xff]/.test(value))
    return 'holds a character no header can carry (a control character, or one past Latin-1)';
  return undefined;
}

/**
 * `headers`: names and values checked now, as a request would send them, so a value no request
 * could carry (a secret with a trailing newline) is bad input before the first write. A value from
 * the environment is never echoed: the message names the header and the variable.
 */
function readHeaders(
  file: YamlFile,
  entry: Entry,
  env: NodeJS.ProcessEnv,
  forkEvent: string | undefined,
): { values: Record<string, string>; secrets: string[] } {
  const values: Record<string, string> = {};
  const secrets: string[] = [];
  for (const item of file.entries(entry.value, "'headers'")) {
    if (!HEADER_NAME.test(item.key)) {
      file.fail(
        item.pair,
        `header ${JSON.stringify(item.key)} is not a header name: expected letters, digits and '-', such as api-key`,
      );
    }
    if (isMap(item.value)) {
      if (forkEvent)
        file.fail(item.pair, `header '${item.key}' reads a secret from the environment: ${forkSecret(forkEvent)}`);
      const name = file.envName(item, env);
      const value = env[name] ?? '';
      const problem = headerValueProblem(value);
      if (problem) {
        file.fail(
          item.value,
          `header '${item.key}' reads ${name}, whose value ${problem}: expected one line of text (a secret stored with a trailing newline, say: store it without one)`,
        );
      }
      values[item.key] = value;
      secrets.push(value);
      continue;
    }
    const value = file.text(item, 'text, or {env: NAME} for a secret', { empty: true });
    const problem = headerValueProblem(value);
    if (problem) file.failValue(item, `a header value on one line (this one ${problem})`);
    values[item.key] = value;
  }
  return { values, secrets };
}
