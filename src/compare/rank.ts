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
