// The comparison of a baseline and a candidate (docs/comparing.md says it in words). The suite's
// pass rate is tested first, at 90% of the level; the reply time's median and the unjudged share
// under Holm at 80% of it (a test that cannot reach the level left out); the secondary metrics (the reply
// time's 95th percentile, judge scores, each check's pass rate) under Benjamini–Hochberg.
// A metric is `regressed` when its correction holds the worse direction and its one-sided bound
// lies past the tolerance, `improved` mirrored; `inconclusive` only when the data cannot speak
// (blocked) or a change is plainly there but whether it passes the tolerance is not yet clear;
// otherwise `unchanged`: no change past the tolerance was found.
import { benjaminiHochberg, holm } from './corrections.js';
import {
  type Evidence,
  type Paired,
  checkPassRate,
  judgeChange,
  medianShift,
  p95Shift,
  pair,
  suitePassRate,
  tooMuchMissing,
  unjudgedShare,
} from './evidence.js';
import type { Attempt, CompareOptions, Comparison, MetricResult, Side, Tolerances, Verdict } from './types.js';
import { VERDICT_PRECEDENCE } from './types.js';

/**
 * The defaults, documented in docs/comparing.md: none for pass rates and the unjudged share, 5%
 * for latency (10% left +50% on the median with 30 replies a side found 76% of the time at most).
 */
export const DEFAULT_TOLERANCE: Required<Tolerances> = { passRate: 0, latency: 0.05, unjudged: 0, score: 0.05 };
export const DEFAULT_LEVEL = 0.05;
/**
 * How the level of `behaviour` is shared (the intervals and bounds stay at 95%; only the tests'
 * thresholds are shared) among the primary metrics (docs/comparing.md, "Sharing
 * the level"): the suite's pass rate is tested at 90% of it (4.5%), the median reply time and the
 * unjudged share under Holm at 80% of it (4%). A test against a tolerance rarely fires when nothing
 * changed, so over 3,000 identical releases each way `behaviour` read `regressed` 4.8% of the time
 * (5.5% with both at the full 5%), while a 10% drop (50 × 3) is still found 81% of the time and a
 * reply time 50% slower (30 replies a side) 82%.
 */
export const PASS_RATE_SHARE = 0.9;
export const OTHERS_SHARE = 0.8;
export const DEFAULT_MAX_MISSING = 0.2;
const DEFAULT_SEED = 20260101;

/** The worst of some verdicts ('' when there are none): regressed > inconclusive > improved > unchanged. */
export function worstVerdict(verdicts: Iterable<Verdict>): Verdict | '' {
  let worst: Verdict | '' = '';
  for (const v of verdicts)
    if (worst === '' || VERDICT_PRECEDENCE.indexOf(v) < VERDICT_PRECEDENCE.indexOf(worst)) worst = v;
  return worst;
}

export const UNCLEAR_TOLERANCE = 'a change, but whether it passes the tolerance is not yet clear (more attempts tell)';

/**
 * A metric's verdict from its evidence and whether its correction holds each direction:
 * `regressed` when the worse direction is held and the one-sided bound on the worse side lies past
 * the tolerance (`improved` mirrored); `inconclusive` when blocked, or when the 95% interval lies
 * wholly on one side of 0 (a change is there) and straddles the tolerance; otherwise `unchanged`:
 * no change past the tolerance was found (after the correction for comparing many metrics).
 */
export function decide(e: Evidence, worseHeld: boolean, betterHeld: boolean): { verdict: Verdict; reason?: string } {
  if (e.blocked || e.low === null || e.high === null || e.lowerBound === null || e.upperBound === null)
    return { verdict: 'inconclusive', reason: e.blocked ?? 'nothing to compare' };
  // In "worse" units (positive is worse): the interval, and how much worse or better at least.
  const [low, high] = e.worse > 0 ? [e.low, e.high] : [-e.high, -e.low];
  const worseBy = e.worse > 0 ? e.lowerBound : -e.upperBound;
  const betterBy = e.worse > 0 ? -e.upperBound : e.lowerBound;
  if (worseHeld && worseBy > e.margin) return { verdict: 'regressed' };
  if (betterHeld && betterBy > e.margin) return { verdict: 'improved' };
  // A change is plainly there (the interval on one side of 0), its size from nearest to farthest.
  const [near, far] = low > 0 ? [low, high] : high < 0 ? [-high, -low] : [0, 0];
  if (near > 0 && near <= e.margin && far > e.margin) return { verdict: 'inconclusive', reason: UNCLEAR_TOLERANCE };
  return { verdict: 'unchanged' };
}

function result(e: Evidence, primary: boolean, worseHeld: boolean, betterHeld: boolean): MetricResult {
  const { verdict, reason } = decide(e, worseHeld, betterHeld);
  const base = e.baseline.value;
  return {
    check: e.check,
    metric: e.metric,
    primary,
    baseline: e.baseline,
    candidate: e.candidate,
    change: e.change,
    relative: e.change !== null && base ? e.change / base : null,
    low: e.low,
    high: e.high,
    bound: e.worse > 0 ? e.lowerBound : e.upperBound,
    p: e.blocked || e.change === null ? null : Math.min(e.pWorse, e.pBetter),
    verdict,
    ...(reason ? { reason } : {}),
  };
}

const values = (attempts: Attempt[], pick: (a: Attempt) => number | undefined) =>
  attempts.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** What every metric of one comparison is measured with. */
interface Context {
  pairs: Paired[];
  level: number;
  maxMissing: number;
  tolerance: Required<Tolerances>;
  seed: number;
  /** Every attempt of one side. */
  all: (side: 'baseline' | 'candidate') => Attempt[];
  /** The judge changes between the sides, named. */
  drift: string[];
}

/**
 * Holm's step-down over some metrics, each direction its own family. A discrete test that cannot
 * reach the level in a direction, whatever its data (Tarone's refinement: 2 unjudged attempts in
 * 300 never give Fisher's test a p-value under 5%), never rejects, so it is left out of that family
 * and spends none of the others' level.
 */
function underHolm(metrics: Evidence[], level: number): MetricResult[] {
  const family = (direction: 'worse' | 'better') => {
    const members = metrics.filter((e) => !e.blocked && (e.smallestP?.[direction] ?? 0) <= level);
    const held = holm(
      members.map((e) => (direction === 'worse' ? e.pWorse : e.pBetter)),
      level,
    );
    return (e: Evidence) => members.includes(e) && held[members.indexOf(e)];
  };
  const [worse, better] = [family('worse'), family('better')];
  return metrics.map((e) => result(e, true, worse(e), better(e)));
}

/** The primary metrics: the suite's pass rate at its share of the level, the median reply time and the unjudged share under Holm at theirs. */
function primaryMetrics(c: Context): MetricResult[] {
  const [suiteLevel, othersLevel] = [c.level * PASS_RATE_SHARE, c.level * OTHERS_SHARE];
  const suite = suitePassRate(c.pairs, c.level, c.tolerance.passRate);
  suite.blocked ??= tooMuchMissing(c.pairs, c.maxMissing) ?? (c.drift.length ? c.drift.join('; ') : undefined);
  const others: Evidence[] = [];
  const latency = latencyValues(c);
  if (latency) {
    const what = { level: c.level, maxMissing: c.maxMissing, relativeMargin: c.tolerance.latency };
    const p50 = medianShift('*', 'latency-p50', latency.values, latency.counts, {
      ...what,
      multiplicative: true,
      worse: 1,
      what: 'reply time',
    });
    others.push(p50);
  }
  others.push(unjudgedShare(c.pairs, c.level, c.tolerance.unjudged));
  return [
    result(suite, true, suite.pWorse < suiteLevel, suite.pBetter < suiteLevel),
    ...underHolm(others, othersLevel),
  ];
}

/** The reply times of each side, and the attempts they come from; undefined when no reply was timed. */
function latencyValues(c: Context): { values: [number[], number[]]; counts: [number, number] } | undefined {
  const times: [number[], number[]] = [
    values(c.all('baseline'), (a) => a.latencyMs),
    values(c.all('candidate'), (a) => a.latencyMs),
  ];
  if (!times[0].length && !times[1].length) return undefined;
  return { values: times, counts: [c.all('baseline').length, c.all('candidate').length] };
}

/** The secondary metrics' evidence: the 95th percentile of reply times, the judge's scores, each check's pass rate. */
function secondaryEvidence(c: Context, baseline: Side, candidate: Side): Evidence[] {
  const secondaries: Evidence[] = [];
  const latency = latencyValues(c);
  if (latency)
    secondaries.push(
      p95Shift(latency.values, latency.counts, {
        level: c.level,
        relativeMargin: c.tolerance.latency,
        maxMissing: c.maxMissing,
        seed: c.seed,
      }),
    );
  const scores: [number[], number[]] = [
    values(c.all('baseline'), (a) => a.score),
    values(c.all('candidate'), (a) => a.score),
  ];
  if (scores[0].length || scores[1].length) {
    const scored = (side: 'baseline' | 'candidate') => c.all(side).filter((a) => a.judge).length;
    const e = medianShift('*', 'score', scores, [scored('baseline'), scored('candidate')], {
      level: c.level,
      maxMissing: c.maxMissing,
      margin: c.tolerance.score,
      worse: -1,
      what: 'score',
    });
    e.blocked ??= c.drift.length ? c.drift.join('; ') : undefined;
    secondaries.push(e);
  }
  // Each side's tolerances by check, found once (the first of a name, as find did).
  const toleranceOf = (side: Side) => {
    const byCheck = new Map<string, Tolerances | undefined>();
    for (const k of side.checks) if (!byCheck.has(k.check)) byCheck.set(k.check, k.tolerance);
    return byCheck;
  };
  const [baseTolerance, candidateTolerance] = [toleranceOf(baseline), toleranceOf(candidate)];
  for (const p of c.pairs) {
    const own = {
      ...c.tolerance,
      ...baseTolerance.get(p.check),
      ...candidateTolerance.get(p.check),
    };
    const e = checkPassRate(p, c.level, own.passRate);
    if (!p.baseline.length || !p.candidate.length)
      e.blocked = `the check ran on the ${p.baseline.length ? 'baseline' : 'candidate'} side only`;
    e.blocked ??= tooMuchMissing([p], c.maxMissing) ?? judgeChange(p);
    secondaries.push(e);
  }
  return secondaries;
}

/** The secondary metrics under Benjamini–Hochberg, on each metric's two-sided p-value. */
function secondaryMetrics(c: Context, baseline: Side, candidate: Side): MetricResult[] {
  const secondaries = secondaryEvidence(c, baseline, candidate);
  const twoSided = secondaries.map((e) => (e.blocked ? 1 : Math.min(1, 2 * Math.min(e.pWorse, e.pBetter))));
  const discovered = benjaminiHochberg(twoSided, c.level);
  return secondaries.map((e, i) =>
    result(e, false, discovered[i] && e.pWorse <= e.pBetter, discovered[i] && e.pBetter < e.pWorse),
  );
}

/** Compares the same checks run on two sides: every metric's figures, change, interval and verdict. */
export function compareSides(baseline: Side, candidate: Side, options: CompareOptions = {}): Comparison {
  const pairs = pair(baseline.checks, candidate.checks);
  const all = (side: 'baseline' | 'candidate') => pairs.flatMap((p) => p[side]);
  if (all('baseline').length === 0 && all('candidate').length === 0) return { behaviour: '', metrics: [] };
  const context: Context = {
    pairs,
    level: options.level ?? DEFAULT_LEVEL,
    maxMissing: options.maxMissing ?? DEFAULT_MAX_MISSING,
    tolerance: { ...DEFAULT_TOLERANCE, ...options.tolerance },
    seed: options.seed ?? DEFAULT_SEED,
    all,
    drift: pairs.map(judgeChange).filter((x): x is string => !!x),
  };
  const primaries = primaryMetrics(context);
  const secondaries = secondaryMetrics(context, baseline, candidate);
  const counted = [...primaries, ...secondaries.filter((m) => m.verdict === 'regressed')];
  return { behaviour: worstVerdict(counted.map((m) => m.verdict)), metrics: [...primaries, ...secondaries] };
}
