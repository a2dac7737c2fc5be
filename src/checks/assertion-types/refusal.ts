// The reply refuses (refusal.ts says how that is read).
import { looksLikeRefusal } from '../refusal.js';
import { type Family, assertionName } from './family.js';

export interface RefusalAssertion {
  type: 'is-refusal';
  negate: boolean;
}

export const refusal: Family<RefusalAssertion> = {
  names: ['is-refusal'],
  native: { value: 'none', read: ({ negate }) => ({ type: 'is-refusal', negate }) },
  promptfoo: ({ negate }) => ({ type: 'is-refusal', negate }),
  evaluation: { holds: (_a, text) => looksLikeRefusal(text) },
  describe: (a) => assertionName(a),
};
