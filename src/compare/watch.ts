// The watch after a deployment (docs/comparing.md, "The watch after a deployment", says it in
// words): the health runs since a deployment against the runs of the window before it, looked at
// after every run, with a rule whose false alarms stay at or under the level over the whole watch
// however many runs look.
//
// Why a normal-mixture confidence sequence and not an alpha-spending boundary: the number of
// looks is not known in advance (schedules change, runs fail, a human re-runs health), and a
// mixture boundary is valid at every moment of a continuous Brownian motion, so at any set of
// looks, with nothing to plan and no recursive numerical integration. The difference of pass
// rates with the baseline fixed and the candidate growing is, in information time
// I = 1 / Var(difference), a Brownian motion S(I) = difference × I (the baseline's share of the
// variance is common to every look, so Cov(S_j, S_k) = I_j for j ≤ k): the canonical form of
// group-sequential tests. On it, exp(λS − λ²I/2) mixed over a half-normal λ ≥ 0 is a
// non-negative martingale starting at 1 (Robbins 1970), so by Ville's inequality it passes 1/α
// with probability at most α, whatever the looks. The normal approximation makes the sequence
// asymptotic (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas 2024, "Time-uniform central limit
// theory and asymptotic confidence sequences"); the A/A simulation in watch.test.ts checks it at
// this size. Pass rates count judged attempts only; unjudged ones are reported, never a pass.
import { DEFAULT_MAX_MISSING } from './engine.js';
import { phi } from './distributions.js';
import type { Verdict } from './types.js';

/** One health run of one Claw: when, and how its checks' attempts came out. */
export interface WatchRun {
  /** Epoch milliseconds. */
  at: number;
  passed: number;
  failed: number;
  /** Errors, timeouts, judge outages: neither a pass nor a fail. */
  unjudged: number;
}

export interface WatchInput {
  runs: readonly WatchRun[];
  /** When the deployment went live (epoch milliseconds). */
  deployedAt: number;
  /** The time of looking: runs after it are not counted (a clock, injected). */
  now: number;
  /** The window before and after the deployment, in days (default 7). */
  windowDays?: number;
  /** The one-sided level of each direction over the whole watch (default 0.05). */
  level?: number;
  /** How far the pass rate may drop (absolute points, 0.05 = 5 points) before it counts (default 0). */
  tolerance?: number;
  /** The largest unjudged share since the deployment before `unchanged` becomes `inconclusive` (default 0.2, as the engine). */
  maxMissing?: number;
  /** The number of runs after the deployment the boundary is tightest at (default 3). */
  tightestAfterRuns?: number;
}

export type WatchVerdict = Verdict | 'watching';

export interface WatchSide {
  /** Judged attempts passing; null when none was judged. */
  passRate: number | null;
  /** Judged attempts. */
  n: number;
  unjudged: number;
  runs: number;
}

export interface WatchResult {
  verdict: WatchVerdict;
  reason?: string;
  before: WatchSide;
  after: WatchSide;
  /** After minus before, as a fraction (null without data on both sides). */
  change: number | null;
  /** The confidence sequence at the deciding look (or the last): each end a one-sided bound at `level`, valid at every look. */
  low: number | null;
  high: number | null;
  /** Runs after the deployment that were looked at, and the time of the one that decided (if any). */
  looks: number;
  decidedAt?: number;
  windowEndsAt: number;
}

export const DEFAULT_WINDOW_DAYS = 7;
export const DEFAULT_WATCH_LEVEL = 0.05;
const DAY_MS = 24 * 3600_000;

/**
 * The boundary b(I) of the one-sided half-normal mixture: the S with
 * 2·sqrt(ρ/(I+ρ))·exp(S²/(2(I+ρ)))·Φ(S/sqrt(I+ρ)) = 1/α. Solved as S = sqrt(2(I+ρ)(T − log Φ(S/sqrt(I+ρ))))
 * by iteration: S/sqrt(I+ρ) is at least sqrt(2 log(1/(2α))) > 1 there, where Φ barely moves, so it
 * contracts fast.
 */
export function mixtureBoundary(information: number, rho: number, level: number): number {
  const scale = information + rho;
  const free = Math.log(1 / level) - Math.log(2) + 0.5 * Math.log(scale / rho);
  let s = Math.sqrt(2 * scale * free);
  for (let i = 0; i < 100; i++) {
    const next = Math.sqrt(2 * scale * (free - Math.log(phi(s / Math.sqrt(scale)))));
    if (Math.abs(next - s) <= 1e-12 * next) return next;
    s = next;
  }
  return s;
}

/** The mixture's ρ that makes the bound on the difference, b(I)/I, narrowest at information I (golden-section search on log ρ). */
export function tightestRho(information: number, level: number): number {
  const width = (logRho: number) => mixtureBoundary(information, information * Math.exp(logRho), level);
  const ratio = (Math.sqrt(5) - 1) / 2;
  let [a, b] = [-8, 8];
  for (let i = 0; i < 30; i++) {
    const c = b - ratio * (b - a);
    const d = a + ratio * (b - a);
    if (width(c) < width(d)) b = d;
    else a = c;
  }
  return information * Math.exp((a + b) / 2);
}

/** A pass rate's binomial variance, the share shrunk by one pass and one fail (Agresti–Caffo) so 0/n and n/n are not certain. */
const binomialVariance = (passed: number, n: number) => {
  const p = (passed + 1) / (n + 2);
  return (p * (1 - p)) / n;
};

/** Runs before the deployment needed to estimate how much runs really vary; below it, binomial. */
export const MIN_RUNS_FOR_DISPERSION = 10;
/** The smallest dispersion believed: a Claw that barely varies in the baseline is not taken as certain. */
const MIN_DISPERSION = 0.5;

/**
 * How much the baseline's runs vary against what independent attempts would give (the quasi-binomial
 * dispersion: Pearson's χ² over its degrees of freedom). Attempts of one run share the model's and
 * the judge's state of the moment, so runs can vary more than binomial (and a fixed set of questions
 * of differing difficulty, less): the variances are scaled by it, as a design effect.
 */
export function dispersion(runs: readonly WatchRun[]): number {
  const judged = runs.filter((r) => r.passed + r.failed > 0);
  const passed = judged.reduce((s, r) => s + r.passed, 0);
  const n = judged.reduce((s, r) => s + r.passed + r.failed, 0);
  const rate = passed / n;
  if (judged.length < MIN_RUNS_FOR_DISPERSION || rate <= 0 || rate >= 1) return 1;
  const pearson = judged.reduce((s, r) => {
    const size = r.passed + r.failed;
    return s + (r.passed - size * rate) ** 2 / (size * rate * (1 - rate));
  }, 0);
  return Math.max(MIN_DISPERSION, pearson / (judged.length - 1));
}

function side(runs: readonly WatchRun[]): WatchSide & { passed: number } {
  const passed = runs.reduce((s, r) => s + r.passed, 0);
  const n = runs.reduce((s, r) => s + r.passed + r.failed, 0);
  return {
    passed,
    passRate: n > 0 ? passed / n : null,
    n,
    unjudged: runs.reduce((s, r) => s + r.unjudged, 0),
    runs: runs.length,
  };
}

const publicSide = ({ passRate, n, unjudged, runs }: WatchSide): WatchSide => ({ passRate, n, unjudged, runs });

/** The watch's verdict at `now`: every run after the deployment so far is one look. */
export function watchDeployment(input: WatchInput): WatchResult {
  const windowMs = (input.windowDays ?? DEFAULT_WINDOW_DAYS) * DAY_MS;
  const level = input.level ?? DEFAULT_WATCH_LEVEL;
  const tolerance = input.tolerance ?? 0;
  const windowEndsAt = input.deployedAt + windowMs;
  const seen = input.runs.filter((r) => r.at <= input.now);
  const beforeRuns = seen.filter((r) => r.at >= input.deployedAt - windowMs && r.at < input.deployedAt);
  const afterRuns = seen.filter((r) => r.at >= input.deployedAt && r.at < windowEndsAt).sort((a, b) => a.at - b.at);
  const before = side(beforeRuns);
  const after = side(afterRuns);
  const over = input.now >= windowEndsAt;
  const empty = { change: null, low: null, high: null, looks: afterRuns.length, windowEndsAt };
  const summary = { before: publicSide(before), after: publicSide(after) };

  if (before.n === 0)
    return {
      verdict: 'inconclusive',
      reason:
        before.runs === 0
          ? 'no health run in the window before the deployment'
          : 'nothing judged before the deployment',
      ...summary,
      ...empty,
    };
  if (after.n === 0)
    return {
      verdict: over ? 'inconclusive' : 'watching',
      reason: after.runs === 0 ? 'no health run since the deployment' : 'nothing judged since the deployment',
      ...summary,
      ...empty,
    };

  // ρ is fixed by the baseline alone (its pass rate's variance and its runs' size), before any look.
  const scale = dispersion(beforeRuns);
  const variance = (passed: number, n: number) => scale * binomialVariance(passed, n);
  const beforeVariance = variance(before.passed, before.n);
  const runSize = before.n / before.runs;
  const target = 1 / (beforeVariance + (beforeVariance * before.n) / (runSize * (input.tightestAfterRuns ?? 3)));
  const rho = tightestRho(target, level);

  let look = { low: 0, high: 0, change: 0 };
  let passed = 0;
  let n = 0;
  for (const run of afterRuns) {
    passed += run.passed;
    n += run.passed + run.failed;
    if (n === 0) continue;
    const change = passed / n - before.passed / before.n;
    // Never narrower than the baseline's spread at this n: a few lucky runs near 100% are no certainty.
    const afterVariance = Math.max(variance(passed, n), (beforeVariance * before.n) / n);
    const information = 1 / (beforeVariance + afterVariance);
    const half = mixtureBoundary(information, rho, level) / information;
    look = { change, low: change - half, high: change + half };
    const decided = { ...summary, ...look, looks: afterRuns.length, decidedAt: run.at, windowEndsAt };
    if (look.high < -tolerance) return { verdict: 'regressed', ...decided };
    if (look.low > tolerance) return { verdict: 'improved', ...decided };
  }
  const last = { ...summary, ...look, looks: afterRuns.length, windowEndsAt };
  if (!over) return { verdict: 'watching', ...last };
  // A deployment that turns answers into errors leaves the judged ones looking the same: not `unchanged`.
  if (after.unjudged / (after.unjudged + after.n) > (input.maxMissing ?? DEFAULT_MAX_MISSING))
    return { verdict: 'inconclusive', reason: 'too many attempts unjudged since the deployment', ...last };
  // As the engine: `unchanged` unless a change is plainly there (the interval on one side of 0)
  // and the interval straddles the tolerance, so whether it passes is not yet clear.
  if ((look.high < 0 && look.low < -tolerance) || (look.low > 0 && look.high > tolerance))
    return {
      verdict: 'inconclusive',
      reason: 'a change, but whether it passes the tolerance is not yet clear',
      ...last,
    };
  return { verdict: 'unchanged', ...last };
}

// The watch with nothing deployed: one CUSUM over the Claw's health runs, never restarted by the
// calendar (a weekly restart gave every week a fresh 5% to spend: 0.4 false incidents a Claw-year).
// Each run's pass rate is standardized against the baseline, the week of runs before the current
// excursion began (so a drop does not pull its own baseline down), with the baseline's dispersion
// and its mean's own uncertainty in the variance; S = max(0, S − z − k) and an alarm at S > h.
// With k = 1 (tuned for a drop of two standard deviations of one run: a 20% drop of the reference
// Claw is about four, found by the third run) and h = 9, the in-control average run length is 320
// million runs on independent standard normal z (Brook–Evans; test/compare/cusum-reference.json has
// scipy's figure). Real runs are neither normal nor independent (a baseline's dispersion estimated
// from a week, rare failures of near-certain questions, drift): on simulated Claw-years h = 4.5
// (39,400 runs on normal z) gave 0.63 false incidents a year and h = 7 (5.9 million) 0.083, so h
// keeps that margin. The bench measures false incidents per simulated Claw-year.

/** The CUSUM's reference value k and threshold h (in standard deviations of one run's pass rate). */
export const QUIET_K = 1;
export const QUIET_H = 9;
/** The baseline: this many days of runs before the excursion (or the run) being judged. */
export const QUIET_BASELINE_DAYS = 7;
/** How far back the CUSUM is run from each look: older excursions no longer hold. */
export const QUIET_SCAN_DAYS = 14;

/**
 * Siegmund's approximation of the one-sided CUSUM's in-control average run length on independent
 * standard normal steps: (exp(2kb) − 2kb − 1) / (2k²), b = h + 1.166.
 */
export function cusumArl(k: number, h: number): number {
  const b = 2 * k * (h + 1.166);
  return (Math.exp(b) - b - 1) / (2 * k * k);
}

export interface QuietResult {
  /** The CUSUM crossed h in the excursion still under way at `now`. */
  alarm: boolean;
  /** The first run of that excursion (when the CUSUM last left 0), when there is one. */
  since?: number;
  /** The CUSUM at the last run. */
  statistic: number;
  /** The baseline and the runs since the excursion began, as the watch's sides. */
  before: WatchSide;
  after: WatchSide;
}

/** The quiet watch at `now`: the CUSUM over the Claw's runs of the last QUIET_SCAN_DAYS. Linear in the runs. */
export function quietWatch(runs: readonly WatchRun[], now: number): QuietResult {
  const judged = runs.filter((r) => r.at <= now && r.passed + r.failed > 0).sort((a, b) => a.at - b.at);
  // Prefix sums: each baseline's passes and attempts in constant time.
  const at = judged.map((r) => r.at);
  const sums = [{ p: 0, n: 0, runs: 0 }];
  for (const r of judged) {
    const last = sums[sums.length - 1];
    sums.push({ p: last.p + r.passed, n: last.n + r.passed + r.failed, runs: last.runs + 1 });
  }
  const firstAtOrAfter = (t: number): number => {
    let [lo, hi] = [0, at.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const scanFrom = firstAtOrAfter(now - QUIET_SCAN_DAYS * DAY_MS);
  let statistic = 0;
  let start: number | undefined;
  let crossed = false;
  let base = { from: 0, to: 0 };
  for (let i = scanFrom; i < judged.length; i++) {
    const anchor = statistic > 0 && start !== undefined ? start : judged[i].at;
    const to = firstAtOrAfter(anchor);
    const from = firstAtOrAfter(anchor - QUIET_BASELINE_DAYS * DAY_MS);
    if (to - from < MIN_RUNS_FOR_DISPERSION) continue;
    const z = standardized(judged, sums, from, to, judged[i]);
    const next = Math.max(0, statistic - z - QUIET_K);
    if (statistic === 0 && next > 0) {
      start = judged[i].at;
      crossed = false;
      base = { from, to };
    }
    statistic = next;
    if (statistic === 0) start = undefined;
    else if (statistic > QUIET_H) crossed = true;
  }
  const sideOf = (list: readonly WatchRun[]): WatchSide => publicSide(side(list));
  const since = statistic > 0 ? start : undefined;
  return {
    alarm: statistic > 0 && crossed,
    ...(since !== undefined ? { since } : {}),
    statistic,
    before: sideOf(since !== undefined ? judged.slice(base.from, base.to) : []),
    after: sideOf(since !== undefined ? judged.filter((r) => r.at >= since) : []),
  };
}

/** One run's pass rate against the baseline runs [from, to), in standard deviations (negative: lower). */
function standardized(
  judged: readonly WatchRun[],
  sums: readonly { p: number; n: number; runs: number }[],
  from: number,
  to: number,
  run: WatchRun,
): number {
  const passed = sums[to].p - sums[from].p;
  const n = sums[to].n - sums[from].n;
  const rate = (passed + 1) / (n + 2);
  const scale = dispersion(judged.slice(from, to));
  const size = run.passed + run.failed;
  const variance = scale * rate * (1 - rate) * (1 / size + 1 / n);
  return (run.passed / size - passed / n) / Math.sqrt(variance);
}
