// The distributions the tests read, from jStat (no hand-written distribution code: stdlib's
// per-function packages did the same in 218 kB of the bundle, jStat in 57 kB), and a seeded
// generator (pure-rand's Mersenne Twister) so the same data always give the same figures.
import jStat from 'jstat';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { mersenne } from 'pure-rand/generator/mersenne';

/** P(Z ≤ z) for a standard normal Z. */
export const phi = (z: number): number => jStat.normal.cdf(z, 0, 1);

/** The standard normal's quantile: z with P(Z ≤ z) = p. */
export const zQuantile = (p: number): number => jStat.normal.inv(p, 0, 1);

/** P(X ≤ x) for X hypergeometric: `draws` taken from `population`, of which `marked` are marked. */
export const hypergeometricAtMost = (x: number, population: number, marked: number, draws: number): number =>
  jStat.hypgeom.cdf(x, population, marked, draws);

/** P(X = x) for X hypergeometric, as `hypergeometricAtMost`. */
export const hypergeometricExactly = (x: number, population: number, marked: number, draws: number): number =>
  jStat.hypgeom.pdf(x, population, marked, draws);

/** A uniform [0, 1) generator (Mersenne Twister) from a seed. */
export function seededUniform(seed: number): () => number {
  const generator = mersenne(seed | 0);
  return () => uniformFloat64(generator);
}

/**
 * P(X ≤ k) for k = 0…n, X binomial (n, p): the probabilities from the mode outwards (the mode's
 * from the log-gamma function, each neighbour by the ratio of consecutive terms), so that no term
 * underflows where it matters, then summed. Linear in n.
 */
export function binomialAtMostAll(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  const mode = Math.min(n, Math.floor((n + 1) * p));
  pmf[mode] = Math.exp(
    jStat.gammaln(n + 1) -
      jStat.gammaln(mode + 1) -
      jStat.gammaln(n - mode + 1) +
      mode * Math.log(p) +
      (n - mode) * Math.log1p(-p),
  );
  const odds = p / (1 - p);
  for (let k = mode; k < n; k++) pmf[k + 1] = (pmf[k] * (n - k) * odds) / (k + 1);
  for (let k = mode; k > 0; k--) pmf[k - 1] = (pmf[k] * k) / ((n - k + 1) * odds);
  const cdf = new Float64Array(n + 1);
  let sum = 0;
  for (let k = 0; k <= n; k++) cdf[k] = Math.min(1, (sum += pmf[k]));
  return cdf;
}
