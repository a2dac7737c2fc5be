// The reply is within an edit distance of a text (default 5).
import { distance } from 'fastest-levenshtein';
import { type Family, assertionName, short } from './family.js';

export interface LevenshteinAssertion {
  type: 'levenshtein';
  negate: boolean;
  value: string;
  threshold: number;
}

export const levenshtein: Family<LevenshteinAssertion> = {
  names: ['levenshtein'],
  native: {
    value: 'required',
    threshold: true,
    read: ({ file, negate, threshold, text }) => ({
      type: 'levenshtein',
      negate,
      value: text(),
      threshold: threshold ? file.number(threshold, 0, 100_000, { integer: true }) : 5,
    }),
  },
  promptfoo: ({ negate, threshold, text }) => ({
    type: 'levenshtein',
    negate,
    value: text('a string'),
    threshold: threshold ?? 5,
  }),
  evaluation: {
    holds: (a, text) => distance(text, a.value) <= a.threshold,
    measured: (a, reply) => ` (distance ${distance(reply.trim(), a.value)})`,
  },
  describe: (a) => `${assertionName(a)} ${short(a.value)} ≤ ${a.threshold}`,
};
