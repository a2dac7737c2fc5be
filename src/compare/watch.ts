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
import { phi, zQuantile } from './distributions.js';
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
  /** The Claw's runs: the window before and after, and the weeks before it the drift is fitted on (DRIFT_HISTORY_WINDOWS windows). */
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

// Drift: runs of one Claw are alike from day to day (the model behind it, its tools, the judge,
// the traffic move slowly), so the level of the week before and of the days after differ by more
// than the runs' own noise, and the runs of one day are not independent of each other. Left out,
// a harmless deployment under AR(1) drift reads `regressed` up to 13% of the time (the bench).
// The model: a run's pass rate is the Claw's level of its day plus the run's noise; the day levels
// are a stationary AR(1), covariance τ²·φ^|days apart|, fitted on the baseline weeks (the
// DRIFT_HISTORY_WINDOWS windows before the deployment) by weighted least squares on the empirical
// semivariogram of daily pass rates, each day's noise taken out. The watch's variance is then the
// noise's plus the drift's share of (after − before): a contrast of day levels, cᵀΣc.

/** How many windows before the deployment the drift is fitted on (the baseline week and three before it). */
export const DRIFT_HISTORY_WINDOWS = 4;
/** The longest lag, in days, the semivariogram is fitted at (baseline day to the window's last day). */
export const DRIFT_MAX_LAG_DAYS = 14;
/** The φ tried by the fit (days-apart correlation of the Claw's level); 0.995 stands for a random walk over weeks. */
const DRIFT_PHIS = [...Array.from({ length: 20 }, (_, i) => i * 0.05), 0.97, 0.98, 0.99, 0.995];
/**
 * The smallest day-level variance believed, as a share of one run's noise variance: a baseline too
 * short or too quiet to show drift does not prove days independent. With fewer than
 * DRIFT_FULL_DAYS days of history the floor grows as the history shrinks.
 */
export const DRIFT_FLOOR_SHARE = 0.1;
export const DRIFT_FULL_DAYS = 21;

/** The day-to-day drift of a Claw's pass rate, fitted on the runs before a deployment. */
export interface DriftModel {
  /** τ²: the variance of a day's level (pass rate, squared). */
  variance: number;
  /** The correlation of the levels of two days, one day apart. */
  phi: number;
  /** Days with judged runs the fit saw. */
  days: number;
  /** The floor set τ² (the fit found less). */
  floored: boolean;
}

/** The day a run belongs to, counted from the deployment (negative before it). */
const dayOf = (at: number, deployedAt: number) => Math.floor((at - deployedAt) / DAY_MS);

interface Day {
  day: number;
  passed: number;
  n: number;
  runs: number;
}

function byDay(runs: readonly WatchRun[], deployedAt: number): Day[] {
  const days = new Map<number, Day>();
  for (const r of runs) {
    const n = r.passed + r.failed;
    if (n === 0) continue;
    const day = dayOf(r.at, deployedAt);
    const known = days.get(day) ?? { day, passed: 0, n: 0, runs: 0 };
    known.passed += r.passed;
    known.n += n;
    known.runs += 1;
    days.set(day, known);
  }
  return [...days.values()].sort((a, b) => a.day - b.day);
}

/**
 * The runs' noise around their own day's level, against independent attempts (Pearson's χ² of each
 * run against its day's pass rate, over runs − days degrees of freedom): the dispersion with the
 * drift between days taken out. Undefined when fewer than MIN_RUNS_FOR_DISPERSION degrees remain
 * (one run a day): then the runs' dispersion (which counts drift as noise, erring wide) stands.
 */
export function withinDayDispersion(runs: readonly WatchRun[], deployedAt: number): number | undefined {
  const days = byDay(runs, deployedAt);
  const passed = days.reduce((s, d) => s + d.passed, 0);
  const n = days.reduce((s, d) => s + d.n, 0);
  const rate = passed / n;
  const df = days.reduce((s, d) => s + d.runs, 0) - days.length;
  if (df < MIN_RUNS_FOR_DISPERSION || rate <= 0 || rate >= 1) return undefined;
  const dayRate = new Map(days.map((d) => [d.day, d.passed / d.n]));
  let pearson = 0;
  for (const r of runs) {
    const size = r.passed + r.failed;
    if (size === 0) continue;
    pearson += (r.passed - size * dayRate.get(dayOf(r.at, deployedAt))!) ** 2 / (size * rate * (1 - rate));
  }
  return Math.max(MIN_DISPERSION, pearson / df);
}

/**
 * The drift fitted on `runs` (the runs before the deployment): the semivariogram of the daily pass
 * rates, G(h) = mean of ½(y_d+h − y_d)² − ½(v_d + v_d+h) over pairs of days h apart (v: a day's
 * noise variance, `scale`·p(1−p)/n), against τ²(1 − φ^h) for h = 1..DRIFT_MAX_LAG_DAYS, weighted by
 * the pairs; τ² in closed form at each φ of the grid, the φ of least squares kept; then the floor.
 */
export function fitDrift(runs: readonly WatchRun[], deployedAt: number, scale: number): DriftModel {
  const days = byDay(runs, deployedAt);
  const passed = days.reduce((s, d) => s + d.passed, 0);
  const n = days.reduce((s, d) => s + d.n, 0);
  const runCount = days.reduce((s, d) => s + d.runs, 0);
  const p = (passed + 1) / (n + 2);
  const runNoise = (scale * p * (1 - p)) / Math.max(1, n / Math.max(1, runCount));
  const floor = DRIFT_FLOOR_SHARE * runNoise * Math.max(1, DRIFT_FULL_DAYS / Math.max(1, days.length));
  const lags: { h: number; pairs: number; g: number }[] = [];
  const index = new Map(days.map((d) => [d.day, d]));
  for (let h = 1; h <= DRIFT_MAX_LAG_DAYS; h++) {
    let [pairs, sum] = [0, 0];
    for (const a of days) {
      const b = index.get(a.day + h);
      if (!b) continue;
      const noise = (scale * p * (1 - p)) / a.n + (scale * p * (1 - p)) / b.n;
      sum += 0.5 * (b.passed / b.n - a.passed / a.n) ** 2 - 0.5 * noise;
      pairs += 1;
    }
    if (pairs > 0) lags.push({ h, pairs, g: sum / pairs });
  }
  let best = { variance: 0, phi: 0, sse: Infinity };
  for (const phi of DRIFT_PHIS) {
    let [gg, gy] = [0, 0];
    for (const { h, pairs, g } of lags) {
      const shape = 1 - phi ** h;
      gg += pairs * shape * shape;
      gy += pairs * shape * g;
    }
    const variance = gg > 0 ? Math.max(0, gy / gg) : 0;
    const sse = lags.reduce((s, { h, pairs, g }) => s + pairs * (g - variance * (1 - phi ** h)) ** 2, 0);
    if (sse < best.sse) best = { variance, phi, sse };
  }
  const floored = best.variance < floor;
  return { variance: floored ? floor : best.variance, phi: best.phi, days: days.length, floored };
}

/**
 * The drift's share of the variance of (after − before): with w_d each day's share of the attempts
 * after (and of those before), c = w_after − w_before, Var = Σ c_d c_e τ² φ^|d−e|.
 */
export function driftContrastVariance(
  model: DriftModel,
  after: readonly { day: number; n: number }[],
  before: readonly { day: number; n: number }[],
): number {
  const weights = new Map<number, number>();
  const add = (list: readonly { day: number; n: number }[], sign: number) => {
    const total = list.reduce((s, d) => s + d.n, 0);
    if (total > 0) for (const d of list) weights.set(d.day, (weights.get(d.day) ?? 0) + (sign * d.n) / total);
  };
  add(after, 1);
  add(before, -1);
  const entries = [...weights.entries()];
  let variance = 0;
  for (const [d, c] of entries) for (const [e, k] of entries) variance += c * k * model.phi ** Math.abs(d - e);
  return Math.max(0, model.variance * variance);
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

  // ρ is fixed by the runs before the deployment alone (the baseline's pass rate's variance, its
  // runs' size, the drift fitted on the baseline weeks), before any look.
  const history = seen.filter(
    (r) => r.at >= input.deployedAt - DRIFT_HISTORY_WINDOWS * windowMs && r.at < input.deployedAt,
  );
  const scale = withinDayDispersion(history, input.deployedAt) ?? dispersion(beforeRuns);
  const drift = fitDrift(history, input.deployedAt, scale);
  const variance = (passed: number, n: number) => scale * binomialVariance(passed, n);
  const beforeVariance = variance(before.passed, before.n);
  const beforeDays = byDay(beforeRuns, input.deployedAt);
  const runSize = before.n / before.runs;
  const tightest = input.tightestAfterRuns ?? 3;
  const driftAtTightest = driftContrastVariance(drift, [{ day: 0, n: 1 }], beforeDays);
  const target = 1 / (beforeVariance + (beforeVariance * before.n) / (runSize * tightest) + driftAtTightest);
  const rho = tightestRho(target, level);

  let look = { low: 0, high: 0, change: 0 };
  let passed = 0;
  let n = 0;
  const afterDays: { day: number; n: number }[] = [];
  for (const run of afterRuns) {
    passed += run.passed;
    n += run.passed + run.failed;
    if (n === 0) continue;
    const day = dayOf(run.at, input.deployedAt);
    if (afterDays.at(-1)?.day === day) afterDays.at(-1)!.n += run.passed + run.failed;
    else afterDays.push({ day, n: run.passed + run.failed });
    const change = passed / n - before.passed / before.n;
    // Never narrower than the baseline's spread at this n: a few lucky runs near 100% are no certainty.
    const afterVariance = Math.max(variance(passed, n), (beforeVariance * before.n) / n);
    const information = 1 / (beforeVariance + afterVariance + driftContrastVariance(drift, afterDays, beforeDays));
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
// keeps that margin. Under drift from day to day the runs of an excursion share their days' level,
// so its steps are not independent and a level that wandered reads as a shift: a crossing alarms
// only when the excursion's pass rate is also QUIET_DRIFT_Z standard deviations below what its
// baseline predicts with the drift counted (excursionZ: fitted on the eight weeks before the
// excursion as the watch after a deployment fits it, never less than a prior drift, the baseline's
// days weighted as the drift says they predict), a bound that grows with the excursion's looks
// (quietGateZ). Fitted drift alone, on four weeks and one bound, left 0.6 to 3.7 false incidents a
// Claw-year under fast or large drift: the fit is too uncertain on a month, and a slow wander keeps
// the CUSUM up for days of looks. The bench measures false incidents per simulated Claw-year and
// how soon a drop is found.

/** The CUSUM's reference value k and threshold h (in standard deviations of one run's pass rate). */
export const QUIET_K = 1;
export const QUIET_H = 9;
/** The baseline: this many days of runs before the excursion (or the run) being judged. */
export const QUIET_BASELINE_DAYS = 7;
/** How far back the CUSUM is run from each look: older excursions no longer hold. */
export const QUIET_SCAN_DAYS = 14;
/**
 * The days before an excursion its noise and drift are fitted on: eight weeks. Four (as before a
 * deployment) leave the drift's size too uncertain for a watch that runs all year: of 200 simulated
 * four-week histories under an AR(1) at φ 0.9, σ 0.6, one in ten fitted τ under 0.45 of the truth
 * (eight weeks: under 0.54 of it).
 */
export const QUIET_DRIFT_HISTORY_DAYS = 2 * DRIFT_HISTORY_WINDOWS * DEFAULT_WINDOW_DAYS;
/** The days of runs before `now` the watches read: the quiet watch's scan and the history before its excursions (a deployment's watch needs fewer: its window and the four before). */
export const WATCH_HISTORY_DAYS = QUIET_SCAN_DAYS + QUIET_DRIFT_HISTORY_DAYS;
/**
 * A crossing alarms only when the excursion's drop is also this many standard deviations below
 * what its baseline predicts with the drift counted (at up to QUIET_GATE_EVEN_LOOKS looks; more
 * looks, more: quietGateZ): a level that wandered with the days is not a shift.
 */
export const QUIET_DRIFT_Z = 4;
/** The looks of one excursion the drift check holds QUIET_DRIFT_Z at; past them its level falls as 1/looks². */
export const QUIET_GATE_EVEN_LOOKS = 4;
/**
 * The drift the check assumes at least, whatever the history shows: an AR(1) of the daily level
 * at φ QUIET_PRIOR_DRIFT_PHI whose variance is QUIET_PRIOR_DRIFT_SHARE of one run's noise (for
 * the reference Claw about σ 0.35 on the logit: 1.9 points of pass rate). Eight weeks that look
 * calm do not prove a level that cannot wander.
 */
export const QUIET_PRIOR_DRIFT_SHARE = 0.2;
export const QUIET_PRIOR_DRIFT_PHI = 0.9;
/**
 * The fitted drift's variance counts this many times over (a fit at the floor counts nothing: the
 * prior stands for it). Eight weeks tell a drift's size only roughly: of 200 simulated eight-week
 * histories at φ 0.9, σ 0.6, one in four fitted τ under 0.74 of the truth (0.54 of its variance).
 * Counting it more costs drops under drift (a fit too large is counted more too): with 3 and a
 * prior of 0.15, a 20% drop under that drift was found within the week 75.5% of the time, with 1.5
 * and 0.2 90.5%, at the same false incidents (the bench).
 */
export const QUIET_DRIFT_FIT_WEIGHT = 1.5;

/**
 * The drift check's bound at the `looks`-th look of an excursion (counted from its first run): the
 * one-sided level of QUIET_DRIFT_Z at each of the first QUIET_GATE_EVEN_LOOKS, then that level
 * × (QUIET_GATE_EVEN_LOOKS / looks)², so an excursion's looks spend at most 7.5 times one look's
 * level however long it lasts (4 + 16 × Σ 1/j² for j > 4). A level that drifts slowly keeps the
 * CUSUM up for days and is looked at after every run; a drop is found within a few looks.
 */
export function quietGateZ(looks: number): number {
  const level = (1 - phi(QUIET_DRIFT_Z)) * Math.min(1, (QUIET_GATE_EVEN_LOOKS / Math.max(1, looks)) ** 2);
  return -zQuantile(level);
}

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
  // Fitted on the history before the excursion's start, once an excursion and only when it crosses
  // (rare): the same at every look, so an alarm does not flicker as the scan moves on.
  let noise: (QuietNoise & { start: number }) | undefined;
  const noiseModel = (start: number) => {
    if (noise?.start !== start) {
      const history = judged.slice(firstAtOrAfter(start - QUIET_DRIFT_HISTORY_DAYS * DAY_MS), firstAtOrAfter(start));
      noise = { start, ...quietNoise(history, start) };
    }
    return noise;
  };
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
    else if (statistic > QUIET_H && !crossed)
      crossed =
        excursionZ(judged.slice(base.from, base.to), judged.slice(firstAtOrAfter(start!), i + 1), noiseModel(start!)) <
        -quietGateZ(i + 1 - firstAtOrAfter(start!));
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

/**
 * The quiet watch's noise model, fitted on the runs of the QUIET_DRIFT_HISTORY_DAYS before an
 * excursion's start (so the drop under way does not enter it): the runs' noise around their day's
 * level and the drift of the day levels, as the watch after a deployment fits them
 * (withinDayDispersion, fitDrift, with the floor). Days are counted from the excursion's start.
 */
export interface QuietNoise {
  origin: number;
  /** The within-day dispersion; undefined when the history is too short (each baseline's dispersion then stands). */
  scale?: number;
  drift: DriftModel;
}

export function quietNoise(history: readonly WatchRun[], origin: number): QuietNoise {
  const scale = withinDayDispersion(history, origin);
  const drift = fitDrift(history, origin, scale ?? (history.length > 0 ? dispersion(history) : 1));
  return { origin, ...(scale !== undefined ? { scale } : {}), drift };
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

/**
 * The excursion's runs against what its baseline runs predict of them, in standard deviations were
 * nothing changed. Under drift the days nearest the excursion say most about its level, so the
 * baseline's days are weighted by the best linear predictor of the excursion's mean level (ordinary
 * kriging: unbiased whatever the Claw's mean, least variance under the model), and the variance is
 * that prediction's error plus the excursion's own noise. The model of a day's mean pass rate: the
 * Claw's mean, plus the drifting level (the fitted AR(1) × QUIET_DRIFT_FIT_WEIGHT; when the floor
 * set it, the floor on a history of under DRIFT_FULL_DAYS days and nothing on a longer one; plus
 * the prior drift, QUIET_PRIOR_DRIFT_SHARE), plus its runs' noise at the baseline's rate (shrunk by
 * one pass and one fail) × the within-day dispersion / the day's attempts. With no drift at all the
 * weights are the attempts' shares: the two sides' pass rates. Cubic in the baseline's days (7).
 */
export function excursionZ(before: readonly WatchRun[], after: readonly WatchRun[], noise: QuietNoise): number {
  const b = side(before);
  const rate = (b.passed + 1) / (b.n + 2);
  const unit = (noise.scale ?? dispersion(before)) * rate * (1 - rate);
  const prior = QUIET_PRIOR_DRIFT_SHARE * unit * (b.runs / Math.max(1, b.n));
  // A floor set by a short history (the read reached few days before the excursion: a large
  // fleet's history is cut by the read's budget) still counts: those days do not prove the level calm.
  const { floored, variance: drift, days } = noise.drift;
  const fitted = !floored ? QUIET_DRIFT_FIT_WEIGHT * drift : days < DRIFT_FULL_DAYS ? drift : 0;
  const cov = (d: number, e: number) =>
    fitted * noise.drift.phi ** Math.abs(d - e) + prior * QUIET_PRIOR_DRIFT_PHI ** Math.abs(d - e);
  const A = byDay(after, noise.origin);
  const B = byDay(before, noise.origin);
  const attempts = A.reduce((s, d) => s + d.n, 0);
  const a = A.map((d) => d.n / attempts);
  // The system of ordinary kriging: [K 1; 1ᵀ 0] [w; m] = [k; 1], K the baseline days' covariance
  // with their noise, k their covariance with the excursion's mean level.
  const K = B.map((d, i) => B.map((e, j) => cov(d.day, e.day) + (i === j ? unit / d.n : 0)));
  const k = B.map((d) => A.reduce((s, e, j) => s + a[j] * cov(d.day, e.day), 0));
  const w = solveLinear([...K.map((row) => [...row, 1]), [...B.map(() => 1), 0]], [...k, 1]).slice(0, B.length);
  const predicted = B.reduce((s, d, i) => s + w[i] * (d.passed / d.n), 0);
  const observed = A.reduce((s, d, j) => s + a[j] * (d.passed / d.n), 0);
  let variance = 0;
  A.forEach((d, i) =>
    A.forEach((e, j) => (variance += a[i] * a[j] * (cov(d.day, e.day) + (i === j ? unit / d.n : 0)))),
  );
  B.forEach((_, i) => B.forEach((__, j) => (variance += w[i] * w[j] * K[i][j])));
  variance -= 2 * w.reduce((s, wi, i) => s + wi * k[i], 0);
  return (observed - predicted) / Math.sqrt(variance);
}

/**
 * x with m x = y, m square and small (Gaussian elimination with partial pivoting). Not jStat's
 * gauss_elimination: it picks its pivot by comparing a signed value with absolute ones, and the
 * kriging system's last diagonal entry is 0, so the pivot's choice matters.
 */
function solveLinear(m: readonly (readonly number[])[], y: readonly number[]): number[] {
  const rows = m.map((row, i) => [...row, y[i]]);
  const size = y.length;
  for (let c = 0; c < size; c++) {
    let pivot = c;
    for (let r = c + 1; r < size; r++) if (Math.abs(rows[r][c]) > Math.abs(rows[pivot][c])) pivot = r;
    [rows[c], rows[pivot]] = [rows[pivot], rows[c]];
    for (let r = c + 1; r < size; r++) {
      const f = rows[r][c] / rows[c][c];
      for (let j = c; j <= size; j++) rows[r][j] -= f * rows[c][j];
    }
  }
  const x = new Array<number>(size).fill(0);
  for (let r = size - 1; r >= 0; r--) {
    let sum = rows[r][size];
    for (let j = r + 1; j < size; j++) sum -= rows[r][j] * x[j];
    x[r] = sum / rows[r][r];
  }
  return x;
}
