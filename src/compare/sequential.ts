// When a comparison may stop before every repeat is asked (docs/comparing.md, "When a comparison
// stops early, and why that keeps the level"). After each round of answers (one more repeat of the
// questions on the candidate's side) the comparison is looked at: it stops `regressed` when the
// engine, run at that look's share of the level, reads `regressed`; it stops `unchanged` when
// every primary metric's interval already lies inside its tolerance. The level is spent by a fixed
// plan (alpha spending, Bonferroni over the planned looks): the interim looks share INTERIM_SHARE
// of it equally, the last look runs at the rest. A false `regressed` at any look is then at most the
// sum of the looks' levels, whatever the looks' dependence, so the engine's own discrete,
// stratified and bootstrap tests keep their meaning at each look. A stop for `unchanged` never adds
// a false `regressed` (it only removes later looks). A close call reaches the last look.
import { DEFAULT_LEVEL, DEFAULT_TOLERANCE } from './engine.js';
import { phi, zQuantile } from './distributions.js';
import type { Comparison, Tolerances } from './types.js';

/** The share of the level the interim looks spend together; the last look runs at the rest. */
export const INTERIM_SHARE = 0.4;

/**
 * Each look's level, in order: `looks - 1` interim looks at an equal share of `interimShare` of the
 * level, the last at the rest. One look: the whole level. They sum to `level`.
 */
export function lookLevels(looks: number, level = DEFAULT_LEVEL, interimShare = INTERIM_SHARE): number[] {
  const k = Math.max(1, Math.floor(looks));
  if (k === 1) return [level];
  const interim = (level * interimShare) / (k - 1);
  return [...Array.from({ length: k - 1 }, () => interim), level * (1 - interimShare)];
}

export type Stop = 'regressed' | 'unchanged';

/**
 * Whether an interim look, compared at its own level, is decisive: `regressed` when `behaviour`
 * is; `unchanged` when nothing is regressed or inconclusive and every primary metric's interval
 * lies inside its tolerance (pass rates and the unjudged share in points, latency relative to the
 * baseline's median). A tolerance of 0 (the default for pass rates) never stops for `unchanged`.
 */
export function decisive(comparison: Comparison, tolerance: Tolerances = {}): Stop | undefined {
  if (comparison.behaviour === 'regressed') return 'regressed';
  if (comparison.behaviour !== 'unchanged' && comparison.behaviour !== 'improved') return undefined;
  const tol = { ...DEFAULT_TOLERANCE, ...tolerance };
  const primary = comparison.metrics.filter((m) => m.primary);
  if (primary.length === 0) return undefined;
  const inside = primary.every((m) => {
    if (m.low === null || m.high === null) return m.metric !== 'pass-rate';
    const allowed =
      m.metric === 'latency-p50'
        ? tol.latency * (m.baseline.value ?? 0)
        : m.metric === 'unjudged'
          ? tol.unjudged
          : m.metric === 'score'
            ? tol.score
            : tol.passRate;
    return allowed > 0 && m.low >= -allowed && m.high <= allowed;
  });
  return inside ? 'unchanged' : undefined;
}

/**
 * The chance that a z statistic observed at the information times `times` (increasing, the last
 * 1) ever crosses the one-sided boundary of `levels` (look k at z_{1-levels[k]}) when nothing
 * changed: the Brownian-motion model of group-sequential designs, integrated look by look on a
 * grid (Armitage, McPherson and Rowe's recursion). The test holds it against scipy's multivariate
 * normal; it shows how much of the level the Bonferroni plan leaves unspent.
 */
export function crossingProbability(levels: readonly number[], times: readonly number[], step = 0.02): number {
  const bounds = levels.map((a, k) => zQuantile(1 - a) * Math.sqrt(times[k]));
  const low = -8;
  // The density of the running sum S (variance t) on a grid below each look's bound.
  let grid: number[] = [];
  let density: number[] = [];
  let crossed = 0;
  let previousT = 0;
  for (let k = 0; k < levels.length; k++) {
    const dt = times[k] - previousT;
    const sd = Math.sqrt(dt);
    const top = bounds[k];
    if (k === 0) {
      crossed += 1 - phi(top / sd);
      grid = [];
      for (let x = low * sd; x < top; x += step) grid.push(x);
      density = grid.map((x) => Math.exp((-x * x) / (2 * dt)) / (sd * Math.sqrt(2 * Math.PI)));
    } else {
      // Mass that goes on from below the last bound and crosses this one.
      for (let i = 0; i < grid.length; i++) crossed += density[i] * step * (1 - phi((top - grid[i]) / sd));
      const nextGrid: number[] = [];
      for (let x = grid[0] - 4 * sd; x < top; x += step) nextGrid.push(x);
      const next = nextGrid.map((y) => {
        let sum = 0;
        for (let i = 0; i < grid.length; i++) {
          const d = (y - grid[i]) / sd;
          if (d > -9 && d < 9) sum += density[i] * Math.exp((-d * d) / 2);
        }
        return (sum * step) / (sd * Math.sqrt(2 * Math.PI));
      });
      grid = nextGrid;
      density = next;
    }
    previousT = times[k];
  }
  return crossed;
}
