// Where a promptfoo config's tests and prompts come from besides the config itself: `file://`
// YAML, JSON and JSONL test files, CSV with promptfoo's special columns (`__expected…`,
// `__description`, `__prefix`, `__suffix`, `__metric`, `__threshold`, `__metadata:…`,
// `__config:__expectedN:threshold`), and text prompt files (prompts separated by `---` lines).
// Each value is placed at its file and line (a CSV row at the line it starts on).
import { parse as parseCsv } from 'csv-parse/sync';
import { ASSERTION_TYPES } from '../assertions.js';
import { YamlFile, parseYamlValue } from '../../config/yaml-file.js';
import { ConfigFiles, type FileRef } from './files.js';
import { type Obj, type Places, isObj, show } from './located.js';
import type { PromptfooPrompt } from './case.js';
import { chatMessages, lineOfMessage, messageProblem, userTurns } from './chat.js';

export interface Sources {
  places: Places;
  files: ConfigFiles;
}

/** A file a reference names, read, or the error naming the reference's own line. */
function load(
  ref: string,
  holder: object,
  key: string | undefined,
  src: Sources,
): { file: FileRef; text: string; name: string } {
  const file = src.files.resolve(ref);
  if ('problem' in file) src.places.fail(holder, key, `${show(ref)} cannot be used: ${file.problem}`);
  const read = src.files.read(file as FileRef);
  if ('problem' in read) src.places.fail(holder, key, `${show(ref)} cannot be read: ${read.problem}`);
  return { file: file as FileRef, text: (read as { text: string }).text, name: src.files.display(file as FileRef) };
}

/** `tests:` as promptfoo takes it: a list of tests and file references, or one reference. */
export function readTests(value: unknown, holder: Obj, src: Sources): unknown[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return testsFromFile(value, holder, 'tests', src);
  if (!Array.isArray(value))
    src.places.fail(
      holder,
      'tests',
      "'tests' is not a list: expected a list of tests, or file://tests.yaml (or .json, .jsonl, .csv)",
    );
  return (value as unknown[]).flatMap((item) => {
    if (typeof item === 'string') return testsFromFile(item, value as object, undefined, src, holder);
    if (
      isObj(item) &&
      typeof item.path === 'string' &&
      Object.keys(item).every((k) => k === 'path' || k === 'config')
    ) {
      if (item.config !== undefined)
        src.places.fail(
          item,
          'config',
          "a tests file's 'config' is for generator scripts, which this project does not run: expected a YAML, JSON, JSONL or CSV file",
        );
      return testsFromFile(item.path, item, 'path', src);
    }
    return [item];
  });
}

function testsFromFile(
  ref: string,
  holder: object,
  key: string | undefined,
  src: Sources,
  fallbackHolder?: object,
): unknown[] {
  const at = src.places.where(holder, key) ? holder : (fallbackHolder ?? holder);
  if (!ConfigFiles.isRef(ref) && !/\.(ya?ml|json|jsonl|csv)$/i.test(ref)) {
    src.places.fail(
      at,
      key,
      `${show(ref)} is not a test: expected a mapping, or file://tests.yaml (or .json, .jsonl, .csv)`,
    );
  }
  const path = ConfigFiles.isRef(ref) ? ref : `file://${ref}`;
  if (/\.(js|cjs|mjs|ts|py)(:.*)?$/.test(path)) {
    src.places.fail(
      at,
      key,
      `${show(ref)} generates tests with a script, which this project does not run: expected a YAML, JSON, JSONL or CSV file`,
    );
  }
  if (/\.xlsx?(#.*)?$/.test(path) || /^file:\/\/(https?|huggingface|az):/.test(path)) {
    src.places.fail(
      at,
      key,
      `${show(ref)} is not a file this project reads: expected a YAML, JSON, JSONL or CSV file in the repository`,
    );
  }
  const { text, name } = load(path, at, key, src);
  if (/\.csv$/i.test(path)) return testsFromCsv(text, name, src);
  if (/\.jsonl$/i.test(path)) {
    return text.split(/\r?\n/).flatMap((line, i) => {
      if (!line.trim()) return [];
      try {
        return [src.places.placeAll(JSON.parse(line) as unknown, name, i + 1)];
      } catch (err) {
        return src.places.fail(undefined, undefined, `${name}, line ${i + 1}: not JSON (${(err as Error).message})`);
      }
    });
  }
  const yaml = YamlFile.parse(name, text, 'tests file');
  const tests = src.places.fromYaml(yaml);
  return Array.isArray(tests) ? tests : [tests];
}

/** CSV tests: one test per row, its columns vars but for promptfoo's special ones. */
function testsFromCsv(text: string, name: string, src: Sources): Obj[] {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parseCsv(text, { columns: true, bom: true, info: true, skip_empty_lines: true }) as typeof records;
  } catch (err) {
    const e = err as Error & { lines?: number };
    return src.places.fail(
      undefined,
      undefined,
      `${name}${e.lines ? `, line ${e.lines}` : ''}: not valid CSV (${e.message.replace(/^Invalid Record Length: /, '')})`,
    );
  }
  return records.map(({ record, info }, index) => {
    const line = info.lines;
    const fail = (message: string): never => src.places.fail(undefined, undefined, `${name}, line ${line}: ${message}`);
    const test: Obj = { vars: {}, assert: [], options: {} };
    const vars = test.vars as Obj;
    const asserts = test.assert as Obj[];
    const options = test.options as Obj;
    const metadata: Obj = {};
    const configs: Record<number, Obj> = {};
    let metric: string | undefined;
    for (const [rawKey, value] of Object.entries(record)) {
      const key = rawKey.trim();
      if (key.startsWith('__expected')) {
        if (value.trim() !== '') asserts.push(assertionFromString(value.trim()));
      } else if (key === '__prefix') options.prefix = value;
      else if (key === '__suffix') options.suffix = value;
      else if (key === '__description') {
        if (value) test.description = value;
      } else if (key === '__metric') metric = value;
      else if (key === '__threshold') {
        if (value.trim() !== '') {
          const n = Number(value);
          if (!Number.isFinite(n)) fail(`'__threshold' is ${show(value)}: expected a number`);
          test.threshold = n;
        }
      } else if (key.startsWith('__metadata:')) {
        const name = key.slice('__metadata:'.length);
        if (value.trim() === '') continue;
        if (name.endsWith('[]'))
          metadata[name.slice(0, -2)] = value.split(/(?<!\\),/).map((v) => v.trim().replace(/\\,/g, ','));
        else metadata[name] = value;
      } else if (key.startsWith('__config:')) {
        const match = /^__config:__expected(\d*):threshold$/.exec(key);
        if (!match) fail(`column '${key}': expected __config:__expected:threshold or __config:__expected<N>:threshold`);
        const n = Number(value);
        if (!Number.isFinite(n)) fail(`'${key}' is ${show(value)}: expected a number`);
        const slot = match![1] === '' ? 0 : Number(match![1]) - 1;
        configs[slot] = { threshold: n };
      } else if (key === '__providerOutput') {
        fail("'__providerOutput' supplies a recorded output; here the Claw answers: remove the column");
      } else if (key.startsWith('__')) {
        fail(
          `unknown column '${key}': expected a var, or one of __expected, __description, __prefix, __suffix, __metric, __threshold, __metadata:<key>, __config:__expected<N>:threshold`,
        );
      } else vars[key] = value;
    }
    asserts.forEach((a, i) => {
      if (metric !== undefined) a.metric = metric;
      if (configs[i]) {
        Object.assign(a, configs[i]);
        Object.assign(metadata, configs[i]);
      }
    });
    if (!test.description) test.description = `Row #${index + 1}`;
    if (Object.keys(metadata).length) test.metadata = metadata;
    return src.places.placeAll(test, name, line) as Obj;
  });
}

/** The assertion types the shorthand knows (promptfoo's list, less those it cannot be). */
const SHORTHAND_TYPES: readonly string[] = [
  ...ASSERTION_TYPES,
  'model-graded-factuality',
  'javascript',
  'python',
  'similar',
  'classifier',
  'moderation',
  'cost',
  'model-graded-closedqa',
  'answer-relevance',
  'context-faithfulness',
  'context-recall',
  'context-relevance',
  'perplexity',
  'perplexity-score',
  'rouge-n',
  'bleu',
  'gleu',
  'meteor',
  'webhook',
  'is-sql',
  'contains-sql',
  'is-xml',
  'contains-xml',
  'is-html',
  'contains-html',
  'g-eval',
  'pi',
  'finish-reason',
];
const SHORTHAND = new RegExp(
  `^(not-)?(${SHORTHAND_TYPES.map((t) => t.replace(/-/g, '\\-')).join('|')})(?:\\((\\d+(?:\\.\\d+)?)\\))?(?::([\\s\\S]*))?$`,
);
const WITH_THRESHOLD = ['latency', 'levenshtein', 'starts-with', 'similar', 'cost', 'rouge-n', 'perplexity'];

/** promptfoo's `__expected` shorthand: `contains:x`, `grade:…`, `javascript:…`, `levenshtein(3):x`, or equals. */
export function assertionFromString(expected: string): Obj {
  for (const prefix of ['javascript:', 'fn:', 'eval:']) {
    if (expected.startsWith(prefix)) return { type: 'javascript', value: expected.slice(prefix.length).trim() };
  }
  if (/^file:\/\/.*\.(js|cjs|mjs|ts)(:\w+)?$/.test(expected)) return { type: 'javascript', value: expected };
  if (expected.startsWith('grade:')) return { type: 'llm-rubric', value: expected.slice(6) };
  if (expected.startsWith('llm-rubric:')) return { type: 'llm-rubric', value: expected.slice(11) };
  if (expected.startsWith('python:')) return { type: 'python', value: expected.slice(7).trim() };
  const m = SHORTHAND.exec(expected);
  if (m) {
    const [, not, type, threshold, value] = m;
    const full = `${not ?? ''}${type}`;
    if (type.endsWith('-any') || type.endsWith('-all'))
      return { type: full, value: value === undefined ? value : value };
    if (type === 'is-json' || type === 'contains-json')
      return value === undefined ? { type: full } : { type: full, value };
    const out: Obj = { type: full, ...(value === undefined ? {} : { value: value.trim() }) };
    if (WITH_THRESHOLD.includes(type)) out.threshold = threshold === undefined ? 0.75 : Number(threshold);
    else if (threshold !== undefined) out.threshold = Number(threshold);
    return out;
  }
  return { type: 'equals', value: expected };
}

/**
 * `prompts:` as promptfoo takes them: text, `file://` text, Markdown, JSON, YAML and JSONL files
 * (the last three chat messages, chat.ts), `{id, label, raw}`, `{id: file://…, label}`, a map of
 * files to labels. A prompt's `config` (promptfoo's provider options) is ignored, named in `ignored`.
 */
export function readPrompts(value: unknown, holder: Obj, src: Sources, ignored: string[]): PromptfooPrompt[] {
  const fail: Fail = (at, key, message) => src.places.fail(at, key, message, src.places.where(holder, 'prompts'));
  if (value === undefined) {
    return fail(
      holder,
      undefined,
      "the config has no 'prompts': expected the messages to send, such as '{{question}}' (the Claw is the provider)",
    );
  }
  const items: PromptItem[] = [];
  if (typeof value === 'string') items.push({ item: value, at: holder, key: 'prompts' });
  else if (Array.isArray(value)) value.forEach((item) => items.push({ item, at: isObj(item) ? item : value }));
  else if (isObj(value))
    for (const [ref, label] of Object.entries(value))
      items.push({ item: ref, label: String(label), at: value, key: ref });
  else fail(holder, 'prompts', "'prompts' is not a list: expected a list of prompts");
  const prompts = items.flatMap((item) => readPromptItem(item, src, ignored, fail));
  if (prompts.length === 0) fail(holder, 'prompts', "'prompts' is empty: expected at least one prompt");
  return prompts;
}

/** A mistake in `prompts:`, at the value (and key) that is wrong. */
type Fail = (at: unknown, key: string | undefined, message: string) => never;

/** One entry of `prompts:`, with where it was written and the label a map gave it. */
interface PromptItem {
  item: unknown;
  label?: string;
  at: object;
  key?: string;
}

/** One entry of `prompts:`: text, `{id, label, raw}`, or a file reference. */
function readPromptItem(
  { item, label, at, key }: PromptItem,
  src: Sources,
  ignored: string[],
  fail: Fail,
): PromptfooPrompt[] {
  let raw: unknown = item;
  let ownLabel = label;
  let id: string | undefined;
  if (isObj(item)) {
    const extra = Object.keys(item).filter((k) => !['raw', 'label', 'id', 'config'].includes(k));
    if (extra.length)
      fail(item, extra[0], `unknown key '${extra[0]}' in a prompt: expected 'raw' or 'id', and 'label'`);
    if (item.config !== undefined) ignored.push("a prompt's config (it sets promptfoo's provider options)");
    raw = item.raw ?? item.id;
    ownLabel = typeof item.label === 'string' ? item.label : undefined;
    id = typeof item.id === 'string' ? item.id : undefined;
  }
  if (typeof raw !== 'string' || raw === '')
    return fail(at, key, `a prompt is ${show(raw)}: expected text, or file://prompt.txt`);
  if (!ConfigFiles.isRef(raw)) {
    const prompt = { raw, label: ownLabel ?? raw, ...(id === undefined ? {} : { id }) };
    return [
      checkChat(
        prompt,
        isObj(item) ? { at: item, key: item.raw === undefined ? 'id' : 'raw' } : { at, key },
        src,
        ignored,
      ),
    ];
  }
  // As promptfoo: a prompt read from a file keeps its label, not its id.
  const kind = promptFileKind(raw.replace(/:\w+$/, ''));
  if (kind === undefined) {
    const what = /\.(js|cjs|mjs|ts|py)(:\w+)?$/.test(raw)
      ? 'a prompt function, which this project does not run'
      : 'not a text, JSON or YAML file';
    return fail(
      at,
      key,
      `the prompt ${show(raw)} is ${what}: expected text, or file://prompt.txt (or .json chat messages)`,
    );
  }
  return readPromptFile(raw, kind, ownLabel, { at, key }, src, ignored);
}

type PromptFileKind = 'text' | 'markdown' | 'json' | 'yaml' | 'jsonl';

/** A prompt file's kind by its extension (none: text); undefined for any other extension. */
function promptFileKind(bare: string): PromptFileKind | undefined {
  return /\.(txt|j2|njk|jinja|jinja2|prompt)$/i.test(bare)
    ? 'text'
    : /\.md$/i.test(bare)
      ? 'markdown'
      : /\.json$/i.test(bare)
        ? 'json'
        : /\.ya?ml$/i.test(bare)
          ? 'yaml'
          : /\.jsonl$/i.test(bare)
            ? 'jsonl'
            : /\.\w+$/.test(bare)
              ? undefined
              : 'text';
}

/** A prompt file's prompts, as promptfoo reads each kind; labelled by the file's name or the given label. */
function readPromptFile(
  raw: string,
  kind: PromptFileKind,
  ownLabel: string | undefined,
  { at, key }: { at: object; key?: string },
  src: Sources,
  ignored: string[],
): PromptfooPrompt[] {
  const { text, name } = load(raw, at, key, src);
  const checked = (prompt: PromptfooPrompt, source: string): PromptfooPrompt =>
    checkChat(prompt, { at, key, file: name, text: source }, src, ignored);
  if (kind === 'json' || kind === 'yaml') {
    let contents = text;
    try {
      contents = JSON.stringify(kind === 'json' ? JSON.parse(text) : parseYamlValue(text));
    } catch {
      // As promptfoo: a file that does not parse is sent as its text.
    }
    const shown = kind === 'json' ? contents : contents.slice(0, 80);
    return [checked({ raw: contents, label: ownLabel || `${name}: ${shown}` }, text)];
  }
  if (kind === 'jsonl') {
    const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
    return lines.map((line) =>
      checked(
        {
          raw: line,
          label: lines.length > 1 ? (ownLabel ? `${ownLabel}: ${line}` : `${name}: ${line}`) : ownLabel || name,
        },
        line,
      ),
    );
  }
  if (kind === 'markdown') return [{ raw: text, label: ownLabel || `${name}: ${text.slice(0, 50)}...` }];
  const parts = text.split(/\r?\n/).reduce<string[][]>(
    (acc, line) => {
      if (line.trim() === '---') acc.push([]);
      else acc[acc.length - 1].push(line);
      return acc;
    },
    [[]],
  );
  return parts
    .map((lines) => lines.join('\n').trim())
    .filter(Boolean)
    .map((p) => ({ raw: p, label: ownLabel ? `${ownLabel}: ${name}: ${p}` : `${name}: ${p}` }));
}

/** A chat-format prompt's messages checked now: an assistant message refused at its line, a system one noted. */
function checkChat(
  prompt: PromptfooPrompt,
  where: { at: object; key?: string; file?: string; text?: string },
  src: Sources,
  ignored: string[],
): PromptfooPrompt {
  const messages = chatMessages(prompt.raw);
  if (!messages) return prompt;
  messages.forEach((m, i) => {
    const problem = messageProblem(m as Obj);
    if (problem) {
      const line = where.file && where.text ? lineOfMessage(where.text, i) : undefined;
      if (where.file && line !== undefined)
        src.places.fail(undefined, undefined, `${where.file}, line ${line}: the prompt ${problem}`);
      src.places.fail(where.at, where.key, `the prompt ${show(prompt.label)} ${problem}`);
    }
  });
  if (userTurns(messages).length === 0)
    src.places.fail(
      where.at,
      where.key,
      `the prompt ${show(prompt.label)} has no 'user' message: expected at least one, the message sent`,
    );
  if (messages.some((m) => (m as Obj).role !== 'user'))
    ignored.push("a chat prompt's system message (the Claw's own instructions play that part)");
  return prompt;
}
