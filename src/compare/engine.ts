// The comparison of a baseline and a candidate (see docs/comparing.md for the method in words).
import type { CompareOptions, Comparison, Side, Verdict } from './types.js';
import { VERDICT_PRECEDENCE } from './types.js';

/** The worst of some verdicts ('' when there are none): regressed > inconclusive > improved > unchanged. */
export function worstVerdict(verdicts: Iterable<Verdict>): Verdict | '' {
  let worst: Verdict | '' = '';
  for (const v of verdicts)
    if (worst === '' || VERDICT_PRECEDENCE.indexOf(v) < VERDICT_PRECEDENCE.indexOf(worst)) worst = v;
  return worst;
}

/** Compares the same checks run on two sides: every metric's figures, change, interval and verdict. */
export function compareSides(baseline: Side, candidate: Side, options: CompareOptions = {}): Comparison {
  void baseline;
  void candidate;
  void options;
  throw new Error('compareSides: not implemented yet');
}
