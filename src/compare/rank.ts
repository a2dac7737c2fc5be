// Rank methods for continuous figures (latency, judge scores): the Mann–Whitney test (normal
// approximation with the tie correction and a continuity correction, as scipy's asymptotic
// method) and the Hodges–Lehmann shift with its distribution-free interval from the ordered
// pairwise differences (Lehmann 1963; Bauer 1972).
import { phi, zQuantile } from './distributions.js';

/** Midranks (1-based) of the values, and the sum over tie groups of t³ − t. */
function midranks(values: readonly number[]): { ranks: number[]; ties: number } {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  let ties = 0;
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1][0] === order[start][0]) end++;
    const rank = (start + end + 2) / 2;
    for (let k = start; k <= end; k++) ranks[order[k][1]] = rank;
    const t = end - start + 1;
    ties += t * t * t - t;
    start = end + 1;
  }
  return { ranks, ties };
}

export interface MannWhitney {
  /** U of the candidate: the pairs (candidate, baseline) where the candidate is larger, ties half. */
  u: number;
  /** One-sided p-values: the candidate tends larger, or smaller. */
  pGreater: number;
  pLess: number;
}

/** Mann–Whitney of `candidate` against `baseline` (each non-empty). */
export function mannWhitney(candidate: readonly number[], baseline: readonly number[]): MannWhitney {
  const n1 = candidate.length;
  const n2 = baseline.length;
  const { ranks, ties } = midranks([...candidate, ...baseline]);
  let rankSum = 0;
  for (let i = 0; i < n1; i++) rankSum += ranks[i];
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  const total = n1 + n2;
  const mean = (n1 * n2) / 2;
  const sd = Math.sqrt(((n1 * n2) / 12) * (total + 1 - ties / (total * (total - 1))));
  if (!(sd > 0)) return { u, pGreater: 1, pLess: 1 };
  // scipy: z = (U − mean − 0.5) / sd with U the statistic of the tested direction.
  const pGreater = 1 - phi((u - mean - 0.5) / sd);
  const pLess = 1 - phi((n1 * n2 - u - mean - 0.5) / sd);
  return { u, pGreater: Math.min(1, pGreater), pLess: Math.min(1, pLess) };
}

export interface Shift {
  /** The median of all pairwise differences candidate − baseline. */
  estimate: number;
  /** The two-sided (1 − level) interval on the shift: each end at level / 2. */
  low: number;
  high: number;
  /** One-sided (1 − level) bounds: the shift is at least `lowerBound`, at most `upperBound`. */
  lowerBound: number;
  upperBound: number;
}

/**
 * The Hodges–Lehmann shift of `candidate` over `baseline`, with its two-sided (1 − level) interval
 * and its one-sided (1 − level) bounds.
 */
export function hodgesLehmann(candidate: readonly number[], baseline: readonly number[], level: number): Shift {
  const n1 = candidate.length;
  const n2 = baseline.length;
  const differences = new Float64Array(n1 * n2);
  let k = 0;
  for (const c of candidate) for (const b of baseline) differences[k++] = c - b;
  differences.sort();
  const m = differences.length;
  const estimate = m % 2 ? differences[(m - 1) / 2] : (differences[m / 2 - 1] + differences[m / 2]) / 2;
  // Each end is the c-th smallest or c-th largest difference, c from U's normal approximation.
  const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  const ends = (tail: number) => {
    const c = Math.max(1, Math.floor((n1 * n2) / 2 - zQuantile(1 - tail) * sd));
    return [differences[c - 1], differences[m - c]];
  };
  const [[low, high], [lowerBound, upperBound]] = [ends(level / 2), ends(level)];
  return { estimate, low, high, lowerBound, upperBound };
}

/** The q-quantile of the values by linear interpolation (numpy's default, type 7). */
export function quantile(values: readonly number[], q: number): number {
  return quantileOfSorted(Float64Array.from(values).sort(), q);
}

/** The same, of values already in ascending order. */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/** Past this many pairs (n1 · n2) one stratum's U is read from its normal approximation. */
export const EXACT_PAIRS = 2_500;

/**
 * The exact null distribution of U (no ties) for samples of n1 and n2: P(U = u) for u = 0…n1·n2,
 * by the recursion on the last value's sample (P(n1, n2, u) = n1/(n1+n2) P(n1−1, n2, u−n2) +
 * n2/(n1+n2) P(n1, n2−1, u)), as scipy's mannwhitneyu(method='exact') counts it.
 */
export function exactU(n1: number, n2: number): Float64Array {
  // rows[b] is the distribution for (a, b) at the current a.
  let previous: Float64Array[] = Array.from({ length: n2 + 1 }, () => Float64Array.of(1));
  for (let a = 1; a <= n1; a++) {
    const current: Float64Array[] = [Float64Array.of(1)];
    for (let b = 1; b <= n2; b++) {
      const next = new Float64Array(a * b + 1);
      const [fromA, fromB] = [previous[b], current[b - 1]];
      const [wa, wb] = [a / (a + b), b / (a + b)];
      for (let u = 0; u < fromA.length; u++) next[u + b] += wa * fromA[u];
      for (let u = 0; u < fromB.length; u++) next[u] += wb * fromB[u];
      current.push(next);
    }
    previous = current;
  }
  return previous[n2];
}

/** One question's reply times on both sides, each an interval [low, high] (equal when exact), on the log scale. */
export interface TimedStratum {
  candidateLow: Float64Array;
  candidateHigh: Float64Array;
  baselineLow: Float64Array;
  baselineHigh: Float64Array;
}

/** The pairs (candidate − shift, baseline) where the candidate is larger, ties half: two sorted arrays, one pass. */
function pairsAbove(candidate: Float64Array, baseline: Float64Array, shift: number): number {
  let count = 0;
  let below = 0;
  let atOrBelow = 0;
  for (let i = 0; i < candidate.length; i++) {
    const x = candidate[i] - shift;
    while (below < baseline.length && baseline[below] < x) below++;
    if (atOrBelow < below) atOrBelow = below;
    while (atOrBelow < baseline.length && baseline[atOrBelow] <= x) atOrBelow++;
    count += below + (atOrBelow - below) / 2;
  }
  return count;
}

/** Sorted ascending copies, so that each count is one merge-like pass. */
export function sortedStratum(s: TimedStratum): TimedStratum {
  const sort = (xs: Float64Array) => Float64Array.from(xs).sort();
  return {
    candidateLow: sort(s.candidateLow),
    candidateHigh: sort(s.candidateHigh),
    baselineLow: sort(s.baselineLow),
    baselineHigh: sort(s.baselineHigh),
  };
}

export interface StratifiedShift extends Shift {
  /** One-sided p-values of "the shift exceeds +margin" and "is below −margin" (the tested direction's least favourable ends). */
  pGreater: number;
  pLess: number;
  /** The smallest p-value each way the data's sizes allow (all candidate values above every baseline one, or below). */
  smallestP: number;
  /** How wide the intervals are on the log scale, at most: what censoring alone could explain. */
  width: number;
}

/**
 * The shift (candidate over baseline) across strata, each question its own stratum. One stratum
 * of at most EXACT_PAIRS pairs is exact (U's exact distribution, its bounds the ordered pairwise
 * differences). Otherwise, times measured exactly (every interval of width 0: a synchronous
 * Claw's) go to the aligned-rank test (`alignedShift`), which keeps the information between
 * questions that ranking within each small question throws away; times known only to an interval
 * (a task's, polled) go to van Elteren's test (`vanElterenShift`), whose counts on the least
 * favourable ends are what makes a change the intervals could explain never count.
 */
export function stratifiedShift(raw: TimedStratum[], level: number, margin: number): StratifiedShift {
  const strata = raw.filter((s) => s.candidateLow.length && s.baselineLow.length).map(sortedStratum);
  const width = widest(strata);
  if (strata.length === 1 && strata[0].candidateLow.length * strata[0].baselineLow.length <= EXACT_PAIRS)
    return exactShift(strata[0], middleOf(strata[0]), level, margin, width);
  return width === 0 ? alignedShift(strata, level, margin) : vanElterenShift(strata, level, margin);
}

/** The widest interval of any time (0 when every time is exact). */
function widest(strata: readonly TimedStratum[]): number {
  let width = 0;
  for (const s of strata)
    for (const [lo, hi] of [
      [s.candidateLow, s.candidateHigh],
      [s.baselineLow, s.baselineHigh],
    ] as const)
      for (let i = 0; i < lo.length; i++) width = Math.max(width, hi[i] - lo[i]);
  return width;
}

/** The intervals' middles, sorted: where the estimate is read. */
function middleOf(s: TimedStratum): { candidate: Float64Array; baseline: Float64Array } {
  return {
    candidate: Float64Array.from(s.candidateLow, (x, i) => (x + s.candidateHigh[i]) / 2).sort(),
    baseline: Float64Array.from(s.baselineLow, (x, i) => (x + s.baselineHigh[i]) / 2).sort(),
  };
}

/** A continuous test of the shift: its one-sided p-values at any shift, its statistic on the middles. */
interface ShiftTest {
  /** P of "the shift is at most `shift`" (a small value: the data say it is larger), and the mirror. */
  pGreaterAt: (shift: number) => number;
  pLessAt: (shift: number) => number;
  /** The statistic on the middles with the candidate moved down by `shift`: crosses 0 at the estimate. */
  middleAt: (shift: number) => number;
  smallestP: number;
  /** How finely the crossings are found, relative (a costly statistic is found less finely than 1e-13). */
  precision?: number;
}

/** The estimate, the bounds by inverting the test (±Infinity where the data cannot give them), the p-values. */
function invert(
  test: ShiftTest,
  [lowest, highest]: [number, number],
  level: number,
  margin: number,
  width: number,
): StratifiedShift {
  const boundAt = (alpha: number) => ({
    // The smallest shift not rejected by "shift ≤ δ" at alpha, and the largest not rejected the other way.
    lower:
      test.smallestP > alpha
        ? -Infinity
        : crossing(lowest, highest, (d) => test.pGreaterAt(d) >= alpha, test.precision),
    upper:
      test.smallestP > alpha ? Infinity : crossing(lowest, highest, (d) => test.pLessAt(d) < alpha, test.precision),
  });
  const estimate =
    (crossing(lowest, highest, (d) => test.middleAt(d) <= 0, test.precision) +
      crossing(lowest, highest, (d) => test.middleAt(d) < 0, test.precision)) /
    2;
  const [two, one] = [boundAt(level / 2), boundAt(level)];
  return {
    estimate,
    low: two.lower,
    high: two.upper,
    lowerBound: one.lower,
    upperBound: one.upper,
    pGreater: Math.min(1, test.pGreaterAt(margin)),
    pLess: Math.min(1, test.pLessAt(-margin)),
    smallestP: test.smallestP,
    width,
  };
}

/**
 * Van Elteren's stratified rank test (weights 1 / (n1 + n0 + 1)) on interval-censored values: a
 * test that the candidate is larger reads its lowest ends against the baseline's highest (a
 * change the intervals could explain never counts), and the other way round; the normal
 * approximation with a continuity correction. The estimate is where the statistic on the
 * intervals' middles crosses its mean.
 */
export function vanElterenShift(raw: TimedStratum[], level: number, margin: number): StratifiedShift {
  const strata = raw.filter((s) => s.candidateLow.length && s.baselineLow.length).map(sortedStratum);
  const middle = strata.map(middleOf);
  const weights = strata.map((s) => 1 / (s.candidateLow.length + s.baselineLow.length + 1));
  let variance = 0;
  let correction = 0;
  for (const [k, s] of strata.entries()) {
    const [n1, n0] = [s.candidateLow.length, s.baselineLow.length];
    variance += weights[k] ** 2 * ((n1 * n0 * (n1 + n0 + 1)) / 12);
    correction = Math.max(correction, weights[k] / 2);
  }
  const sd = Math.sqrt(variance);
  // The weighted sum of (U − its mean) with the candidate moved down by `shift`.
  const statistic = (shift: number, pick: (k: number) => [Float64Array, Float64Array]) => {
    let t = 0;
    for (let k = 0; k < strata.length; k++) {
      const [c, b] = pick(k);
      t += weights[k] * (pairsAbove(c, b, shift) - (c.length * b.length) / 2);
    }
    return t;
  };
  const upward = (k: number): [Float64Array, Float64Array] => [strata[k].candidateLow, strata[k].baselineHigh];
  const downward = (k: number): [Float64Array, Float64Array] => [strata[k].candidateHigh, strata[k].baselineLow];
  const mid = (k: number): [Float64Array, Float64Array] => [middle[k].candidate, middle[k].baseline];
  let maximum = 0;
  for (const [k, s] of strata.entries()) maximum += weights[k] * ((s.candidateLow.length * s.baselineLow.length) / 2);
  const test: ShiftTest = {
    pGreaterAt: (shift) => 1 - phi((statistic(shift, upward) - correction) / sd),
    pLessAt: (shift) => 1 - phi((-statistic(shift, downward) - correction) / sd),
    middleAt: (shift) => statistic(shift, mid),
    smallestP: 1 - phi((maximum - correction) / sd),
  };
  return invert(test, range(strata), level, margin, widest(strata));
}

/**
 * Hodges and Lehmann's aligned-rank test (1962) for exactly measured values in many strata: each
 * stratum's values less the stratum's mean, ranked together across strata; the candidate's rank
 * sum against its distribution under exchanging the values within each stratum (the alignment is
 * the same for every exchange, so the test is a permutation test), by its normal approximation
 * with a continuity correction of ½. Its p-values are never below 1 / (the number of exchanges),
 * and never below what √Σ(n − 1) standard deviations give (the largest the statistic can reach).
 */
export function alignedShift(raw: TimedStratum[], level: number, margin: number): StratifiedShift {
  const strata = raw
    .filter((s) => s.candidateLow.length && s.baselineLow.length)
    .map((s) => ({ c: Float64Array.from(s.candidateLow), b: Float64Array.from(s.baselineLow) }));
  let logExchanges = 0;
  let reach = 0;
  for (const { c, b } of strata) {
    logExchanges += logChoose(c.length + b.length, c.length);
    reach += c.length + b.length - 1;
  }
  const floor = Math.max(Math.exp(-logExchanges), 1 - phi(Math.sqrt(reach)));
  const size = strata.reduce((sum, s) => sum + s.c.length + s.b.length, 0);
  const [aligned, sorted] = [new Float64Array(size), new Float64Array(size)];
  const at = (shift: number) => alignedStatistic(strata, shift, aligned, sorted);
  const p = (z: number) => Math.max(floor, 1 - phi(z));
  const test: ShiftTest = {
    pGreaterAt: (shift) => {
      const { t, sd } = at(shift);
      return sd > 0 ? p((t - 0.5) / sd) : 1;
    },
    pLessAt: (shift) => {
      const { t, sd } = at(shift);
      return sd > 0 ? p((-t - 0.5) / sd) : 1;
    },
    middleAt: (shift) => at(shift).t,
    smallestP: floor,
    // A sort a look: 1e-9 on the log scale is a millionth of a millisecond at a second's median.
    precision: 1e-9,
  };
  return invert(test, range(strata.map((s) => exactStratum(s.c, s.b))), level, margin, 0);
}

const exactStratum = (c: Float64Array, b: Float64Array): TimedStratum =>
  sortedStratum({ candidateLow: c, candidateHigh: c, baselineLow: b, baselineHigh: b });

/** ln C(n, k), by summing logarithms (n is a stratum's size: small). */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

/**
 * The aligned-rank statistic with the candidate moved down by `shift`: the candidate's rank sum
 * less its mean under exchange within strata (t), and its standard deviation. Midranks by a
 * native sort and two binary searches a value; the buffers are the caller's (one a test).
 */
function alignedStatistic(
  strata: readonly { c: Float64Array; b: Float64Array }[],
  shift: number,
  aligned: Float64Array,
  sorted: Float64Array,
): { t: number; sd: number } {
  let at = 0;
  for (const { c, b } of strata) {
    let sum = 0;
    for (const x of c) sum += x - shift;
    for (const y of b) sum += y;
    const mean = sum / (c.length + b.length);
    // On a grid of 1e-9 (a millionth of a millisecond at a second's median): values that tie in
    // exact arithmetic tie here too, whatever order the mean was summed in.
    for (const x of c) aligned[at++] = Math.round((x - shift - mean) * 1e9) / 1e9;
    for (const y of b) aligned[at++] = Math.round((y - mean) * 1e9) / 1e9;
  }
  sorted.set(aligned);
  sorted.sort();
  const size = sorted.length;
  // The midrank of x: (the values below it + the values at or below it + 1) / 2.
  const rank = (x: number) => {
    let [lo, hi] = [0, size];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    let above = lo;
    while (above < size && sorted[above] === x) above++;
    return (lo + above + 1) / 2;
  };
  let [t, variance] = [0, 0];
  at = 0;
  for (const { c, b } of strata) {
    const [m, n] = [c.length, c.length + b.length];
    let [sum, squares, candidate] = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      const r = rank(aligned[at + i]);
      sum += r;
      squares += r * r;
      if (i < m) candidate += r;
    }
    t += candidate - (m * sum) / n;
    variance += ((m * (n - m)) / (n * (n - 1))) * (squares - (sum * sum) / n);
    at += n;
  }
  return { t, sd: Math.sqrt(Math.max(0, variance)) };
}

/** The widest shift any pair could show, and the narrowest: where the crossings are looked for. */
function range(strata: TimedStratum[]): [number, number] {
  let [low, high] = [Infinity, -Infinity];
  for (const s of strata) {
    low = Math.min(low, s.candidateLow[0] - s.baselineHigh[s.baselineHigh.length - 1]);
    high = Math.max(high, s.candidateHigh[s.candidateHigh.length - 1] - s.baselineLow[0]);
  }
  return [low - 1, high + 1];
}

/** The first shift in [low, high] where a monotone condition (false, then true) holds, by bisection. */
function crossing(low: number, high: number, holds: (shift: number) => boolean, precision = 1e-13): number {
  let [a, b] = [low, high];
  for (let i = 0; i < 200 && b - a > precision * Math.max(1, Math.abs(a), Math.abs(b)); i++) {
    const m = (a + b) / 2;
    if (holds(m)) b = m;
    else a = m;
  }
  return b;
}

/** One small stratum, exactly: U's exact distribution, the bounds the ordered pairwise differences. */
function exactShift(
  s: TimedStratum,
  middle: { candidate: Float64Array; baseline: Float64Array },
  level: number,
  margin: number,
  width: number,
): StratifiedShift {
  const [n1, n0] = [s.candidateLow.length, s.baselineLow.length];
  const pmf = exactU(n1, n0);
  const atLeast = new Float64Array(pmf.length + 1);
  for (let u = pmf.length - 1; u >= 0; u--) atLeast[u] = atLeast[u + 1] + pmf[u];
  const differences = (c: Float64Array, b: Float64Array) => {
    const d = new Float64Array(c.length * b.length);
    let k = 0;
    for (const x of c) for (const y of b) d[k++] = x - y;
    return d.sort();
  };
  const [up, down, mid] = [
    differences(s.candidateLow, s.baselineHigh),
    differences(s.candidateHigh, s.baselineLow),
    differences(middle.candidate, middle.baseline),
  ];
  const m = up.length;
  // The c-th smallest difference bounds the shift from below at 1 − P(U ≤ c − 1) (U symmetric).
  const c = (alpha: number) => {
    let count = 0;
    while (count < m && 1 - atLeast[count + 1] <= alpha) count++;
    return count;
  };
  const ends = (alpha: number) => {
    const k = c(alpha);
    return k === 0 ? [-Infinity, Infinity] : [up[k - 1], down[m - k]];
  };
  const [[low, high], [lowerBound, upperBound]] = [ends(level / 2), ends(level)];
  const estimate = m % 2 ? mid[(m - 1) / 2] : (mid[m / 2 - 1] + mid[m / 2]) / 2;
  // P(U ≥ observed) with U counted on the tested direction's ends (ties half, then rounded up).
  const pAt = (u: number) => atLeast[Math.min(pmf.length, Math.ceil(u - 1e-9))];
  return {
    estimate,
    low,
    high,
    lowerBound,
    upperBound,
    pGreater: pAt(pairsAbove(s.candidateLow, s.baselineHigh, margin)),
    pLess: pAt(m - pairsAbove(s.candidateHigh, s.baselineLow, -margin)),
    smallestP: pmf[pmf.length - 1],
    width,
  };
}
