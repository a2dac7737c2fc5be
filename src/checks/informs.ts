// Which questions a comparison asks again, round by round: the gate's allocation (gate.ts) and the
// cost said before a comparison (cost.ts) read the same rule. Plain values only, so the benchmark
// simulates the rule as the gate runs it.
import type { AttemptSample } from './result.js';

/** The fewest times a question is asked when the other side is known or asked alongside, and alone. */
export const MIN_OWN_TOGETHER = 1;
export const MIN_OWN_ALONE = 2;

/**
 * Whether a question is asked in round `round` of a comparison (`made` attempts planned so far):
 * always up to a floor (one when the other side is known or asked alongside, two alone: a single
 * answer cannot show it varies), then only while its answers vary, here or on the other side
 * (`others`): a question answered the same every time tells nothing more each time it is asked,
 * and its repeats are better spent where answers differ. Never past `repeat`.
 */
export function informs(
  repeat: number,
  samples: readonly AttemptSample[],
  made: number,
  round: number,
  others: readonly AttemptSample[],
  together: boolean,
): boolean {
  if (round > repeat || made >= round) return false;
  if (made < (together ? MIN_OWN_TOGETHER : MIN_OWN_ALONE)) return true;
  return new Set([...samples, ...others].map((s) => s.outcome)).size > 1;
}
