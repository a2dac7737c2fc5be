// Every assertion type, found by name: the families (one module each) and the names each file
// format accepts, in the order its errors list them. Checked when it loads: a type either format
// names without a family that reads it (and, in the native format, evaluates and describes it)
// stops the program at its first import, not at the first check that uses it.
import type { Family, Typed } from './family.js';
import { factuality, llmRubric } from './graded.js';
import { json } from './json.js';
import { latency } from './latency.js';
import { levenshtein } from './levenshtein.js';
import { lists } from './lists.js';
import { RECIPE_TYPES, recipes } from './recipes.js';
import { refusal } from './refusal.js';
import { regex } from './regex.js';
import { scripts } from './scripts.js';
import { text } from './text.js';
import { wordCount } from './word-count.js';

/** The native checks file's types, each negatable with `not-` (`latency` excepted). */
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

/** promptfoo's names for a type read here under another. */
export const PROMPTFOO_ALIASES: Readonly<Record<string, string>> = {
  'model-graded-factuality': 'factuality',
  'similar:cosine': 'similar',
};

/** A promptfoo config's types: the native set, promptfoo's other graders, javascript and assert-set. */
export const PROMPTFOO_TYPES: readonly string[] = [
  ...ASSERTION_TYPES.filter((t) => t !== 'llm-rubric' && t !== 'factuality'),
  'llm-rubric',
  'factuality',
  'model-graded-factuality',
  ...RECIPE_TYPES,
  'javascript',
  'assert-set',
];

export const FAMILIES: readonly Family[] = [
  text,
  lists,
  regex,
  json,
  levenshtein,
  wordCount,
  refusal,
  latency,
  llmRubric,
  factuality,
  recipes,
  scripts,
] as Family[];

/**
 * Each type's family; throws, naming every gap, when a type of either format has no family that
 * reads it, a native type none that evaluates and describes it, or two families claim one name.
 */
export function buildRegistry(
  families: readonly Family[],
  nativeTypes: readonly string[],
  promptfooTypes: readonly string[],
): Map<string, Family> {
  const byName = new Map<string, Family>();
  const gaps: string[] = [];
  for (const family of families) {
    for (const name of family.names) {
      if (byName.has(name)) gaps.push(`'${name}' is claimed by two families`);
      byName.set(name, family);
    }
  }
  for (const name of nativeTypes) {
    const family = byName.get(name);
    if (!family?.native) gaps.push(`'${name}' has no reader for the native checks file`);
    else if (!family.describe || !(family.evaluation || family.gradedBy === 'judge'))
      gaps.push(`'${name}' has no evaluation or description`);
  }
  for (const name of promptfooTypes) {
    if (!byName.get(PROMPTFOO_ALIASES[name] ?? name)?.promptfoo) gaps.push(`'${name}' has no promptfoo reader`);
  }
  if (gaps.length) throw new Error(`The assertion registry is incomplete: ${gaps.join('; ')}.`);
  return byName;
}

const REGISTRY = buildRegistry(FAMILIES, ASSERTION_TYPES, PROMPTFOO_TYPES);

/** The types a judge grades: every family's that says `gradedBy: 'judge'`. */
export const JUDGE_GRADED: readonly string[] = FAMILIES.filter((f) => f.gradedBy === 'judge').flatMap((f) => f.names);

/** The family of a type (without `not-`, aliases resolved); the readers check the name first. */
export function familyOf(type: string): Family<Typed> {
  const family = REGISTRY.get(type);
  if (!family) throw new Error(`'${type}' is not an assertion type`);
  return family;
}
