// What a suite of a given size can detect, stated before the first request. Analytic, from the
// baseline's own per-question rates when they are known (`rates`: this run's, a saved run's), a
// reference profile otherwise: the Mantel–Haenszel difference over Q questions of r repeats has,
// where nothing changed, variance Σ 2p̄(1−p̄) / (r·Q²) (p̄ the question's rate over both sides:
// what the test's critical value rests on) and, after the drop, Σ (p₀(1−p₀) + p₁(1−p₁)) / (r·Q²);
// a question that never varies adds nothing. The suite's one-sided test at its share of the level
// past the tolerance finds a drop Δ with probability Φ((Δ − tolerance − z₁₋level·sd₀) / sd₁).
// The bench (test/bench/compare-realistic.ts) checks the figure against the power measured.
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
  /** The baseline's pass rate (default 0.9), for the reference profile. */
  passRate?: number;
  /**
   * The baseline's rate for each question (0 to 1), when known: the line is then this suite's
   * (each question's rate drops by the same share). Takes precedence over `passRate`.
   */
  rates?: readonly number[];
}

/** A question's rate as the power line reads it from a run: passes + ½ over attempts + 1 (never certain on a few attempts). */
export const estimatedRate = (passes: number, attempts: number): number => (passes + 0.5) / (attempts + 1);

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
  if (questions < 1 || repeats < 1) return 0;
  const profile = options.rates?.length
    ? options.rates.map((rate) => ({ share: 1 / options.rates!.length, rate }))
    : referenceProfile(options.passRate);
  let delta = 0;
  let nullVariance = 0;
  let variance = 0;
  for (const { share, rate } of profile) {
    const after = rate * (1 - drop);
    const pooled = (rate + after) / 2;
    delta += share * (rate - after);
    nullVariance += share * 2 * pooled * (1 - pooled);
    variance += share * (rate * (1 - rate) + after * (1 - after));
  }
  const [sd0, sd1] = [Math.sqrt(nullVariance / (repeats * questions)), Math.sqrt(variance / (repeats * questions))];
  if (!(sd1 > 0)) return delta > (options.tolerance ?? 0) ? 1 : 0;
  return phi((delta - (options.tolerance ?? 0) - zQuantile(1 - level) * sd0) / sd1);
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
