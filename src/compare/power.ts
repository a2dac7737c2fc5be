// What a suite of a given size can detect, stated before the first request. Analytic: the
// Mantel–Haenszel difference over Q questions of r repeats each has variance
// Σ (p₀(1−p₀) + p₁(1−p₁)) / (r·Q²); the suite's one-sided test at `level` past the tolerance finds
// a drop Δ with probability Φ((Δ − tolerance)/sd − z₁₋level). The questions follow a reference
// profile (80% near-certain at 0.99, 20% flaky, 0.90 overall, each question's rate dropping by the
// same share): the profile the benchmark simulates, which checks the figure.
import { phi, zQuantile } from './distributions.js';
import { DEFAULT_LEVEL, PASS_RATE_SHARE } from './engine.js';
import type { Detectable } from './types.js';

export interface PowerOptions {
  /** The relative drop asked about (default 0.1). */
  drop?: number;
  /** The suite's tolerance on the pass rate, in points of share (default 0). */
  tolerance?: number;
  /** The one-sided level of the suite's test (default 0.045: its share of the 5% of `behaviour`). */
  level?: number;
  /** The baseline's pass rate (default 0.9). */
  passRate?: number;
}

/** The reference profile's question rates: 80% near-certain, the rest flaky, averaging `passRate`. */
export function referenceProfile(passRate = 0.9): { share: number; rate: number }[] {
  const certain = Math.min(0.99, passRate / 0.8);
  const flaky = Math.max(0, (passRate - 0.8 * certain) / 0.2);
  return [
    { share: 0.8, rate: certain },
    { share: 0.2, rate: Math.min(1, flaky) },
  ];
}

/** The chance that the suite's pass rate is called `regressed` after a relative drop. */
export function passRatePower(questions: number, repeats: number, options: PowerOptions = {}): number {
  const drop = options.drop ?? 0.1;
  const level = options.level ?? DEFAULT_LEVEL * PASS_RATE_SHARE;
  const profile = referenceProfile(options.passRate);
  let delta = 0;
  let variance = 0;
  for (const { share, rate } of profile) {
    const after = rate * (1 - drop);
    delta += share * (rate - after);
    variance += share * (rate * (1 - rate) + after * (1 - after));
  }
  const sd = Math.sqrt(variance / (repeats * questions));
  if (questions < 1 || repeats < 1) return 0;
  return phi((delta - (options.tolerance ?? 0)) / sd - zQuantile(1 - level));
}

const percent = (x: number) => `${Math.round(x * 100)}%`;
const timesInTen = (power: number) => {
  const times = Math.floor(power * 10 + 1e-9);
  return times === 0 ? 'less than once in 10' : times === 1 ? 'once in 10' : `${times} times in 10`;
};
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const sizeOf = (questions: number, repeats: number) =>
  `${plural(questions, 'question')} × ${plural(repeats, 'repeat')}`;

/** "50 questions × 3 repeats: a 10% drop in pass rate is found 8 times in 10", and a warning when small. */
export function detectableDrop(questions: number, repeats: number, options: PowerOptions = {}): Detectable {
  const drop = options.drop ?? 0.1;
  const power = passRatePower(questions, repeats, { ...options, drop });
  const size = sizeOf(questions, repeats);
  const line = `${size}: a ${percent(drop)} drop in pass rate is found ${timesInTen(power)}`;
  const detectable: Detectable = { questions, repeats, drop, power, line };
  if (passRatePower(questions, repeats, { ...options, drop: 0.2 }) >= 0.8) return detectable;
  // The smallest suite that finds a 20% drop 8 times in 10: more questions, or more repeats.
  const enough = (q: number, r: number) => passRatePower(q, r, { ...options, drop: 0.2 }) >= 0.8;
  let moreQuestions = Math.max(1, questions);
  while (!enough(moreQuestions, repeats) && moreQuestions < 10_000) moreQuestions++;
  let moreRepeats = Math.max(1, repeats);
  while (!enough(questions, moreRepeats) && moreRepeats < 100) moreRepeats++;
  const alternatives = [sizeOf(moreQuestions, repeats)];
  if (questions > 0 && enough(questions, moreRepeats)) alternatives.push(sizeOf(questions, moreRepeats));
  detectable.warning =
    `${size} is too small to find a 20% drop in pass rate 8 times in 10: ` +
    `add questions or repeats (${alternatives.join(', or ')})`;
  return detectable;
}
