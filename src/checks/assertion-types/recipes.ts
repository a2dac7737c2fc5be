// promptfoo's other graders (graders.ts runs them): a model's answers or embeddings, read by a
// recipe of promptfoo's. A promptfoo config's alone; the native format has none of them.
import { aType } from '../../shared/format.js';
import type { JudgeSpec } from '../judge-spec.js';
import { show } from '../promptfoo/located.js';
import type { RubricPrompt } from '../rubric.js';
import { type Family, assertionName, short, valueShown } from './family.js';

export const RECIPE_TYPES = ['model-graded-closedqa', 'g-eval', 'answer-relevance', 'similar', 'moderation'] as const;
export type RecipeType = (typeof RECIPE_TYPES)[number];

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

export const recipes: Family<RecipeAssertion> = {
  names: RECIPE_TYPES,
  gradedBy: 'judge',
  promptfoo: ({ type, value, a, fail, text, recipe }) => {
    switch (type) {
      case 'model-graded-closedqa':
        return recipe(type, text('the criterion'));
      case 'g-eval':
      case 'similar': {
        const values = Array.isArray(value) ? value : [value];
        if (values.length === 0 || values.some((v) => typeof v !== 'string' || v === ''))
          fail(
            'value',
            `${aType(a.type as string)} assertion's ${valueShown(value)}: expected ${type === 'g-eval' ? 'the criteria' : 'the expected text'}, or a list of them`,
          );
        return recipe(type, Array.isArray(value) ? (value as string[]) : (value as string));
      }
      case 'answer-relevance':
        return recipe(type, '');
      default:
        if (value !== undefined && (!Array.isArray(value) || value.some((v) => typeof v !== 'string')))
          fail(
            'value',
            `a 'moderation' assertion's 'value' is ${show(value)}: expected a list of categories, such as [harassment, violence]`,
          );
        return recipe(type, (value as string[] | undefined) ?? []);
    }
  },
  describe: (a) => {
    const value = Array.isArray(a.value) ? JSON.stringify(a.value) : a.value ? short(a.value) : '';
    return `${assertionName(a)}${value ? ` ${value}` : ''}${a.threshold === undefined ? '' : ` (threshold ${a.threshold})`}`;
  },
};
