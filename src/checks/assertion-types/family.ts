// What a family of assertion types holds, as promptfoo's assertion handlers do: its names, how
// each of the two file formats reads one (the native checks file, a promptfoo config), and what it
// means for a reply. The readers hand a family what it needs (the file, the value, the judge), so a
// family imports neither reader; registry.ts holds the families and checks them complete.
import type { Node } from 'yaml';
import type { Entry, YamlFile } from '../../config/yaml-file.js';
import type { ReplyLatency } from '../../conversation/ask.js';
import type { JudgeSpec } from '../judge-spec.js';
import type { AssertContext } from '../promptfoo/assert-context.js';
import type { Script } from '../script.js';
import { type Obj, show } from '../promptfoo/located.js';

/** What every assertion carries: its type, without `not-`, and whether `not-` was written. */
export interface Typed {
  type: string;
  negate: boolean;
}

/** One assertion of a native checks file, as suite.ts hands it to its family. */
export interface NativeRead {
  file: YamlFile;
  /** The assertion's mapping, for errors about it as a whole. */
  node: Node;
  /** The type as written (`not-contains`). */
  written: string;
  type: string;
  negate: boolean;
  value?: Entry;
  threshold?: Entry;
  categories?: Entry;
  /** The value as text; fails with what the family expects. */
  text(): string;
  /** The judge of the check or the file; fails when there is none. */
  judge(): JudgeSpec;
}

/** How a family reads the native format: what its `value` is, and the keys beside it. */
export interface NativeReader<A extends Typed = Typed> {
  value: 'required' | 'optional' | 'none';
  /** What the value is, in errors (default: a string). */
  expected?: string;
  /** Whether it takes `threshold`, and `categories`, beside its value. */
  threshold?: true;
  categories?: true;
  read(p: NativeRead): A;
}

/** One assertion of a promptfoo config, as promptfoo/asserts.ts hands it to its family. */
export interface PromptfooRead {
  type: string;
  negate: boolean;
  /** The value, rendered with the test's vars. */
  value: unknown;
  /** The assertion's mapping, as written. */
  a: Obj;
  ctx: AssertContext;
  threshold?: number;
  fail(key: string | undefined, message: string): never;
  /** The value as text (a number's too); fails with `expected`. */
  text(expected: string): string;
  /** A model-graded assertion with its judge and grading prompt (asserts.ts). */
  graded(type: 'llm-rubric' | 'factuality', value: string): Typed;
  /** One of promptfoo's other graders, with the judge of the kind it needs (asserts.ts). */
  recipe(type: string, value: string | string[]): Typed;
  /** A `javascript` assertion's code, read and compiled (asserts.ts). */
  javascript(code: string): Script;
  /** An assertion inside this one (an assert-set's), read as the test's own are. */
  assertion(raw: unknown): Typed;
}

/** What an assertion means for a reply (trimmed) and how long it took, before `not-`. */
export interface Evaluation<A extends Typed = Typed> {
  holds(a: A, text: string, latency: ReplyLatency): boolean;
  /** What was measured, when that explains a failure: ` (42 words)`. */
  measured?(a: A, reply: string, latency: ReplyLatency): string;
}

export interface Family<A extends Typed = Typed> {
  /** The types it holds, without `not-`. */
  names: readonly string[];
  native?: NativeReader<A>;
  promptfoo?(p: PromptfooRead): Typed;
  /** Deterministic families; a model-graded one is graded by the judge, a script by its worker. */
  evaluation?: Evaluation<A>;
  gradedBy?: 'judge' | 'script';
  /** One line on what was asserted, for a failure: `icontains "hello"` (every native type has one). */
  describe?(a: A): string;
}

/** The name as written: `not-icontains`. */
export function assertionName(a: Typed): string {
  return `${a.negate ? 'not-' : ''}${a.type}`;
}

/** A value in a description, cut at 80 characters. */
export const short = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** What an assertion's 'value' was, for its error: "'value' is missing" when it was not given. */
export const valueShown = (value: unknown): string =>
  value === undefined || value === null ? "'value' is missing" : `'value' is ${show(value)}`;
