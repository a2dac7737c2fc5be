// The comparison of a baseline and a candidate (docs/comparing.md says it in words). One error
// budget, `level`, for everything that can make `behaviour` read `regressed`: the suite's pass
// rate, the reply time's median, the unjudged share and the secondary metrics (the reply time's
// 95th percentile, judge scores, each check's pass rate) share it by weight (SHARES) under a
// weighted Holm step-down; a test that cannot reach its share whatever its data (too few replies,
// a discrete test's smallest p-value) is left out and its share goes to the others (Tarone).
// A metric is `regressed` when its test holds the worse direction and its one-sided bound lies
// past the tolerance, `improved` mirrored; `inconclusive` when the data cannot speak (blocked, too
// few values, times known too loosely, a check that flipped with too few attempts to tell) or a
// change is plainly there but whether it passes the tolerance is not yet clear; otherwise
// `unchanged`: no change past the tolerance was found.
import {
  type Evidence,
  type Paired,
  checkPassRate,
  judgeChange,
  latencyShift,
  medianShift,
  p95Shift,
  pair,
  suitePassRate,
  tooMuchMissing,
  unjudgedShare,
} from './evidence.js';
import { repliesForShift } from './evidence.js';
import type { Attempt, CompareOptions, Comparison, MetricResult, Side, Tolerances, Verdict } from './types.js';
import { VERDICT_PRECEDENCE } from './types.js';

/**
 * The defaults, documented in docs/comparing.md: none for pass rates and the unjudged share, 5%
 * for latency, 0.05 for scores.
 */
export const DEFAULT_TOLERANCE: Required<Tolerances> = { passRate: 0, latency: 0.05, unjudged: 0, score: 0.05 };
export const DEFAULT_LEVEL = 0.05;
/**
 * How `level` is shared by the tests that can make `behaviour` read `regressed` (the weights of a
 * weighted Holm; docs/comparing.md, "One error budget"): most to the suite's pass rate (what a
 * gate is for), then the median reply time, the unjudged share, and the secondary metrics (half
 * of theirs to the 95th percentile, the rest split among the scores and each check's pass rate).
 */
export const SHARES = { passRate: 0.8, latency: 0.12, unjudged: 0.04, secondary: 0.04 } as const;
/** The suite's pass rate's share: what the power line assumes. */
export const PASS_RATE_SHARE = SHARES.passRate;
export const DEFAULT_MAX_MISSING = 0.2;

/** The worst of some verdicts ('' when there are none): regressed > inconclusive > improved > unchanged. */
export function worstVerdict(verdicts: Iterable<Verdict>): Verdict | '' {
  let worst: Verdict | '' = '';
  for (const v of verdicts)
    if (worst === '' || VERDICT_PRECEDENCE.indexOf(v) < VERDICT_PRECEDENCE.indexOf(worst)) worst = v;
  return worst;
}

export const UNCLEAR_TOLERANCE = 'a change, but whether it passes the tolerance is not yet clear (more attempts tell)';
export const KEPT_BY_SHARE =
  'worse past its tolerance at 95%, not at its share of the level shared among the metrics (more attempts tell)';

/**
 * A metric's verdict from its evidence and whether its test holds each direction: `regressed`
 * when the worse direction is held and the one-sided bound on the worse side lies past the
 * tolerance (`improved` mirrored); `inconclusive` when blocked, when the 95% interval lies wholly
 * on one side of 0 (a change is there) and straddles the tolerance, or when it lies wholly past
 * the tolerance on the worse side but the shared level did not hold the test (a worse change is
 * never read milder for being clearer); otherwise `unchanged`, saying so when a one-sided bound
 * alone was past the tolerance and the shared level kept it.
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
  if (low > e.margin) return { verdict: 'inconclusive', reason: KEPT_BY_SHARE };
  if (worseBy > e.margin || betterBy > e.margin)
    return {
      verdict: 'unchanged',
      reason: `kept unchanged by the level shared among the metrics: past its tolerance at 95%, not at its share`,
    };
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
    ...(e.metric === 'latency-p50' ? { estimator: 'shift within questions' } : {}),
    verdict,
    ...(reason ? { reason } : {}),
  };
}

const values = (attempts: Attempt[], pick: (a: Attempt) => number | undefined) =>
  attempts.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** A test in the budget: its evidence, its weight, whether it is primary. */
interface Test {
  e: Evidence;
  weight: number;
  primary: boolean;
}

/**
 * Which tests the weighted Holm step-down holds in one direction at `level`: the tests that can
 * reach their share whatever their data are kept (Tarone: the others spend nothing), the weights
 * of those kept sum to 1; then, smallest p / weight first, each is held while p ≤ weight · level
 * / (the weights not yet held).
 */
export function weightedHolm(tests: readonly Test[], level: number, direction: 'worse' | 'better'): boolean[] {
  const p = (t: Test) => (direction === 'worse' ? t.e.pWorse : t.e.pBetter);
  let kept = tests.filter((t) => !t.e.blocked && t.weight > 0);
  for (;;) {
    const total = kept.reduce((sum, t) => sum + t.weight, 0);
    const reachable = kept.filter((t) => (t.e.smallestP?.[direction] ?? 0) <= (t.weight / total) * level);
    if (reachable.length === kept.length) break;
    kept = reachable;
  }
  const held = new Set<Test>();
  let remaining = kept.reduce((sum, t) => sum + t.weight, 0);
  const order = [...kept].sort((a, b) => p(a) / a.weight - p(b) / b.weight);
  for (const t of order) {
    if (!(p(t) <= (t.weight * level) / remaining)) break;
    held.add(t);
    remaining -= t.weight;
  }
  return tests.map((t) => held.has(t));
}

/** What every metric of one comparison is measured with. */
interface Context {
  pairs: Paired[];
  level: number;
  maxMissing: number;
  tolerance: Required<Tolerances>;
  /** Every attempt of one side. */
  all: (side: 'baseline' | 'candidate') => Attempt[];
  /** The judge changes between the sides, named. */
  drift: string[];
  /** Why the two sides' reply times cannot be compared (CompareOptions.timesApart), if they cannot. */
  timesApart?: string;
}

/** The primary metrics' evidence: the suite's pass rate, the median reply time, the unjudged share. */
function primaryTests(c: Context): Test[] {
  const suite = suitePassRate(c.pairs, c.level, c.tolerance.passRate);
  suite.blocked ??= tooMuchMissing(c.pairs, c.maxMissing) ?? (c.drift.length ? c.drift.join('; ') : undefined);
  const tests: Test[] = [{ e: suite, weight: SHARES.passRate, primary: true }];
  if (
    c.all('baseline').some((a) => a.latencyMs !== undefined) ||
    c.all('candidate').some((a) => a.latencyMs !== undefined)
  ) {
    const testLevel = c.level * SHARES.latency;
    const p50 = latencyShift(c.pairs, {
      level: c.level,
      testLevel,
      worse: 1,
      maxMissing: c.maxMissing,
      what: 'reply time',
      relativeMargin: c.tolerance.latency,
    });
    // Times known to less than the tolerance: only a change past both can be told.
    if (!p50.blocked && p50.halfWidthMs > p50.margin / 2) p50.loose = looseTimes(p50, c.all('baseline').length);
    // Times measured at another time are shown, not tested: no share of the level, no say in `behaviour`.
    if (c.timesApart) p50.blocked = c.timesApart;
    tests.push({ e: p50, weight: c.timesApart ? 0 : SHARES.latency, primary: !c.timesApart });
  }
  tests.push({ e: unjudgedShare(c.pairs, c.level, c.tolerance.unjudged), weight: SHARES.unjudged, primary: true });
  return tests;
}

/**
 * Why times known too loosely cannot tell a change of the tolerance's size, and the budget that
 * would: a reply's time is known to the gap between the polls around it, so polls at most the
 * tolerance apart where most replies come (the baseline's 10th to 90th percentile) know each to
 * ± half the tolerance, the width this rule asks for.
 */
export function looseTimes(
  p50: { halfWidthMs: number; margin: number; spanMs: [number, number] },
  replies: number,
): string {
  const step = Math.max(1, Math.round(p50.margin));
  const [from, to] = p50.spanMs.map(Math.round);
  const polls = Math.ceil(Math.max(0, to - from) / step) + 2;
  return (
    `reply times known to ±${Math.round(p50.halfWidthMs)} ms at this budget, the tolerance is ±${Math.round(p50.margin)} ms: ` +
    `a poll every ${step} ms from ${from} to ${to} ms after the message (about ${polls} polls a reply, ${polls * replies} a side) would measure them to it`
  );
}

/** The secondary metrics' evidence: the 95th percentile of reply times, the judge's scores, each check's pass rate. */
function secondaryTests(c: Context, baseline: Side, candidate: Side, primaries: Test[]): Test[] {
  const out: Evidence[] = [];
  const count = 1 + c.pairs.length + 1;
  const share = (SHARES.secondary / 2) * c.level;
  const rest = ((SHARES.secondary / 2) * c.level) / Math.max(1, count - 1);
  const times: [number[], number[]] = [
    values(c.all('baseline'), (a) => a.latencyMs),
    values(c.all('candidate'), (a) => a.latencyMs),
  ];
  if (times[0].length || times[1].length) {
    const p95 = p95Shift(times, [c.all('baseline').length, c.all('candidate').length], {
      level: c.level,
      testLevel: share,
      relativeMargin: c.tolerance.latency,
      maxMissing: c.maxMissing,
    });
    if (c.timesApart) p95.blocked = c.timesApart;
    out.push(p95);
  }
  const scores: [number[], number[]] = [
    values(c.all('baseline'), (a) => a.score),
    values(c.all('candidate'), (a) => a.score),
  ];
  if (scores[0].length || scores[1].length) {
    const scored = (side: 'baseline' | 'candidate') => c.all(side).filter((a) => a.judge).length;
    const e = medianShift('*', 'score', scores, [scored('baseline'), scored('candidate')], {
      level: c.level,
      testLevel: rest,
      margin: c.tolerance.score,
      worse: -1,
      maxMissing: c.maxMissing,
      what: 'score',
    });
    e.blocked ??= c.drift.length ? c.drift.join('; ') : undefined;
    out.push(e);
  }
  // Each side's tolerances by check, found once (the first of a name).
  const toleranceOf = (side: Side) => {
    const byCheck = new Map<string, Tolerances | undefined>();
    for (const k of side.checks) if (!byCheck.has(k.check)) byCheck.set(k.check, k.tolerance);
    return byCheck;
  };
  const [baseTolerance, candidateTolerance] = [toleranceOf(baseline), toleranceOf(candidate)];
  for (const p of c.pairs) {
    const own = { ...c.tolerance, ...baseTolerance.get(p.check), ...candidateTolerance.get(p.check) };
    const e = checkPassRate(p, c.level, own.passRate);
    if (!p.baseline.length || !p.candidate.length)
      e.blocked = `the check ran on the ${p.baseline.length ? 'baseline' : 'candidate'} side only`;
    e.blocked ??= tooMuchMissing([p], c.maxMissing) ?? judgeChange(p);
    e.flip = flipOf(p, rest);
    out.push(e);
  }
  void primaries;
  const weight = (e: Evidence) => (e.metric === 'latency-p95' ? share : rest) / c.level;
  return out.map((e) => ({ e, weight: weight(e), primary: false }));
}

/**
 * A check that passed every judged attempt on one side and none on the other: never `unchanged`.
 * With few attempts such a flip is what a check passing about half the time does by chance; the
 * reason says how often, and what repeat would tell it from chance at the check's `share`.
 */
function flipOf(p: Paired, share: number): Evidence['flip'] {
  const judged = (xs: Attempt[]) => xs.filter((a) => a.outcome !== 'unjudged');
  const [b, c] = [judged(p.baseline), judged(p.candidate)];
  if (!b.length || !c.length) return undefined;
  const all = (xs: Attempt[]) => xs.every((a) => a.outcome === 'pass');
  const none = (xs: Attempt[]) => xs.every((a) => a.outcome === 'fail');
  const worse = all(b) && none(c);
  if (!worse && !(none(b) && all(c))) return undefined;
  // The likeliest chance of such a flip for a check alike on both sides: p^nb (1 − p)^nc at its best p.
  const [nb, nc] = worse ? [b.length, c.length] : [c.length, b.length];
  const rate = nb / (nb + nc);
  const chance = rate ** nb * (1 - rate) ** nc;
  // At the check's own share of the level (the one error budget), not the whole level: the repeat
  // that can reach it, so a flip at that repeat could be told.
  const repeat = repliesForShift(share);
  const [from, to] = worse ? ['passed', 'failed'] : ['failed', 'passed'];
  return {
    worse,
    reason:
      `${from} ${nb}/${nb} on the baseline and ${to} ${nc}/${nc} on the candidate: a check that passes ` +
      `${Math.round(rate * 100)}% of the time on both sides does this ${Math.round(chance * 100)}% of the time; ` +
      `repeat: ${repeat} on both sides would tell it from chance`,
  };
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
    all,
    drift: pairs.map(judgeChange).filter((x): x is string => !!x),
    ...(options.timesApart ? { timesApart: options.timesApart } : {}),
  };
  const primaries = primaryTests(context);
  const tests = [...primaries, ...secondaryTests(context, baseline, candidate, primaries)];
  const [worse, better] = [weightedHolm(tests, context.level, 'worse'), weightedHolm(tests, context.level, 'better')];
  const metrics = tests.map((t, i) => {
    const m = result(t.e, t.primary, worse[i], better[i]);
    if (m.verdict === 'unchanged' && (t.e.loose || t.e.flip)) {
      m.verdict = 'inconclusive';
      m.reason = t.e.loose ?? t.e.flip!.reason;
    } else if (m.reason === KEPT_BY_SHARE && t.e.flip) m.reason = t.e.flip.reason; // says what was seen, more plainly
    return m;
  });
  // What counts: the primary metrics, a secondary one `regressed`, and a check that flipped worse.
  const counted = metrics.filter(
    (m, i) => m.primary || m.verdict === 'regressed' || (m.verdict === 'inconclusive' && tests[i].e.flip?.worse),
  );
  return { behaviour: worstVerdict(counted.map((m) => m.verdict)), metrics };
}
