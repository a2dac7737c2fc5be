// Each metric's evidence from the two sides: the figures, the change with its two-sided 95%
// interval and its one-sided 95% bounds, the p-values each way against the tolerance, and what
// blocks a verdict (missing data, a judge change). The verdicts and the corrections for many
// metrics are decided in engine.ts.
import { clip, flattenControls } from '../shared/format.js';
import { pooledDifference, stratifiedDifference } from './binary.js';
import { binomialAtMostAll, hypergeometricExactly } from './distributions.js';
import { type TimedStratum, quantile, stratifiedShift } from './rank.js';
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
  /** Times known too loosely for the tolerance: an `unchanged` reads `inconclusive`, saying so. */
  loose?: string;
  /** A check that passed on one side and failed on the other: never `unchanged`. */
  flip?: { worse: boolean; reason: string };
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
  // Repeats may differ by design (5 against 3, a steady question asked less): a question is due on
  // a side what that side made of it; a question made on one side only is due on the other what
  // the first made (a run cut short). An attempt made but not judged is missing too.
  const counts = new Map<string, [number, number]>();
  for (const p of pairs)
    for (const [k, side] of (['baseline', 'candidate'] as const).entries())
      for (const a of p[side]) {
        const key = `${p.check}\u0000${a.question}`;
        const c = counts.get(key) ?? counts.set(key, [0, 0]).get(key)!;
        c[k]++;
      }
  for (const [k, side] of (['baseline', 'candidate'] as const).entries()) {
    let missing = 0;
    let expected = 0;
    for (const c of counts.values()) {
      const due = c[k] || c[1 - k];
      missing += due - c[k];
      expected += due;
    }
    for (const p of pairs) missing += p[side].filter((a) => a.outcome === 'unjudged').length;
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

/**
 * Each question's judged attempts on one side, cut to the same number for every question (the
 * fewest any question with one has): a question asked more often because its answers varied
 * (the gate asks a steady one fewer times) must not weigh more in the suite's figure, or a drop
 * in the questions that vary reads larger than it is. Repeats that differ between the sides by
 * design (5 against 3) are kept: each side is cut on its own.
 */
function evenPerQuestion(pairs: readonly Paired[], side: 'baseline' | 'candidate'): Map<string, Attempt[]> {
  const byQuestion = new Map<string, Attempt[]>();
  for (const p of pairs)
    for (const a of judged(p[side])) {
      const key = `${p.check}\u0000${a.question}`;
      const list = byQuestion.get(key);
      if (list) list.push(a);
      else byQuestion.set(key, [a]);
    }
  const fewest = Math.min(...[...byQuestion.values()].map((list) => list.length));
  for (const [key, list] of byQuestion) byQuestion.set(key, list.slice(0, fewest));
  return byQuestion;
}

/** The suite's pass rate, stratified by question (CMH and the Mantel–Haenszel difference). */
export function suitePassRate(pairs: readonly Paired[], level: number, margin: number): Evidence {
  const baseline = evenPerQuestion(pairs, 'baseline');
  const candidate = evenPerQuestion(pairs, 'candidate');
  const strata = [...new Set([...baseline.keys(), ...candidate.keys()])].map((key) => {
    const [b, c] = [baseline.get(key) ?? [], candidate.get(key) ?? []];
    return {
      baselineEvents: passes(b),
      baselineTrials: b.length,
      candidateEvents: passes(c),
      candidateTrials: c.length,
    };
  });
  const test = stratifiedDifference(strata, level);
  return binaryEvidence(
    '*',
    'pass-rate',
    rate([...baseline.values()].flat()),
    rate([...candidate.values()].flat()),
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
  const events = passes(pair.baseline) + passes(pair.candidate);
  // Fisher's smallest p-values: the fewest passes the candidate's side can hold, or the most.
  const extreme = (x: number) => (b.n + c.n ? hypergeometricExactly(x, b.n + c.n, events, c.n) : 1);
  const smallestP = { worse: extreme(Math.max(0, events - b.n)), better: extreme(Math.min(events, c.n)) };
  return { ...binaryEvidence(pair.check, 'pass-rate', b, c, test, -1, margin), smallestP };
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
      blocked:
        baseline.n && candidate.n
          ? 'no check was judged on both sides: the two sides have no check in common'
          : `nothing was judged on the ${baseline.n ? 'candidate' : 'baseline'} side`,
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

/** The least replies a side for one stratum's exact test to reach `alpha`: 1 / C(2n, n) ≤ alpha. */
export function repliesForShift(alpha: number): number {
  let n = 1;
  let ways = 2;
  while (1 / ways > alpha && n < 1000) {
    n++;
    ways = (ways * (2 * n) * (2 * n - 1)) / (n * n);
  }
  return n;
}

/** How a shift's test is run: its level for the intervals, its share for the test, the tolerance. */
interface ShiftOptions {
  level: number;
  testLevel: number;
  worse: 1 | -1;
  maxMissing: number;
  what: string;
}

/** A shift's evidence from `stratifiedShift` on the test scale, `inUnits` carrying it back. */
function shiftEvidence(
  base: Pick<Evidence, 'check' | 'metric' | 'baseline' | 'candidate' | 'worse'>,
  strata: TimedStratum[],
  tested: number,
  margin: number,
  inUnits: (x: number) => number,
  options: ShiftOptions,
): Evidence {
  const shift = stratifiedShift(strata, options.level, tested);
  const finite = (x: number) => (Number.isFinite(x) ? inUnits(x) : null);
  const [pWorse, pBetter] = options.worse > 0 ? [shift.pGreater, shift.pLess] : [shift.pLess, shift.pGreater];
  const evidence: Evidence = {
    ...base,
    change: inUnits(shift.estimate),
    low: finite(shift.low),
    high: finite(shift.high),
    lowerBound: finite(shift.lowerBound),
    upperBound: finite(shift.upperBound),
    pWorse,
    pBetter,
    margin,
    smallestP: { worse: shift.smallestP, better: shift.smallestP },
  };
  if (shift.smallestP > options.testLevel) {
    const needed = repliesForShift(options.testLevel);
    evidence.blocked =
      strata.length === 1
        ? `the ${options.what} needs ${needed} values a side to reach its share of the level (${Math.min(base.baseline.n, base.candidate.n)} on the smaller side)`
        : `too few ${options.what}s a question to reach its share of the level (about ${needed} a side in one question would)`;
  }
  return evidence;
}

const exactStratum = (candidate: number[], baseline: number[]): TimedStratum => ({
  candidateLow: Float64Array.from(candidate),
  candidateHigh: Float64Array.from(candidate),
  baselineLow: Float64Array.from(baseline),
  baselineHigh: Float64Array.from(baseline),
});

/**
 * A continuous figure's median (judge scores): the Hodges–Lehmann shift and its test against the
 * tolerance (exact at small n), on the pooled values in the values' units.
 */
export function medianShift(
  check: string,
  metric: MetricName,
  values: [number[], number[]],
  attempts: [number, number],
  options: ShiftOptions & { margin: number },
): Evidence {
  const [b, c] = values;
  const figure = (xs: number[]): Figure => ({ value: xs.length ? quantile(xs, 0.5) : null, n: xs.length });
  const base = { check, metric, baseline: figure(b), candidate: figure(c), worse: options.worse };
  const blocked = missingValues(options.what, b, c, attempts, options.maxMissing);
  if (blocked) return { ...base, ...NO_CHANGE, margin: options.margin, blocked };
  return shiftEvidence(base, [exactStratum(c, b)], options.margin, options.margin, (x) => x, options);
}

/** A reply's time as an interval on the log scale: [lowMs, ms] when only known to lie between them. */
const logTime = (a: Attempt): [number, number] => {
  const high = Math.log(Math.max(a.latencyMs!, 1));
  const low = a.latencyLowMs === undefined ? high : Math.log(Math.max(Math.min(a.latencyLowMs, a.latencyMs!), 1));
  return [low, high];
};
const timed = (a: Attempt) => typeof a.latencyMs === 'number' && Number.isFinite(a.latencyMs);

/**
 * The reply time's median: the shift within questions (each question its own stratum, as the pass
 * rate is), on the logarithms so that slower is a ratio and the tolerance a share of the
 * baseline's median; each time the interval it was measured to (a task's, polled), read
 * least favourably for each direction's test. Shown in ms at the baseline's median. When the
 * intervals are too wide for the tolerance and nothing is decided, `inconclusive` says how well
 * the times are known.
 */
export function latencyShift(
  pairs: readonly Paired[],
  options: ShiftOptions & { relativeMargin: number },
): Evidence & { halfWidthMs: number; spanMs: [number, number] } {
  const all = (side: 'baseline' | 'candidate') => pairs.flatMap((p) => p[side]);
  const times = (side: 'baseline' | 'candidate') => all(side).filter(timed);
  const middle = (a: Attempt) => Math.exp((logTime(a)[0] + logTime(a)[1]) / 2);
  const figure = (xs: Attempt[]): Figure => ({ value: xs.length ? quantile(xs.map(middle), 0.5) : null, n: xs.length });
  const [b, c] = [times('baseline'), times('candidate')];
  const base = {
    check: '*',
    metric: 'latency-p50' as const,
    baseline: figure(b),
    candidate: figure(c),
    worse: 1 as const,
  };
  const median = base.baseline.value ?? 0;
  const margin = options.relativeMargin * median;
  const halves = [...b, ...c].map((a) => (logTime(a)[1] - logTime(a)[0]) / 2).sort((x, y) => x - y);
  const halfWidth = halves.length ? halves[Math.floor(halves.length / 2)] : 0;
  const halfWidthMs = median * (Math.exp(halfWidth) - 1);
  // Where most replies come (the 10th to the 90th percentile of the baseline's): where polls narrow them.
  const middles = b.map(middle);
  const spanMs: [number, number] = middles.length ? [quantile(middles, 0.1), quantile(middles, 0.9)] : [0, 0];
  const blocked = missingValues(
    options.what,
    b.map(middle),
    c.map(middle),
    [all('baseline').length, all('candidate').length],
    options.maxMissing,
  );
  if (blocked) return { ...base, ...NO_CHANGE, margin, blocked, halfWidthMs, spanMs };
  const strata = new Map<string, { c: [number, number][]; b: [number, number][] }>();
  for (const p of pairs)
    for (const side of ['baseline', 'candidate'] as const)
      for (const a of p[side].filter(timed)) {
        const key = `${p.check}\u0000${a.question}`;
        const s = strata.get(key) ?? strata.set(key, { c: [], b: [] }).get(key)!;
        s[side === 'baseline' ? 'b' : 'c'].push(logTime(a));
      }
  const list: TimedStratum[] = [...strata.values()].map((s) => ({
    candidateLow: Float64Array.from(s.c, (x) => x[0]),
    candidateHigh: Float64Array.from(s.c, (x) => x[1]),
    baselineLow: Float64Array.from(s.b, (x) => x[0]),
    baselineHigh: Float64Array.from(s.b, (x) => x[1]),
  }));
  const inUnits = (x: number) => median * (Math.exp(x) - 1);
  const evidence = shiftEvidence(base, list, Math.log(1 + options.relativeMargin), margin, inUnits, options);
  return { ...evidence, halfWidthMs, spanMs };
}

/**
 * A quantile's distribution-free bounds from order statistics: the k-th smallest of n values lies
 * below the q-quantile with probability P(Binomial(n, q) ≥ k). `miss[k]` is the chance that the
 * k-th smallest (1-based) lies above it, `over[j]` that the j-th lies below it.
 */
function orderStatistics(n: number, q: number): { miss: (k: number) => number; over: (j: number) => number } {
  const atMost = binomialAtMostAll(n, q);
  return {
    // The k-th smallest above the quantile: fewer than k values below it, P(Bin ≤ k − 1).
    miss: (k) => (k <= 0 ? 0 : atMost[Math.min(n, k - 1)]),
    // The j-th smallest below the quantile: at least j values below it, P(Bin ≥ j).
    over: (j) => (j <= 0 ? 1 : j > n ? 0 : Math.max(0, 1 - atMost[j - 1])),
  };
}

/** The least replies a side for a q-quantile's upper bound to exist at error `alpha`: q^n ≤ alpha. */
export const repliesForQuantile = (q: number, alpha: number): number => Math.ceil(Math.log(alpha) / Math.log(q));

/**
 * The smallest error (the two sides' errors added: Bonferroni) at which the candidate's q-quantile
 * is shown above the baseline's by more than `margin`: the least P(the candidate's k-th smallest
 * lies above its quantile) + P(the baseline's j-th lies below its) over pairs with
 * candidate[k] − baseline[j] > margin. One pass over j, k moving one way.
 */
function quantileP(candidate: Float64Array, baseline: Float64Array, q: number, margin: number): number {
  const [c, b] = [orderStatistics(candidate.length, q), orderStatistics(baseline.length, q)];
  let best = 1;
  let k = 1;
  for (let j = 1; j <= baseline.length; j++) {
    while (k <= candidate.length && !(candidate[k - 1] - baseline[j - 1] > margin)) k++;
    if (k > candidate.length) break;
    best = Math.min(best, c.miss(k) + b.over(j));
  }
  return Math.min(1, best);
}

/** The q-quantile's lower and upper bounds at error `alpha` each (null when n is too small). */
function quantileBounds(sorted: Float64Array, q: number, alpha: number): [number | null, number | null] {
  const n = sorted.length;
  const o = orderStatistics(n, q);
  let k = 0;
  while (k < n && o.miss(k + 1) <= alpha) k++;
  let j = n + 1;
  while (j > 1 && o.over(j - 1) <= alpha) j--;
  return [k ? sorted[k - 1] : null, j <= n ? sorted[j - 1] : null];
}

/**
 * The 95th percentile: the difference of the two sides' p95, its bounds from each side's
 * order-statistic bounds (each side at half the error: exact and distribution-free, with no
 * resampling), its p-values the least error at which the bounds clear the tolerance. Below the
 * replies a side that `testLevel` needs (q^n ≤ testLevel / 2), no verdict: `inconclusive`, saying
 * how many. Linear after the sort.
 */
export function p95Shift(
  values: [number[], number[]],
  attempts: [number, number],
  options: { level: number; testLevel: number; relativeMargin: number; maxMissing: number },
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
  const needed = repliesForQuantile(0.95, options.testLevel / 2);
  const blocked =
    missingValues('reply time', b, c, attempts, options.maxMissing) ??
    (Math.min(b.length, c.length) < needed
      ? `the 95th percentile needs ${needed} replies a side to be bounded at its share of the level (${Math.min(b.length, c.length)} on the smaller side)`
      : undefined);
  const [sortedB, sortedC] = [Float64Array.from(b).sort(), Float64Array.from(c).sort()];
  const difference = (
    [cLow, cHigh]: (number | null)[],
    [bLow, bHigh]: (number | null)[],
  ): [number | null, number | null] => [
    cLow === null || bHigh === null ? null : cLow - bHigh,
    cHigh === null || bLow === null ? null : cHigh - bLow,
  ];
  const bounds = (alpha: number) =>
    difference(quantileBounds(sortedC, 0.95, alpha / 2), quantileBounds(sortedB, 0.95, alpha / 2));
  const [[low, high], [lowerBound, upperBound]] =
    b.length && c.length
      ? [bounds(options.level / 2), bounds(options.level)]
      : [
          [null, null],
          [null, null],
        ];
  const smallestP = Math.min(1, 0.05 ** c.length + 0.95 ** b.length);
  if (blocked) return { ...base, ...NO_CHANGE, low, high, margin, blocked };
  return {
    ...base,
    change: base.candidate.value! - base.baseline.value!,
    low,
    high,
    lowerBound,
    upperBound,
    pWorse: quantileP(sortedC, sortedB, 0.95, margin),
    // Lower: the baseline's p95 above the candidate's by more than the margin (the same test, sides swapped).
    pBetter: quantileP(sortedB, sortedC, 0.95, margin),
    margin,
    smallestP: { worse: smallestP, better: Math.min(1, 0.05 ** b.length + 0.95 ** c.length) },
  };
}
