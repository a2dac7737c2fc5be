// Assertions a judge grades against a rubric (`llm-rubric`) or a reference answer (`factuality`):
// here their names, their reading and their description; judge.ts grades them.
import type { Entry, YamlFile } from '../../config/yaml-file.js';
import type { JudgeSpec } from '../judge-spec.js';
import type { RubricPrompt } from '../rubric.js';
import { type Family, assertionName, short } from './family.js';

/** Factuality's categories (OpenAI's evals, as promptfoo and autoevals use them); D fails. */
export const FACTUALITY_CATEGORIES = ['A', 'B', 'C', 'D', 'E'] as const;
export type FactualityCategory = (typeof FACTUALITY_CATEGORIES)[number];

export interface RubricAssertion {
  type: 'llm-rubric';
  negate: boolean;
  value: string;
  threshold?: number;
  judge: JudgeSpec;
  rubricPrompt?: RubricPrompt;
}

export interface FactualityAssertion {
  type: 'factuality';
  negate: boolean;
  value: string;
  /** The categories that pass. */
  categories: FactualityCategory[];
  judge: JudgeSpec;
  /** promptfoo's `rubricPrompt`: the grading messages, in place of the built-in template. */
  rubricPrompt?: RubricPrompt;
}

export const llmRubric: Family<RubricAssertion> = {
  names: ['llm-rubric'],
  gradedBy: 'judge',
  native: {
    value: 'required',
    expected: 'the rubric, in plain text',
    threshold: true,
    read: ({ file, negate, threshold, text, judge }) => ({
      type: 'llm-rubric',
      negate,
      value: text(),
      threshold: threshold ? file.number(threshold, 0, 1) : undefined,
      judge: judge(),
    }),
  },
  promptfoo: ({ value, a, ctx, text, graded }) => {
    // As promptfoo: a rubricPrompt may carry the whole instruction, with no rubric beside it.
    if (
      (value === undefined || value === null || value === '') &&
      (a.rubricPrompt ?? ctx.options.rubricPrompt) !== undefined
    )
      return graded('llm-rubric', '');
    return graded('llm-rubric', text("the rubric (or a 'rubricPrompt' that carries it)"));
  },
  describe: (a) =>
    `${assertionName(a)} ${short(a.value)}${a.threshold === undefined ? '' : ` (score ≥ ${a.threshold})`}`,
};

export const factuality: Family<FactualityAssertion> = {
  names: ['factuality'],
  gradedBy: 'judge',
  native: {
    value: 'required',
    expected: 'the reference answer',
    categories: true,
    read: ({ file, negate, categories, text, judge }) => ({
      type: 'factuality',
      negate,
      value: text(),
      categories: categories ? readCategories(file, categories) : ['A', 'B', 'C', 'E'],
      judge: judge(),
    }),
  },
  promptfoo: ({ text, graded }) => graded('factuality', text('the reference answer')),
  describe: (a) => `${assertionName(a)} ${short(a.value)}`,
};

function readCategories(file: YamlFile, entry: Entry): FactualityCategory[] {
  const passing = FACTUALITY_CATEGORIES.filter((c) => c !== 'D');
  const expected = `a list of the categories that pass, from ${passing.join(', ')} (D, a disagreement, always fails)`;
  const items = file.list(entry, expected).map((item) =>
    file
      .text({ ...entry, value: item }, expected)
      .trim()
      .toUpperCase(),
  );
  if (items.length === 0 || items.some((c) => !(passing as string[]).includes(c))) file.failValue(entry, expected);
  return [...new Set(items)] as FactualityCategory[];
}
