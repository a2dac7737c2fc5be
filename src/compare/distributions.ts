// The distributions the tests read, from stdlib's per-function packages (no hand-written
// distribution code), and a seeded generator (pure-rand's Mersenne Twister: stdlib's pulls 300 kB
// into the bundle) so the same data always give the same figures.
import hypergeometricCdf from '@stdlib/stats-base-dists-hypergeometric-cdf';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { mersenne } from 'pure-rand/generator/mersenne';

/** P(Z ≤ z) for a standard normal Z. */
export const phi = (z: number): number => normalCdf(z, 0, 1);

/** The standard normal's quantile: z with P(Z ≤ z) = p. */
export const zQuantile = (p: number): number => normalQuantile(p, 0, 1);

/** P(X ≤ x) for X hypergeometric: `draws` taken from `population`, of which `marked` are marked. */
export const hypergeometricAtMost = (x: number, population: number, marked: number, draws: number): number =>
  hypergeometricCdf(x, population, marked, draws);

/** A uniform [0, 1) generator (Mersenne Twister) from a seed. */
export function seededUniform(seed: number): () => number {
  const generator = mersenne(seed | 0);
  return () => uniformFloat64(generator);
}
