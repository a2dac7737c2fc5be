// The comparison of a baseline and a candidate (docs/comparing.md says it in words). The suite's
// pass rate is tested first, at the full level; the other primary metrics (latency p50 and p95,
// the unjudged share) under Holm; the secondary ones (judge scores, each check's pass rate) under
// Benjamini–Hochberg. A metric is `regressed` only when its correction holds the change and its
// whole interval lies past the tolerance on the worse side; `improved` mirrored; `unchanged` when
// the interval lies inside the band of no change; otherwise `inconclusive`.
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
import type { CompareOptions, Comparison, MetricResult, Side, Tolerances, Verdict } from './types.js';
import { VERDICT_PRECEDENCE } from './types.js';

/** The defaults, documented in docs/comparing.md: none for pass rates, 10% for latency. */
export const DEFAULT_TOLERANCE: Required<Tolerances> = { passRate: 0, latency: 0.1, unjudged: 0, score: 0.05 };
/** With no tolerance, a pass rate is `unchanged` only when its interval rules out a change of 10 points. */
export const NO_CHANGE_BAND = 0.1;
export const DEFAULT_LEVEL = 0.05;
export const DEFAULT_MAX_MISSING = 0.2;
const DEFAULT_SEED = 20260101;

/** The worst of some verdicts ('' when there are none): regressed > inconclusive > improved > unchanged. */
export function worstVerdict(verdicts: Iterable<Verdict>): Verdict | '' {
  let worst: Verdict | '' = '';
  for (const v of verdicts)
    if (worst === '' || VERDICT_PRECEDENCE.indexOf(v) < VERDICT_PRECEDENCE.indexOf(worst)) worst = v;
  return worst;
}

/** A metric's verdict from its evidence and whether its correction holds each direction. */
export function decide(e: Evidence, worseHeld: boolean, betterHeld: boolean): { verdict: Verdict; reason?: string } {
  if (e.blocked || e.low === null || e.high === null) return { verdict: 'inconclusive', reason: e.blocked };
  // The interval in "worse" units: positive is worse.
  const [low, high] = e.worse > 0 ? [e.low, e.high] : [-e.high, -e.low];
  if (worseHeld && low > e.margin) return { verdict: 'regressed' };
  if (betterHeld && high < -e.margin) return { verdict: 'improved' };
  if (low >= -e.band && high <= e.band) return { verdict: 'unchanged' };
  if (worseHeld || betterHeld)
    return { verdict: 'inconclusive', reason: 'a change, but its interval reaches inside the tolerance' };
  return { verdict: 'inconclusive', reason: 'the interval is too wide to tell (more questions or repeats narrow it)' };
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
    p: e.blocked || e.change === null ? null : Math.min(e.pWorse, e.pBetter),
    verdict,
    ...(reason ? { reason } : {}),
  };
}

const values = (attempts: Paired['baseline'], pick: (a: Paired['baseline'][number]) => number | undefined) =>
  attempts.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** Compares the same checks run on two sides: every metric's figures, change, interval and verdict. */
export function compareSides(baseline: Side, candidate: Side, options: CompareOptions = {}): Comparison {
  const level = options.level ?? DEFAULT_LEVEL;
  const maxMissing = options.maxMissing ?? DEFAULT_MAX_MISSING;
  const tolerance = { ...DEFAULT_TOLERANCE, ...options.tolerance };
  const pairs = pair(baseline.checks, candidate.checks);
  const all = (side: 'baseline' | 'candidate') => pairs.flatMap((p) => p[side]);
  if (all('baseline').length === 0 && all('candidate').length === 0) return { behaviour: '', metrics: [] };

  // 1. The suite's pass rate, at the full level.
  const suite = suitePassRate(pairs, level, tolerance.passRate, Math.max(tolerance.passRate, NO_CHANGE_BAND));
  const drift = pairs.map(judgeChange).filter((x): x is string => !!x);
  suite.blocked ??= tooMuchMissing(pairs, maxMissing) ?? (drift.length ? drift.join('; ') : undefined);
  const primaries: MetricResult[] = [result(suite, true, suite.pWorse < level, suite.pBetter < level)];

  // 2. The other primaries under Holm (each direction its own family).
  const counts: [number, number] = [all('baseline').length, all('candidate').length];
  const latency: [number[], number[]] = [
    values(all('baseline'), (a) => a.latencyMs),
    values(all('candidate'), (a) => a.latencyMs),
  ];
  const others: Evidence[] = [];
  if (latency[0].length || latency[1].length) {
    const what = { level, maxMissing, relativeMargin: tolerance.latency };
    others.push(
      medianShift('*', 'latency-p50', latency, counts, { ...what, multiplicative: true, worse: 1, what: 'reply time' }),
    );
    others.push(p95Shift(latency, counts, { ...what, seed: options.seed ?? DEFAULT_SEED }));
  }
  others.push(unjudgedShare(pairs, level, tolerance.unjudged, Math.max(tolerance.unjudged, NO_CHANGE_BAND)));
  // Tarone's refinement for discrete tests: a metric whose test cannot reject (nothing unjudged on
  // either side) is left out of the family, so it does not spend the others' level.
  const family = others.filter((e) => !e.blocked && !e.cannotReject);
  const worseHolm = holm(
    family.map((e) => e.pWorse),
    level,
  );
  const betterHolm = holm(
    family.map((e) => e.pBetter),
    level,
  );
  for (const e of others) {
    const i = family.indexOf(e);
    primaries.push(result(e, true, i >= 0 && worseHolm[i], i >= 0 && betterHolm[i]));
  }

  // 3. The secondaries under Benjamini–Hochberg, on each metric's two-sided p-value.
  const secondaries: Evidence[] = [];
  const scores: [number[], number[]] = [
    values(all('baseline'), (a) => a.score),
    values(all('candidate'), (a) => a.score),
  ];
  if (scores[0].length || scores[1].length) {
    const scored = (side: 'baseline' | 'candidate') => all(side).filter((a) => a.judge).length;
    const e = medianShift('*', 'score', scores, [scored('baseline'), scored('candidate')], {
      level,
      maxMissing,
      margin: tolerance.score,
      worse: -1,
      what: 'score',
    });
    e.blocked ??= drift.length ? drift.join('; ') : undefined;
    secondaries.push(e);
  }
  for (const p of pairs) {
    const own = {
      ...tolerance,
      ...baseline.checks.find((c) => c.check === p.check)?.tolerance,
      ...candidate.checks.find((c) => c.check === p.check)?.tolerance,
    };
    const e = checkPassRate(p, level, own.passRate, Math.max(own.passRate, NO_CHANGE_BAND));
    if (!p.baseline.length || !p.candidate.length)
      e.blocked = `the check ran on the ${p.baseline.length ? 'baseline' : 'candidate'} side only`;
    e.blocked ??= tooMuchMissing([p], maxMissing) ?? judgeChange(p);
    secondaries.push(e);
  }
  const twoSided = secondaries.map((e) => (e.blocked ? 1 : Math.min(1, 2 * Math.min(e.pWorse, e.pBetter))));
  const discovered = benjaminiHochberg(twoSided, level);
  const secondaryResults = secondaries.map((e, i) =>
    result(e, false, discovered[i] && e.pWorse <= e.pBetter, discovered[i] && e.pBetter < e.pWorse),
  );

  const counted = [...primaries, ...secondaryResults.filter((m) => m.verdict === 'regressed')];
  return { behaviour: worstVerdict(counted.map((m) => m.verdict)), metrics: [...primaries, ...secondaryResults] };
}
