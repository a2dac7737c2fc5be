// Assertions on a Claw's reply, named as promptfoo names them, each negatable with `not-`
// (`latency` excepted). One table: a reader finds any assertion's meaning in one place. Replies
// are compared trimmed; the `i…` forms ignore case; `regex` (RE2, linear time) is case-sensitive
// unless the pattern says `(?i)`. `llm-rubric` and `factuality` are graded by a judge (judge.ts);
// here they only have a name and a description.
import { distance } from 'fastest-levenshtein';
import { readJson } from '../api/json.js';
import { type ReplyPattern, compilePattern } from '../pattern.js';
import { jsonValuesIn } from './json-in-text.js';
import { looksLikeRefusal } from './refusal.js';
import type { RubricPrompt } from './rubric.js';
import type { JudgeSpec } from './judge-spec.js';
import type { SchemaCheck } from './schema.js';
import type { ReplyLatency } from '../conversation/ask.js';

export { looksLikeRefusal } from './refusal.js';

export const ASSERTION_TYPES = [
  'equals',
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'icontains-any',
  'icontains-all',
  'starts-with',
  'ends-with',
  'regex',
  'is-json',
  'contains-json',
  'levenshtein',
  'word-count',
  'is-refusal',
  'latency',
  'llm-rubric',
  'factuality',
] as const;
export type AssertionType = (typeof ASSERTION_TYPES)[number];

/** promptfoo's other graders (graders.ts): a model's answers or embeddings, read by a recipe of promptfoo's. */
export const RECIPE_TYPES = ['model-graded-closedqa', 'g-eval', 'answer-relevance', 'similar', 'moderation'] as const;
export type RecipeType = (typeof RECIPE_TYPES)[number];

/** Assertions a judge grades: they run only after every other assertion of the turn holds. */
export const MODEL_GRADED: readonly string[] = ['llm-rubric', 'factuality', ...RECIPE_TYPES];

/** Factuality's categories (OpenAI's evals, as promptfoo and autoevals use them); D fails. */
export const FACTUALITY_CATEGORIES = ['A', 'B', 'C', 'D', 'E'] as const;
export type FactualityCategory = (typeof FACTUALITY_CATEGORIES)[number];

type TextType = 'equals' | 'contains' | 'icontains' | 'starts-with' | 'ends-with';
type ListType = 'contains-any' | 'contains-all' | 'icontains-any' | 'icontains-all';

export type Assertion =
  | { type: TextType; negate: boolean; value: string }
  | { type: ListType; negate: boolean; values: string[] }
  | { type: 'regex'; negate: boolean; pattern: ReplyPattern }
  | { type: 'is-json' | 'contains-json'; negate: boolean; schema?: SchemaCheck }
  | { type: 'levenshtein'; negate: boolean; value: string; threshold: number }
  | { type: 'word-count'; negate: boolean; min?: number; max?: number }
  | { type: 'is-refusal'; negate: boolean }
  | { type: 'latency'; negate: false; thresholdMs: number }
  | {
      type: 'llm-rubric';
      negate: boolean;
      value: string;
      threshold?: number;
      judge: JudgeSpec;
      rubricPrompt?: RubricPrompt;
    }
  | {
      type: 'factuality';
      negate: boolean;
      value: string;
      /** The categories that pass. */
      categories: FactualityCategory[];
      judge: JudgeSpec;
      /** promptfoo's `rubricPrompt`: the grading messages, in place of the built-in template. */
      rubricPrompt?: RubricPrompt;
    }
  | RecipeAssertion;

/** One of promptfoo's other graders, with what its recipe needs (graders.ts). */
export interface RecipeAssertion {
  type: RecipeType;
  negate: boolean;
  /** The criterion, the expected text(s), or the moderation categories that count. */
  value: string | string[];
  /** Where the score passes (similar 0.75, g-eval 0.7, answer-relevance 0.5). */
  threshold?: number;
  judge: JudgeSpec;
  /** promptfoo's `rubricPrompt`, for model-graded-closedqa. */
  rubricPrompt?: RubricPrompt;
  /** promptfoo's `rubricPrompt: {steps, evaluate}`, for g-eval: its two templates, each in place of promptfoo's. */
  gEvalPrompts?: { steps?: string; evaluate?: string };
}

export type GradedAssertion = Extract<Assertion, { type: 'llm-rubric' | 'factuality' }>;
export type PlainAssertion = Exclude<Assertion, GradedAssertion | RecipeAssertion>;

export function isModelGraded(a: Assertion): a is GradedAssertion | RecipeAssertion {
  return MODEL_GRADED.includes(a.type);
}

export function isRecipe(a: Assertion): a is RecipeAssertion {
  return (RECIPE_TYPES as readonly string[]).includes(a.type);
}

/** The name as written: `not-icontains`. */
export function assertionName(a: Assertion): string {
  return `${a.negate ? 'not-' : ''}${a.type}`;
}

/** Compiles a `regex` value: RE2, case-sensitive unless `(?i)`; throws RE2's reason. */
export function compileRegex(source: string): ReplyPattern {
  return compilePattern(source, { caseInsensitive: false });
}

/** Deeper than any reply's JSON a check means: JSON.parse's time grows faster than the text past it. */
const MAX_REPLY_JSON_DEPTH = 1000;

function parsesAsJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const read = readJson(text, MAX_REPLY_JSON_DEPTH);
  return read.ok ? { ok: true, value: read.value } : { ok: false };
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * What each deterministic assertion means, before `not-`: the reply (trimmed) and how long it
 * took in, whether it holds out.
 */
const HOLDS: {
  [T in PlainAssertion['type']]: (a: PlainAssertion & { type: T }, text: string, latency: ReplyLatency) => boolean;
} = {
  equals: (a, text) => text === a.value,
  contains: (a, text) => text.includes(a.value),
  icontains: (a, text) => text.toLowerCase().includes(a.value.toLowerCase()),
  'starts-with': (a, text) => text.startsWith(a.value),
  'ends-with': (a, text) => text.endsWith(a.value),
  'contains-any': (a, text) => a.values.some((v) => text.includes(v)),
  'contains-all': (a, text) => a.values.every((v) => text.includes(v)),
  'icontains-any': (a, text) => a.values.some((v) => text.toLowerCase().includes(v.toLowerCase())),
  'icontains-all': (a, text) => a.values.every((v) => text.toLowerCase().includes(v.toLowerCase())),
  regex: (a, text) => a.pattern.test(text),
  'is-json': (a, text) => {
    const json = parsesAsJson(text);
    return json.ok && (!a.schema || a.schema.validate(json.value));
  },
  'contains-json': (a, text) => {
    // Objects, as promptfoo looks for them: a bare array such as [1, 2] is not one.
    const found = jsonValuesIn(text, { objectsOnly: true });
    return a.schema ? found.some((v) => a.schema!.validate(v)) : found.length > 0;
  },
  levenshtein: (a, text) => distance(text, a.value) <= a.threshold,
  'word-count': (a, text) => {
    const n = words(text);
    return (a.min === undefined || n >= a.min) && (a.max === undefined || n <= a.max);
  },
  'is-refusal': (_a, text) => looksLikeRefusal(text),
  // Against the low end of what the polls tell: a reply seen late only because of when the task
  // was polled never fails the threshold.
  latency: (a, _text, latency) => latency.lowMs <= a.thresholdMs,
};

/** A time to reply as a bound: a plain number is exact (a reply that came with the answer). */
function asBound(latency: number | ReplyLatency): ReplyLatency {
  return typeof latency === 'number' ? { ms: latency, lowMs: latency } : latency;
}

/** Whether a deterministic assertion holds for a reply that took `latency`. */
export function holds(a: PlainAssertion, reply: string, latency: number | ReplyLatency): boolean {
  const text = reply.trim();
  const check = HOLDS[a.type] as (a: PlainAssertion, text: string, latency: ReplyLatency) => boolean;
  const result = check(a, text, asBound(latency));
  return a.negate ? !result : result;
}

/**
 * What was measured, when that explains a failure: `(took 1200ms)`, with the bound the task's
 * polls leave when there is one (`(took 1620ms, between 1410 and 1620ms: polled every 210ms)`),
 * `(distance 9)`, `(42 words)`.
 */
export function measured(a: PlainAssertion, reply: string, latency: number | ReplyLatency): string {
  if (a.type === 'latency') {
    const { ms, lowMs } = asBound(latency);
    if (lowMs >= ms) return ` (took ${ms}ms)`;
    return ` (took ${ms}ms, between ${lowMs} and ${ms}ms: polled every ${ms - lowMs}ms)`;
  }
  if (a.type === 'levenshtein') return ` (distance ${distance(reply.trim(), a.value)})`;
  if (a.type === 'word-count') return ` (${words(reply.trim())} words)`;
  return '';
}

/** One line on what was asserted, for a failure: `icontains "hello"`, `latency ≤ 10000ms`. */
export function describeAssertion(a: Assertion): string {
  const name = assertionName(a);
  const short = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  switch (a.type) {
    case 'contains-any':
    case 'contains-all':
    case 'icontains-any':
    case 'icontains-all':
      return `${name} ${JSON.stringify(a.values)}`;
    case 'regex':
      return `${name} /${a.pattern.source}/`;
    case 'is-json':
    case 'contains-json':
      return a.schema ? `${name} (schema ${a.schema.source})` : name;
    case 'levenshtein':
      return `${name} ${short(a.value)} ≤ ${a.threshold}`;
    case 'word-count':
      return a.min === a.max ? `${name} ${a.min}` : `${name} ${a.min ?? 0}..${a.max === undefined ? '∞' : a.max}`;
    case 'is-refusal':
      return name;
    case 'latency':
      return `${name} ≤ ${a.thresholdMs}ms`;
    case 'llm-rubric':
      return `${name} ${short(a.value)}${a.threshold === undefined ? '' : ` (score ≥ ${a.threshold})`}`;
    case 'factuality':
      return `${name} ${short(a.value)}`;
    case 'model-graded-closedqa':
    case 'g-eval':
    case 'answer-relevance':
    case 'similar':
    case 'moderation': {
      const value = Array.isArray(a.value) ? JSON.stringify(a.value) : a.value ? short(a.value) : '';
      return `${name}${value ? ` ${value}` : ''}${a.threshold === undefined ? '' : ` (threshold ${a.threshold})`}`;
    }
    default:
      return `${name} ${short(a.value)}`;
  }
}
