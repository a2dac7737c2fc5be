// Each metric's evidence from the two sides: the figures, the change with its two-sided 95%
// interval and its one-sided 95% bounds, the p-values each way against the tolerance, and what
// blocks a verdict (missing data, a judge change). The verdicts and the corrections for many
// metrics are decided in engine.ts.
import { clip, flattenControls } from '../format.js';
import { type Stratum, pooledDifference, stratifiedDifference } from './binary.js';
import { hypergeometricExactly, seededUniform } from './distributions.js';
import { hodgesLehmann, mannWhitney, quantile } from './rank.js';
import type { Attempt, CheckRun, Figure, MetricName } from './types.js';

export interface Evidence {
  check: string;
  metric: MetricName;
  baseline: Figure;
  candidate: Figure;
  change: number | null;
  /** The change's two-sided (1 − level) interval. */
  low: number | null;
  high: number | null;
  /** Its one-sided (1 − level) bounds: the change is at least `lowerBound`, at most `upperBound`. */
  lowerBound: number | null;
  upperBound: number | null;
  /** One-sided p-values: the candidate is worse by more than the tolerance, or better by more. */
  pWorse: number;
  pBetter: number;
  /** +1 when a higher value is worse (latency, the unjudged share), −1 when lower is (pass rates, scores). */
  worse: 1 | -1;
  /** The tolerance in the change's units. */
  margin: number;
  /** Set when no verdict but `inconclusive` can be given, saying why. */
  blocked?: string;
  /**
   * The smallest one-sided p-values the exact test could give each way with these margins (a
   * discrete test: with 2 unjudged attempts in 300 it can never reach 5%). Absent for continuous tests.
   */
  smallestP?: { worse: number; better: number };
}

/** The attempts of one check on both sides, a cached verdict counted once per question and side. */
export interface Paired {
  check: string;
  baseline: Attempt[];
  candidate: Attempt[];
}

export function countedOnce(attempts: readonly Attempt[]): Attempt[] {
  const cachedSeen = new Set<string>();
  return attempts.filter((a) => {
    if (!a.cached) return true;
    if (cachedSeen.has(a.question)) return false;
    cachedSeen.add(a.question);
    return true;
  });
}

export function pair(baseline: readonly CheckRun[], candidate: readonly CheckRun[]): Paired[] {
  // Grouped once by name: linear in the checks (a saved file may hold thousands).
  const byName = new Map<string, { baseline: CheckRun[]; candidate: CheckRun[] }>();
  const add = (runs: readonly CheckRun[], side: 'baseline' | 'candidate'): void => {
    for (const r of runs) {
      const group = byName.get(r.check) ?? byName.set(r.check, { baseline: [], candidate: [] }).get(r.check)!;
      group[side].push(r);
    }
  };
  add(baseline, 'baseline');
  add(candidate, 'candidate');
  const of = (runs: CheckRun[]) => countedOnce(runs.flatMap((r) => r.attempts));
  return [...byName].map(([check, g]) => ({ check, baseline: of(g.baseline), candidate: of(g.candidate) }));
}

/**
 * Why a pass rate cannot be read: too many attempts missing on a side (missing is never a pass).
 * Missing: could not be judged, or never made where the other side made it (a run cut short).
 */
export function tooMuchMissing(pairs: readonly Paired[], maxMissing: number): string | undefined {
  for (const side of ['baseline', 'candidate'] as const) {
    let missing = 0;
    let expected = 0;
    for (const p of pairs) {
      const made = p[side].length;
      const due = Math.max(p.baseline.length, p.candidate.length);
      missing += p[side].filter((a) => a.outcome === 'unjudged').length + (due - made);
      expected += due;
    }
    const share = expected ? missing / expected : 0;
    if (share > maxMissing)
      return `${Math.round(share * 100)}% of the ${side}'s attempts could not be judged or were not made (more than ${Math.round(maxMissing * 100)}%)`;
  }
  return undefined;
}

const identity = (a: Attempt) => (a.judge ? `${a.judge.model}\u0000${a.judge.promptHash}` : '');
const shown = (text: string) => clip(flattenControls(text), 60);

/** A change of judge between the sides (model or grading prompt), named; undefined when none. */
export function judgeChange(pair: Paired): string | undefined {
  const before = [...new Set(pair.baseline.filter((a) => a.judge).map(identity))].sort();
  const after = [...new Set(pair.candidate.filter((a) => a.judge).map(identity))].sort();
  if (before.length === 0 && after.length === 0) return undefined;
  if (before.join('\n') === after.join('\n')) return undefined;
  const name = `check ${shown(pair.check)}`;
  if (before.length === 0 || after.length === 0)
    return `${name} was graded by a judge on the ${before.length ? 'baseline' : 'candidate'} side only`;
  const models = (ids: string[]) => [...new Set(ids.map((i) => i.split('\u0000')[0]))].sort().join(', ');
  if (models(before) !== models(after))
    return `the judge of ${name} changed from ${shown(models(before))} to ${shown(models(after))}`;
  const hashes = (ids: string[]) => ids.map((i) => i.split('\u0000')[1].slice(0, 12)).join(', ');
  return `the grading prompt of ${name} changed (${hashes(before)} → ${hashes(after)})`;
}

const judged = (attempts: readonly Attempt[]) => attempts.filter((a) => a.outcome !== 'unjudged');
const passes = (attempts: readonly Attempt[]) => attempts.filter((a) => a.outcome === 'pass').length;
const rate = (attempts: readonly Attempt[]): Figure => {
  const n = judged(attempts).length;
  return { value: n ? passes(attempts) / n : null, n };
};

/** The suite's pass rate, stratified by question (CMH and the Mantel–Haenszel difference). */
export function suitePassRate(pairs: readonly Paired[], level: number, margin: number): Evidence {
  const strata = new Map<string, Stratum>();
  const stratum = (key: string) => {
    const s = strata.get(key) ?? { baselineEvents: 0, baselineTrials: 0, candidateEvents: 0, candidateTrials: 0 };
    strata.set(key, s);
    return s;
  };
  for (const p of pairs) {
    for (const a of judged(p.baseline)) {
      const s = stratum(`${p.check}\u0000${a.question}`);
      s.baselineTrials++;
      if (a.outcome === 'pass') s.baselineEvents++;
    }
    for (const a of judged(p.candidate)) {
      const s = stratum(`${p.check}\u0000${a.question}`);
      s.candidateTrials++;
      if (a.outcome === 'pass') s.candidateEvents++;
    }
  }
  const test = stratifiedDifference([...strata.values()], level);
  return binaryEvidence(
    '*',
    'pass-rate',
    rate(pairs.flatMap((p) => p.baseline)),
    rate(pairs.flatMap((p) => p.candidate)),
    test,
    -1,
    margin,
  );
}

/** One check's pass rate: Fisher's exact test and Newcombe's interval on its pooled attempts. */
export function checkPassRate(pair: Paired, level: number, margin: number): Evidence {
  const b = rate(pair.baseline);
  const c = rate(pair.candidate);
  const test = pooledDifference(passes(pair.baseline), b.n, passes(pair.candidate), c.n, level);
  return binaryEvidence(pair.check, 'pass-rate', b, c, test, -1, margin);
}

/** The share of attempts that could not be judged: Fisher's exact test, Newcombe's interval. */
export function unjudgedShare(pairs: readonly Paired[], level: number, margin: number): Evidence {
  const b = pairs.flatMap((p) => p.baseline);
  const c = pairs.flatMap((p) => p.candidate);
  const count = (xs: Attempt[]) => xs.filter((a) => a.outcome === 'unjudged').length;
  const test = pooledDifference(count(b), b.length, count(c), c.length, level);
  const figure = (xs: Attempt[]): Figure => ({ value: xs.length ? count(xs) / xs.length : null, n: xs.length });
  // Fisher's test conditions on the unjudged in all: its most extreme tables are all of them on
  // the candidate's side (as many as fit) or all on the baseline's.
  const [events, total] = [count(b) + count(c), b.length + c.length];
  const extreme = (x: number) => (total ? hypergeometricExactly(x, total, events, c.length) : 1);
  const smallestP = { worse: extreme(Math.min(events, c.length)), better: extreme(Math.max(0, events - b.length)) };
  return { ...binaryEvidence('*', 'unjudged', figure(b), figure(c), test, 1, margin), smallestP };
}

function binaryEvidence(
  check: string,
  metric: MetricName,
  baseline: Figure,
  candidate: Figure,
  test: ReturnType<typeof pooledDifference>,
  worse: 1 | -1,
  margin: number,
): Evidence {
  const figures = { check, metric, baseline, candidate, worse, margin };
  if (!test)
    return {
      ...figures,
      ...NO_CHANGE,
      blocked: `nothing was judged on the ${baseline.n ? 'candidate' : 'baseline'} side`,
    };
  const [pWorse, pBetter] = worse < 0 ? [test.pLower, test.pHigher] : [test.pHigher, test.pLower];
  const { low, high, lowerBound, upperBound } = test;
  return { ...figures, change: test.difference, low, high, lowerBound, upperBound, pWorse, pBetter };
}

/** What a metric that could not be measured carries: no change, no interval, no evidence. */
const NO_CHANGE = {
  change: null,
  low: null,
  high: null,
  lowerBound: null,
  upperBound: null,
  pWorse: 1,
  pBetter: 1,
} as const;

/** Where a continuous figure cannot be read: too few values on a side. */
function missingValues(
  name: string,
  baseline: readonly number[],
  candidate: readonly number[],
  of: [number, number],
  maxMissing: number,
): string | undefined {
  for (const [side, values, total] of [
    ['baseline', baseline, of[0]],
    ['candidate', candidate, of[1]],
  ] as const) {
    if (values.length === 0) return `no ${name} on the ${side} side`;
    const missing = 1 - values.length / total;
    if (missing > maxMissing)
      return `${Math.round(missing * 100)}% of the ${side}'s attempts have no ${name} (errors or timeouts; more than ${Math.round(maxMissing * 100)}%)`;
  }
  return undefined;
}

/**
 * A continuous figure's median (p50): Mann–Whitney against the tolerance (the candidate moved by
 * the margin first) and the Hodges–Lehmann shift with its bounds. `multiplicative` (latency):
 * both on the logarithms, so a slower release is a ratio and the tolerance a share of the
 * baseline; the shift and bounds are then given in ms at the baseline's median.
 */
export function medianShift(
  check: string,
  metric: MetricName,
  values: [number[], number[]],
  attempts: [number, number],
  options: {
    level: number;
    /** The tolerance as a share of the baseline's median (multiplicative), or in the values' units. */
    relativeMargin?: number;
    margin?: number;
    multiplicative?: boolean;
    worse: 1 | -1;
    maxMissing: number;
    what: string;
  },
): Evidence {
  const [b, c] = values;
  const figure = (xs: number[]): Figure => ({ value: xs.length ? quantile(xs, 0.5) : null, n: xs.length });
  const base = { check, metric, baseline: figure(b), candidate: figure(c), worse: options.worse };
  const blocked = missingValues(options.what, b, c, attempts, options.maxMissing);
  const median = base.baseline.value ?? 0;
  const margin = options.margin ?? (options.relativeMargin ?? 0) * median;
  if (blocked) return { ...base, ...NO_CHANGE, margin, blocked };
  const log = (xs: number[]) => xs.map((x) => Math.log(Math.max(x, 1)));
  const [tb, tc] = options.multiplicative ? [log(b), log(c)] : [b, c];
  const tested = options.multiplicative ? Math.log(1 + (options.relativeMargin ?? 0)) : margin;
  const shift = hodgesLehmann(tc, tb, options.level);
  const moved = (by: number) => tc.map((x) => x + by);
  // Worse is higher (latency): H0 "shift ≤ margin"; worse is lower (scores): H0 "shift ≥ −margin".
  const up = mannWhitney(moved(-tested * options.worse), tb);
  const down = mannWhitney(moved(tested * options.worse), tb);
  const [pWorse, pBetter] = options.worse > 0 ? [up.pGreater, down.pLess] : [up.pLess, down.pGreater];
  const inUnits = (x: number) => (options.multiplicative ? median * (Math.exp(x) - 1) : x);
  const [change, low, high, lowerBound, upperBound] = [
    shift.estimate,
    shift.low,
    shift.high,
    shift.lowerBound,
    shift.upperBound,
  ].map(inUnits);
  return { ...base, change, low, high, lowerBound, upperBound, pWorse, pBetter, margin };
}

/**
 * The 95th percentile: the difference of the two sides' p95, with a percentile bootstrap (each
 * side resampled on its own, a fixed seed) for its bounds and its p-values against the tolerance.
 */
export function p95Shift(
  values: [number[], number[]],
  attempts: [number, number],
  options: { level: number; relativeMargin: number; maxMissing: number; seed: number; resamples?: number },
): Evidence {
  const [b, c] = values;
  const figure = (xs: number[]): Figure => ({ value: xs.length ? quantile(xs, 0.95) : null, n: xs.length });
  const base = {
    check: '*',
    metric: 'latency-p95' as const,
    baseline: figure(b),
    candidate: figure(c),
    worse: 1 as const,
  };
  const margin = options.relativeMargin * (base.baseline.value ?? 0);
  const blocked = missingValues('reply time', b, c, attempts, options.maxMissing);
  if (blocked) return { ...base, ...NO_CHANGE, margin, blocked };
  const uniform = seededUniform(options.seed);
  // A resample's quantile from sorted draws of indices into the sorted values: no sort of numbers.
  const resampledP95 = (sorted: Float64Array, indices: Uint32Array) => {
    for (let i = 0; i < indices.length; i++) indices[i] = Math.floor(uniform() * sorted.length);
    indices.sort();
    const position = (indices.length - 1) * 0.95;
    const below = Math.floor(position);
    const above = Math.min(indices.length - 1, below + 1);
    return sorted[indices[below]] + (sorted[indices[above]] - sorted[indices[below]]) * (position - below);
  };
  const [sortedB, sortedC] = [Float64Array.from(b).sort(), Float64Array.from(c).sort()];
  const [drawsB, drawsC] = [new Uint32Array(b.length), new Uint32Array(c.length)];
  const resamples = options.resamples ?? 1000;
  const differences: number[] = [];
  for (let i = 0; i < resamples; i++) differences.push(resampledP95(sortedC, drawsC) - resampledP95(sortedB, drawsB));
  const atMost = differences.filter((d) => d <= margin).length;
  const atLeast = differences.filter((d) => d >= -margin).length;
  return {
    ...base,
    change: base.candidate.value! - base.baseline.value!,
    low: quantile(differences, options.level / 2),
    high: quantile(differences, 1 - options.level / 2),
    lowerBound: quantile(differences, options.level),
    upperBound: quantile(differences, 1 - options.level),
    pWorse: (atMost + 1) / (resamples + 1),
    pBetter: (atLeast + 1) / (resamples + 1),
    margin,
  };
}
