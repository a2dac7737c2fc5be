// A YAML file the user keeps in the repository (checks, manifests), read with the `yaml` package so
// every mistake can name the file, the line and what was expected. Readers walk the parsed nodes
// with the helpers here; each refusal is one FileError, whose message is the whole `::error::` line.
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  type Document,
  Lexer,
  LineCounter,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
  type YAMLSeq,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  parse,
  parseDocument,
  visit,
} from 'yaml';
import { InputError } from '../shared/errors.js';
import { sentence } from '../shared/format.js';
import { placeProblem } from './place.js';
import { ParseError, parseDuration } from '../shared/parse.js';
import { ACTION_WORDS, type Words } from '../shared/words.js';

/** The most bytes a file of the user's may hold: far more than any checks file or manifest needs. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Flow collections (`[…]`, `{…}`) nested deeper than this are refused before the file is parsed:
 * the parser's time grows faster than the text with their depth (2 MiB of `[` took minutes).
 */
export const MAX_FLOW_DEPTH = 256;
/**
 * The deepest block nesting (indentation, or `- - - …` on one line) a YAML text may have: the
 * parser builds it by recursion, and about 900 levels overflowed the stack. Far past any real file.
 */
export const MAX_BLOCK_DEPTH = 256;

/**
 * The most tokens a YAML text may hold to be parsed: each value, key, indicator (`-`, `:`, `,`, a
 * bracket), run of spaces, comment and line break is one. The parser's document costs memory and
 * time by its tokens, not its bytes: 4 MiB of `[a,a,…]` or `- a` lines (2 million items) took 20 s
 * and 2.2 GB. Far past any checks file, manifest or config (500 checks of 40 lines are ~100,000).
 */
export const MAX_YAML_TOKENS = 250_000;

/** The lexer's tokens that stand for no text of the file (document, scalar and flow-end marks). */
const MARK_TOKENS = new Set(['\u0002', '\u0018', '\u001f']);

/** Where a text is past what the parser is given, and what was expected there. */
export interface YamlShapeProblem {
  /** The offset where the bound was passed. */
  offset: number;
  /** What the text is there: `nested [ ] or { } deeper than 256 levels`. */
  problem: string;
  expected: string;
}

const tooDeep = `nested [ ] or { } deeper than ${MAX_FLOW_DEPTH} levels`;
const tooDeepBlock = `nested deeper than ${MAX_BLOCK_DEPTH} block levels (indentation, or \`- - …\` on a line)`;
const tooMany = `has more than ${MAX_YAML_TOKENS.toLocaleString('en-US')} YAML tokens (values, keys, indicators, spaces and line breaks)`;

/**
 * Where `text` passes a bound of the parser, or undefined: flow collections (`[…]`, `{…}`) nested
 * deeper than MAX_FLOW_DEPTH, or more than MAX_YAML_TOKENS tokens. Read by the `yaml` package's
 * own lexer in one pass stopped at the bound, so a bracket in a quoted value or a comment counts as
 * it does for the parser, and the pass costs at most the bound's tokens; the document is built
 * only from a text within both bounds.
 */
export function yamlShapeProblem(text: string): YamlShapeProblem | undefined {
  let depth = 0;
  let offset = 0;
  let tokens = 0;
  const block = new BlockDepth();
  for (const token of new Lexer().lex(text)) {
    if (MARK_TOKENS.has(token)) continue;
    if (++tokens > MAX_YAML_TOKENS) {
      return { offset, problem: tooMany, expected: `at most ${MAX_YAML_TOKENS.toLocaleString('en-US')}` };
    }
    if (token === '[' || token === '{') {
      if (++depth > MAX_FLOW_DEPTH) return { offset, problem: `is ${tooDeep}`, expected: `at most ${MAX_FLOW_DEPTH}` };
    } else if (token === ']' || token === '}') depth = Math.max(0, depth - 1);
    if (!block.add(token, depth > 0)) {
      return { offset, problem: `is ${tooDeepBlock}`, expected: `at most ${MAX_BLOCK_DEPTH}` };
    }
    offset += token.length;
  }
  return undefined;
}

/**
 * The block nesting of a text, read token by token: the columns where each open block level's
 * content starts (a line's first value, and what follows a `-` or `?` on the same line), as
 * Python's tokenizer keeps indentation: a column further right opens a level, one further left
 * closes those past it. Each token is pushed and popped at most once: linear.
 */
class BlockDepth {
  private readonly columns: number[] = [];
  private column = 0;
  private lineStart = true;
  private afterIndicator = false;

  /** Reads `token` (inside a flow collection when `inFlow`); false once past MAX_BLOCK_DEPTH. */
  add(token: string, inFlow: boolean): boolean {
    const newline = token.lastIndexOf('\n');
    const blank = /^[ \t]*$/.test(token) || token.startsWith('#');
    let open = true;
    if (!blank && !inFlow && (this.lineStart || this.afterIndicator)) open = this.enter(this.column);
    if (!blank) this.afterIndicator = !inFlow && (token === '-' || token === '?');
    if (!blank || newline >= 0) this.lineStart = false;
    if (newline >= 0) {
      this.column = token.length - newline - 1;
      this.lineStart = newline === token.length - 1;
      if (this.lineStart) this.afterIndicator = false;
    } else this.column += token.length;
    return open;
  }

  private enter(column: number): boolean {
    while (this.columns.length > 0 && this.columns[this.columns.length - 1] > column) this.columns.pop();
    if (this.columns.length === 0 || this.columns[this.columns.length - 1] < column) this.columns.push(column);
    return this.columns.length <= MAX_BLOCK_DEPTH;
  }
}

/** The line (1-based) of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** A YAML value read from text (a file a config names), refused when past a bound of the parser. */
export function parseYamlValue(text: string): unknown {
  const shape = yamlShapeProblem(text);
  if (shape) throw new Error(`it ${shape.problem} by line ${lineAt(text, shape.offset)}: expected ${shape.expected}`);
  return parse(text) as unknown;
}

/** The most values a plain value (a schema) may expand to through its aliases. */
const MAX_PLAIN_VALUES = 10_000;
/**
 * The most values all of a file's plain values may expand to together: each is bounded alone, but
 * an anchor chain re-expanded by thousands of assertions once cost minutes on a 30 KB file.
 */
export const MAX_FILE_PLAIN_VALUES = 250_000;

/** A mistake in a user's file: its message names the file and the line. */
export class FileError extends InputError {
  override name = 'FileError';
}

/** Shows a value in an error: quoted, cut when long. */
function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** One entry of a mapping: its key, and the value's node (absent for `key:` with nothing after). */
export interface Entry {
  key: string;
  /** The pair, for the line of the key. */
  pair: Pair;
  value: Node | null;
}

export class YamlFile {
  private constructor(
    /** The path as the user wrote it, for messages. */
    readonly name: string,
    readonly doc: Document,
    private readonly lines: LineCounter,
    /** How messages name the folder and the environment for this file's user. */
    readonly words: Words,
  ) {}

  /** The values `plain` has built so far, over the whole file (bounded by MAX_FILE_PLAIN_VALUES). */
  private plainValues = 0;
  /** Each alias's anchored node, found in one pass over the document the first time one is read. */
  private aliasTargets: Map<Node, Node> | undefined;

  /**
   * The node an alias names: the last anchor of that name before it, as YAML defines. Found in one
   * pass for the whole file: the parser's own `resolve` walks the whole document for each alias.
   */
  private aliasTarget(alias: Node): Node | undefined {
    if (!this.aliasTargets) {
      const targets = new Map<Node, Node>();
      const anchors = new Map<string, Node>();
      visit(this.doc, {
        Node: (_key, node) => {
          if (isAlias(node)) {
            const target = anchors.get(node.source);
            if (target) targets.set(node, target);
          } else if (node.anchor) anchors.set(node.anchor, node);
        },
      });
      this.aliasTargets = targets;
    }
    return this.aliasTargets.get(alias);
  }

  /**
   * Reads and parses `path` (relative to `workspace`). A missing file or a syntax error is one
   * FileError; `what` says what the file is for ("checks file", "manifest").
   */
  static async read(path: string, workspace: string, what: string, words: Words = ACTION_WORDS): Promise<YamlFile> {
    return YamlFile.parse(path, await YamlFile.readText(path, workspace, what, words), what, words);
  }

  /** The text `read` parses, read by the same rules (in the workspace, a regular file, at most MAX_FILE_BYTES). */
  static async readText(path: string, workspace: string, what: string, words: Words = ACTION_WORDS): Promise<string> {
    const full = isAbsolute(path) ? path : resolve(workspace, path);
    const fail = (why: string): never => {
      throw new FileError(
        `The ${what} ${show(path)} could not be read (${why}): expected a YAML file, relative to ${words.folder}${words.missingFile}.`,
      );
    };
    let text = '';
    try {
      // A file the workspace holds (a pull request's, perhaps) stays in it: a link out of it
      // (/proc/self/environ, a runner's file), into .git, or a device (/dev/zero) is never read.
      const problem = placeProblem(full, workspace, words.folder);
      if (problem) fail(problem);
      // Looked at before it is opened: opening a FIFO would wait for a writer forever.
      const found = await stat(full);
      if (found.isDirectory()) fail('it is a folder');
      if (!found.isFile()) fail('it is not a regular file');
      if (found.size > MAX_FILE_BYTES) fail(`it is over ${MAX_FILE_BYTES / 1048576} MiB`);
      text = await readFile(full, 'utf8');
    } catch (err) {
      if (err instanceof FileError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      fail(code === 'ENOENT' ? `no such file in ${words.folder}` : code === 'EISDIR' ? 'it is a folder' : String(code));
    }
    return text;
  }

  static parse(name: string, text: string, what: string, words: Words = ACTION_WORDS): YamlFile {
    const shape = yamlShapeProblem(text);
    if (shape) {
      throw new FileError(
        `${name}, line ${lineAt(text, shape.offset)}: the ${what} ${shape.problem}: expected ${shape.expected}.`,
      );
    }
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const file = new YamlFile(name, doc, lines, words);
    const problem = doc.errors[0];
    if (problem) {
      const line = lines.linePos(problem.pos[0]).line;
      const message = problem.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new FileError(`${name}, line ${line}: the ${what} is not valid YAML: ${message}.`);
    }
    return file;
  }

  /** The line (1-based) a node starts on; the file's first line for a missing node. */
  line(node: Node | Pair | null | undefined): number {
    const range = node && ('range' in node ? node.range : isScalarKey(node) ? node.key.range : undefined);
    return range ? this.lines.linePos(range[0]).line : 1;
  }

  /** The one error for a value at fault: `file, line N: 'key' is "x": expected …`. */
  fail(at: Node | Pair | null | undefined, message: string): never {
    throw new FileError(sentence(`${this.name}, line ${this.line(at)}: ${message}`));
  }

  /** `'key' is "value": expected …`, at the value's line; `shown` replaces a value that must not be echoed. */
  failValue(entry: Entry, expected: string, shown?: string): never {
    if (isAlias(entry.value)) {
      this.fail(
        entry.value,
        `'${entry.key}' is the alias *${entry.value.source}: expected ${expected}, written out (aliases are read only inside a JSON Schema)`,
      );
    }
    const value = shown ?? (isScalar(entry.value) ? entry.value.value : entry.value ? entry.value.toJSON() : null);
    this.fail(entry.value ?? entry.pair, `'${entry.key}' is ${show(value)}: expected ${expected}`);
  }

  /** A mapping's entries, refusing keys not in `allowed` (when given) and keys that are not text. */
  entries(node: Node | null, where: string, allowed?: readonly string[]): Entry[] {
    if (!isMap(node)) this.fail(node, `${where} is not a mapping: expected keys and values`);
    return (node as YAMLMap).items.map((pair) => {
      const name = this.keyOf(pair, where);
      if (allowed && !allowed.includes(name)) {
        this.fail(pair, `unknown key '${name}' in ${where}: expected ${allowed.map((k) => `'${k}'`).join(', ')}`);
      }
      return { key: name, pair, value: (pair.value as Node | null) ?? null };
    });
  }

  /**
   * A key as the user wrote it: `007:` is the key "007", never the number 7 (nor `1e3:` "1000");
   * a key that is not text (a list, a mapping, an alias, null) is refused.
   */
  private keyOf(pair: Pair, where: string): string {
    const key = isScalar(pair.key) ? pair.key.value : undefined;
    if (typeof key === 'string') return key;
    if (typeof key === 'number') return (pair.key as Scalar).source ?? String(key);
    this.fail(pair, `${where} has a key that is not text`);
  }

  /**
   * A value as plain data (a JSON Schema written as YAML): aliases resolve as YAML defines them, so
   * a value with an alias reads exactly like its written-out form. An alias to a value it sits in
   * (a cycle), or aliases that expand past a bound, are refused at the alias's line.
   */
  plain(node: Node | null): unknown {
    let values = 0;
    // The collections the walk is inside (a path: entered and left, never copied per level).
    const within = new Set<unknown>();
    const walk = (at: unknown): unknown => {
      if (++values > MAX_PLAIN_VALUES || ++this.plainValues > MAX_FILE_PLAIN_VALUES) {
        this.fail(
          at as Node,
          values > MAX_PLAIN_VALUES
            ? `the value expands to more than ${MAX_PLAIN_VALUES} values (through its aliases): expected a smaller one`
            : `the file's values written as plain data expand to more than ${MAX_FILE_PLAIN_VALUES.toLocaleString('en-US')} values (through their aliases): expected fewer`,
        );
      }
      if (at === null || at === undefined) return null;
      if (isAlias(at)) {
        const target = this.aliasTarget(at);
        if (!target)
          this.fail(at, `the alias *${at.source} names no anchor: expected an anchor (&${at.source}) above it`);
        if (within.has(target)) {
          this.fail(at, `the alias *${at.source} refers to a value it sits in: expected a value without a cycle`);
        }
        return walk(target);
      }
      if (isScalar(at)) return at.value;
      within.add(at);
      try {
        if (isSeq(at)) return at.items.map((item) => walk(item));
        if (isMap(at)) {
          const out: Record<string, unknown> = {};
          // Defined, not assigned: a `__proto__` key would set the prototype, read through yet unseen.
          for (const pair of at.items)
            Object.defineProperty(out, this.keyOf(pair, 'a mapping'), {
              value: walk(pair.value),
              enumerable: true,
              writable: true,
              configurable: true,
            });
          return out;
        }
      } finally {
        within.delete(at);
      }
      this.fail(at as Node, 'a value that is not plain data: expected text, numbers, lists and mappings');
    };
    return walk(node);
  }

  /** A list's items (a missing list is an error at `at`). */
  list(entry: Entry, expected: string): Node[] {
    if (!isSeq(entry.value)) this.failValue(entry, expected);
    return (entry.value as YAMLSeq<Node>).items;
  }

  /** A scalar as text: strings, and numbers or booleans written bare (`value: 12345`). */
  text(entry: Entry, expected: string, { empty = false } = {}): string {
    const value = isScalar(entry.value) ? (entry.value as Scalar).value : undefined;
    if (typeof value === 'string' && (empty || value.trim() !== '')) return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    this.failValue(entry, expected);
  }

  /** A whole number of at least `min` (and at most `max`, when given). */
  count(entry: Entry, min: number, max = Infinity): number {
    const value = isScalar(entry.value) ? entry.value.value : undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.failValue(
        entry,
        max === Infinity ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`,
      );
    }
    return value;
  }

  /** A number from `min` to `max` (written bare). */
  number(entry: Entry, min: number, max: number, { integer = false } = {}): number {
    const value = isScalar(entry.value) ? entry.value.value : undefined;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < min ||
      value > max ||
      (integer && !Number.isInteger(value))
    ) {
      this.failValue(entry, `${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
    }
    return value;
  }

  /** A mapping of names to text (headers, query), each value text or, with `env`, `{env: NAME}` read from `env`. */
  stringMap(entry: Entry, env?: NodeJS.ProcessEnv): { values: Record<string, string>; secrets: string[] } {
    const values: Record<string, string> = {};
    const secrets: string[] = [];
    for (const item of this.entries(entry.value, `'${entry.key}'`)) {
      if (env && isMap(item.value)) {
        const name = this.envName(item, env);
        values[item.key] = env[name] ?? '';
        secrets.push(values[item.key]);
        continue;
      }
      values[item.key] = this.text(item, env ? 'text, or {env: NAME} for a secret' : 'text', { empty: true });
    }
    return { values, secrets };
  }

  /** `{env: NAME}` whose variable is set in `env`: its name. */
  envName(entry: Entry, env: NodeJS.ProcessEnv): string {
    const [inner] = this.entries(entry.value, `'${entry.key}'`, ['env']);
    const name = inner ? this.text(inner, 'an environment variable name') : '';
    return this.setVariable({ ...(inner ?? entry) }, name, env);
  }

  /** A variable name that is set in `env`; otherwise the one error naming it. */
  setVariable(entry: Entry, name: string, env: NodeJS.ProcessEnv): string {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      this.failValue(entry, 'the name of an environment variable, such as OPENAI_API_KEY');
    if (!env[name]) {
      this.fail(
        entry.value ?? entry.pair,
        `'${entry.key}' names ${name}, which is not set: expected the variable in ${this.words.environment}`,
      );
    }
    return name;
  }

  /** A duration as the action's inputs write them (`90s`, `1m30s`, bare seconds); `ms` reads a bare number as milliseconds. */
  duration(entry: Entry, { ms = false } = {}): number {
    const value = isScalar(entry.value) ? entry.value.value : undefined;
    if (ms && typeof value === 'number' && value > 0) return value;
    try {
      const parsed = parseDuration(String(value ?? ''));
      if (parsed > 0) return parsed;
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
    }
    this.failValue(
      entry,
      ms
        ? 'a duration such as 10s, 1m30s or 500ms, or a number of milliseconds'
        : 'a duration such as 60s, 1m30s or 500ms, or a number of seconds',
    );
  }
}

function isScalarKey(node: Node | Pair): node is Pair & { key: Scalar } {
  return 'key' in node && isScalar(node.key);
}
