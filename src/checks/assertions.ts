// Assertions on a Claw's reply, named as promptfoo names them, each negatable with `not-`
// (`latency` excepted). Each family of types is one module of assertion-types/ (its names, its
// reading in both file formats and its meaning), found through the registry there; this module is
// what the rest of the checks use: the model's types, and whether a reply holds. Replies are
// compared trimmed. `llm-rubric`, `factuality` and promptfoo's other graders are graded by a judge
// (judge.ts, graders.ts).
import type { ReplyLatency } from '../conversation/ask.js';
import type { FactualityAssertion, RubricAssertion } from './assertion-types/graded.js';
import type { JsonAssertion } from './assertion-types/json.js';
import type { LatencyAssertion } from './assertion-types/latency.js';
import type { LevenshteinAssertion } from './assertion-types/levenshtein.js';
import type { ListAssertion } from './assertion-types/lists.js';
import { RECIPE_TYPES, type RecipeAssertion } from './assertion-types/recipes.js';
import type { RefusalAssertion } from './assertion-types/refusal.js';
import type { RegexAssertion } from './assertion-types/regex.js';
import { JUDGE_GRADED, familyOf } from './assertion-types/registry.js';
import type { TextAssertion } from './assertion-types/text.js';
import type { WordCountAssertion } from './assertion-types/word-count.js';

export { looksLikeRefusal } from './refusal.js';
export { assertionName } from './assertion-types/family.js';
export { ASSERTION_TYPES, type AssertionType } from './assertion-types/registry.js';
export { FACTUALITY_CATEGORIES, type FactualityCategory } from './assertion-types/graded.js';
export { RECIPE_TYPES, type RecipeAssertion, type RecipeType } from './assertion-types/recipes.js';
export { compileRegex } from './assertion-types/regex.js';

export type Assertion =
  | TextAssertion
  | ListAssertion
  | RegexAssertion
  | JsonAssertion
  | LevenshteinAssertion
  | WordCountAssertion
  | RefusalAssertion
  | LatencyAssertion
  | RubricAssertion
  | FactualityAssertion
  | RecipeAssertion;

/** Assertions a judge grades (each family says so): they run only after every other assertion of the turn holds. */
export const MODEL_GRADED: readonly string[] = JUDGE_GRADED;

export type GradedAssertion = RubricAssertion | FactualityAssertion;
export type PlainAssertion = Exclude<Assertion, GradedAssertion | RecipeAssertion>;

export function isModelGraded(a: Assertion): a is GradedAssertion | RecipeAssertion {
  return MODEL_GRADED.includes(a.type);
}

export function isRecipe(a: Assertion): a is RecipeAssertion {
  return (RECIPE_TYPES as readonly string[]).includes(a.type);
}

/** A time to reply as a bound: a plain number is exact (a reply that came with the answer). */
function asBound(latency: number | ReplyLatency): ReplyLatency {
  return typeof latency === 'number' ? { ms: latency, lowMs: latency } : latency;
}

/** Whether a deterministic assertion holds for a reply that took `latency`. */
export function holds(a: PlainAssertion, reply: string, latency: number | ReplyLatency): boolean {
  const result = familyOf(a.type).evaluation!.holds(a, reply.trim(), asBound(latency));
  return a.negate ? !result : result;
}

/**
 * What was measured, when that explains a failure: `(took 1200ms)`, with the bound the task's
 * polls leave when there is one (`(took 1620ms, between 1410 and 1620ms: polled every 210ms)`),
 * `(distance 9)`, `(42 words)`.
 */
export function measured(a: PlainAssertion, reply: string, latency: number | ReplyLatency): string {
  return familyOf(a.type).evaluation!.measured?.(a, reply, asBound(latency)) ?? '';
}

/** One line on what was asserted, for a failure: `icontains "hello"`, `latency ≤ 10000ms`. */
export function describeAssertion(a: Assertion): string {
  return familyOf(a.type).describe!(a);
}
