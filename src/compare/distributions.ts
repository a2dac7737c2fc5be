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
