// Tests and intervals for pass/fail data (never a rank test on 0/1): the Cochran–Mantel–Haenszel
// test across questions with the Mantel–Haenszel risk difference and Sato's variance for the
// suite, and for one check (or any pooled share) Fisher's exact test with Newcombe's interval.
// Each gives the two-sided 95% interval (what the tables show) and the one-sided 95% bounds (what
// a one-sided test at 5% decides by).
import { hypergeometricAtMost, hypergeometricExactly, phi, zQuantile } from './distributions.js';

/** One question's 2×2 table: events and trials on each side. */
export interface Stratum {
  baselineEvents: number;
  baselineTrials: number;
  candidateEvents: number;
  candidateTrials: number;
}

/**
 * A difference (candidate minus baseline) with its one-sided p-values, its two-sided (1 − level)
 * interval and its one-sided (1 − level) bounds (the ends a one-sided test at `level` reads).
 */
export interface BinaryTest {
  difference: number;
  /** P-value of "the candidate's rate is lower" (H0: not lower) and of "higher". */
  pLower: number;
  pHigher: number;
  /** The two-sided (1 − level) interval: each end at level / 2. */
  low: number;
  high: number;
  /** One-sided (1 − level) bounds: the difference is at least `lowerBound`, at most `upperBound`. */
  lowerBound: number;
  upperBound: number;
}

/** The normal quantiles of a two-sided (1 − level) interval and of a one-sided (1 − level) bound. */
const quantilesOf = (level: number) => ({ twoSided: zQuantile(1 - level / 2), oneSided: zQuantile(1 - level) });

const clampShare = (x: number): number => Math.max(-1, Math.min(1, x));

/** Past this many steps the exact distribution is left to the normal one (then a good approximation). */
const EXACT_STEPS = 20_000_000;

/**
 * The exact conditional test behind Cochran–Mantel–Haenszel, as mid-p values: with every
 * question's margins fixed, the candidate's passes in a question are hypergeometric, and their sum
 * over questions has the convolution of those distributions. The normal approximation over-called
 * regressions with few informative questions (6.2% at a 5% level with 50 × 3, most questions
 * near-certain); the exact test kept 3.7% and lost power (79% for a 10% drop); the mid-p keeps the
 * level (5.0% over 4,000 A/A comparisons) with 82% power.
 * Undefined when the distribution would be too large to build (thousands of informative questions).
 */
function exactMidP(strata: readonly Stratum[]): { pLower: number; pHigher: number } | undefined {
  let distribution = [1];
  let observed = 0;
  let steps = 0;
  for (const s of strata) {
    const n1 = s.candidateTrials;
    const n0 = s.baselineTrials;
    if (n1 === 0 || n0 === 0) continue;
    const events = s.baselineEvents + s.candidateEvents;
    const low = Math.max(0, events - n0);
    const high = Math.min(events, n1);
    observed += s.candidateEvents - low;
    if (high === low) continue;
    steps += distribution.length * (high - low + 1);
    if (steps > EXACT_STEPS) return undefined;
    const pmf: number[] = [];
    for (let x = low; x <= high; x++) pmf.push(hypergeometricExactly(x, n0 + n1, events, n1));
    const next = new Array<number>(distribution.length + pmf.length - 1).fill(0);
    for (let i = 0; i < distribution.length; i++)
      for (let j = 0; j < pmf.length; j++) next[i + j] += distribution[i] * pmf[j];
    distribution = next;
  }
  let below = 0;
  for (let i = 0; i < observed; i++) below += distribution[i];
  const at = distribution[observed];
  const above = Math.max(0, 1 - below - at);
  return { pLower: Math.min(1, below + at / 2), pHigher: Math.min(1, above + at / 2) };
}

/**
 * Cochran–Mantel–Haenszel across strata (one-sided: the exact conditional mid-p values), with the
 * Mantel–Haenszel weighted risk difference and Sato's (1989) variance for its bounds. Where that
 * variance is nil (every question all-pass or all-fail on each side: 2/2 against 2/2 would read as
 * certain), the bounds are Newcombe's on the pooled attempts instead. Strata with one side empty
 * add nothing. Null when no stratum has both sides.
 */
export function stratifiedDifference(strata: readonly Stratum[], level: number): BinaryTest | null {
  let observedMinusExpected = 0;
  let cmhVariance = 0;
  let numerator = 0;
  let weight = 0;
  let satoP = 0;
  let satoQ = 0;
  let used = 0;
  const pooled = [0, 0, 0, 0];
  for (const s of strata) {
    const n1 = s.candidateTrials;
    const n0 = s.baselineTrials;
    const total = n1 + n0;
    if (n1 === 0 || n0 === 0) continue;
    used++;
    pooled[0] += s.baselineEvents;
    pooled[1] += n0;
    pooled[2] += s.candidateEvents;
    pooled[3] += n1;
    const a1 = s.candidateEvents;
    const a0 = s.baselineEvents;
    const events = a1 + a0;
    observedMinusExpected += a1 - (n1 * events) / total;
    if (total > 1) cmhVariance += (n1 * n0 * events * (total - events)) / (total * total * (total - 1));
    numerator += (a1 * n0 - a0 * n1) / total;
    weight += (n1 * n0) / total;
    satoP += (n1 * n1 * a0 - n0 * n0 * a1 + (n1 * n0 * (n0 - n1)) / 2) / (total * total);
    satoQ += (a1 * (n0 - a0) + a0 * (n1 - a1)) / (2 * total);
  }
  if (used === 0) return null;
  const difference = numerator / weight;
  const dispersion = overDispersion(strata);
  const variance = Math.max(0, (dispersion * (difference * satoP + satoQ)) / (weight * weight));
  const ends = (z: number) =>
    variance > 0
      ? [difference - z * Math.sqrt(variance), difference + z * Math.sqrt(variance)].map(clampShare)
      : newcombe(pooled[0], pooled[1], pooled[2], pooled[3], z).map(clampShare);
  const z = quantilesOf(level);
  const [[low, high], [lowerBound, upperBound]] = [ends(z.twoSided), ends(z.oneSided)];
  // No variation anywhere (every attempt alike on both sides): no evidence either way.
  const statistic = cmhVariance > 0 ? observedMinusExpected / Math.sqrt(dispersion * cmhVariance) : 0;
  // Over-dispersed (repeats more alike within a side than across): the inflated normal test.
  const exact = cmhVariance > 0 && dispersion === 1 ? exactMidP(strata) : undefined;
  return {
    difference,
    pLower: cmhVariance > 0 ? (exact?.pLower ?? phi(statistic)) : 1,
    pHigher: cmhVariance > 0 ? (exact?.pHigher ?? 1 - phi(statistic)) : 1,
    low,
    high,
    lowerBound,
    upperBound,
  };
}

/**
 * How much more the questions' differences vary than repeats drawn independently would make them
 * (a question better or worse on a given day: its repeats alike within a side): Pearson's
 * statistic of the informative questions around their common difference, each on its conditional
 * (hypergeometric) variance, over its degrees of freedom; 1 when no more (or too few questions to
 * tell). The pass rate's variance is multiplied by it.
 */
export function overDispersion(strata: readonly Stratum[]): number {
  const residuals: number[] = [];
  const variances: number[] = [];
  for (const s of strata) {
    const [n1, n0] = [s.candidateTrials, s.baselineTrials];
    const total = n1 + n0;
    const events = s.candidateEvents + s.baselineEvents;
    if (n1 === 0 || n0 === 0 || total < 2 || events === 0 || events === total) continue;
    residuals.push(s.candidateEvents - (n1 * events) / total);
    variances.push((n1 * n0 * events * (total - events)) / (total * total * (total - 1)));
  }
  if (residuals.length < 2) return 1;
  const common = residuals.reduce((a, b) => a + b, 0) / variances.reduce((a, b) => a + b, 0);
  let pearson = 0;
  for (let k = 0; k < residuals.length; k++) pearson += (residuals[k] - common * variances[k]) ** 2 / variances[k];
  return Math.max(1, pearson / (residuals.length - 1));
}

/** Wilson's score interval for one share, each end at the normal quantile z. */
function wilson(events: number, trials: number, z: number): [number, number] {
  const p = events / trials;
  const denominator = 1 + (z * z) / trials;
  const centre = p + (z * z) / (2 * trials);
  const spread = z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  return [(centre - spread) / denominator, (centre + spread) / denominator];
}

/**
 * Two pooled shares: Fisher's exact test (one-sided each way, conditioning on the margins) and
 * Newcombe's hybrid score interval (his method 10) for the difference. Null when a side is empty.
 */
export function pooledDifference(
  baselineEvents: number,
  baselineTrials: number,
  candidateEvents: number,
  candidateTrials: number,
  level: number,
): BinaryTest | null {
  if (baselineTrials === 0 || candidateTrials === 0) return null;
  const total = baselineTrials + candidateTrials;
  const events = baselineEvents + candidateEvents;
  // The candidate's events among all events, drawn as candidateTrials from the pooled attempts.
  const pLower = hypergeometricAtMost(candidateEvents, total, events, candidateTrials);
  const pHigher =
    candidateEvents === 0 ? 1 : 1 - hypergeometricAtMost(candidateEvents - 1, total, events, candidateTrials);
  const ends = (z: number) =>
    newcombe(baselineEvents, baselineTrials, candidateEvents, candidateTrials, z).map(clampShare);
  const z = quantilesOf(level);
  const [[low, high], [lowerBound, upperBound]] = [ends(z.twoSided), ends(z.oneSided)];
  return {
    difference: candidateEvents / candidateTrials - baselineEvents / baselineTrials,
    pLower: Math.min(1, pLower),
    pHigher: Math.min(1, Math.max(0, pHigher)),
    low,
    high,
    lowerBound,
    upperBound,
  };
}

/** Newcombe's hybrid score bounds (his method 10) on a difference of two shares, from Wilson's. */
function newcombe(
  baselineEvents: number,
  baselineTrials: number,
  candidateEvents: number,
  candidateTrials: number,
  z: number,
): [number, number] {
  const p1 = candidateEvents / candidateTrials;
  const p0 = baselineEvents / baselineTrials;
  const [l1, u1] = wilson(candidateEvents, candidateTrials, z);
  const [l0, u0] = wilson(baselineEvents, baselineTrials, z);
  const difference = p1 - p0;
  return [
    difference - Math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2),
    difference + Math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2),
  ];
}
