// What the comparison engine reads and returns: the same checks run on a baseline and a candidate
// (every attempt, per question), and per metric the figures, the change with its interval and a
// verdict. Plain values only: the engine sits below every user (deploy, previews, health, the
// command line) and imports nothing of theirs.

/** A metric's verdict; `behaviour` is the worst of them, in this order of precedence. */
export type Verdict = 'regressed' | 'improved' | 'unchanged' | 'inconclusive';

/** Worst first: regressed > inconclusive > improved > unchanged. */
export const VERDICT_PRECEDENCE: readonly Verdict[] = ['regressed', 'inconclusive', 'improved', 'unchanged'];

export type MetricName = 'pass-rate' | 'latency-p50' | 'latency-p95' | 'unjudged' | 'score';

/** Which judge gave a verdict: its model as the endpoint named it, and a hash of the grading prompt. */
export interface JudgeIdentity {
  model: string;
  promptHash: string;
}

/** One attempt of one question: every repeat of every question is made on both sides. */
export interface Attempt {
  /** The question's identity within its check (the same string on both sides). */
  question: string;
  /** `unjudged`: an error, a timeout or a judge outage. Never counted as a pass. */
  outcome: 'pass' | 'fail' | 'unjudged';
  /** The reply's time, when the Claw replied: exact, or the late end of an interval (`latencyLowMs`). */
  latencyMs?: number;
  /**
   * Present when the reply's time is only known to an interval (a task's, seen done by a poll):
   * the reply came between `latencyLowMs` and `latencyMs` after the message was sent.
   */
  latencyLowMs?: number;
  /** The judge's score (0 to 1), when a judge graded the attempt. */
  score?: number;
  /** Present when a judge graded the attempt. */
  judge?: JudgeIdentity;
  /** The verdict came from a cache: counted once per question and side, never as n attempts. */
  cached?: boolean;
}

/**
 * How far a metric may move before it counts, on either side. Pass rates and the unjudged share
 * in absolute points of share (0.05 = 5 points); latency relative to the baseline's median
 * (0.1 = 10%); scores in absolute points of the 0–1 scale.
 */
export interface Tolerances {
  passRate?: number;
  latency?: number;
  unjudged?: number;
  score?: number;
}

/** One check's attempts on one side; `tolerance` comes from the checks file. */
export interface CheckRun {
  check: string;
  tolerance?: Tolerances;
  attempts: Attempt[];
}

export interface Side {
  /** What the tables call this side: `before`, `production`, a Claw's id, a file. */
  label: string;
  checks: CheckRun[];
}

/** A side's figure: the value (null when nothing was measured) and how many attempts it rests on. */
export interface Figure {
  value: number | null;
  n: number;
}

export interface MetricResult {
  /** The check's name, or `*` for the whole suite. */
  check: string;
  metric: MetricName;
  /** Primary metrics decide `behaviour` directly; secondary ones only when still `regressed` after the FDR correction. */
  primary: boolean;
  baseline: Figure;
  candidate: Figure;
  /** Candidate minus baseline (pass rates and shares as fractions, latency in ms). */
  change: number | null;
  /** The change relative to the baseline's value. */
  relative: number | null;
  /** The change's two-sided 95% confidence interval: how large a change the data still allow. */
  low: number | null;
  high: number | null;
  /**
   * The one-sided 95% confidence bound on the worse side, which `regressed` reads: past the
   * tolerance on the worse side, the candidate is worse by at least that much. The lower bound
   * where higher is worse (latency, the unjudged share), the upper one where lower is worse (pass
   * rates, scores); it lies inside [low, high], a one-sided test at 5% being a two-sided one at 10%.
   */
  bound: number | null;
  /** The one-sided p-value in the direction of the change, before any correction. */
  p: number | null;
  /** How `change` is computed when it is not the candidate's value minus the baseline's (latency: within questions). */
  estimator?: string;
  verdict: Verdict;
  /** Why the verdict is what it is when the figures alone do not say (missing data, a judge change). */
  reason?: string;
}

export interface Comparison {
  /** The worst verdict over the primary metrics and the secondary ones still `regressed`; '' when nothing was compared. */
  behaviour: Verdict | '';
  metrics: MetricResult[];
}

export interface CompareOptions {
  /**
   * The chance (default 0.05) that `behaviour` reads `regressed` on identical releases: shared
   * among every test that can make it so (engine.ts, SHARES). The intervals shown are 1 − level.
   */
  level?: number;
  /** The largest unjudged share on either side before a pass-rate metric is inconclusive (default 0.2). */
  maxMissing?: number;
  /** The suite-wide tolerances; a check's own `tolerance` overrides them for that check. */
  tolerance?: Tolerances;
  /** The bootstrap's seed (p95): the same data give the same figures. */
  seed?: number;
  /**
   * Set when the baseline's reply times were measured at another time (a saved run): why its times
   * cannot be compared with the candidate's. The service's and the network's speed then differ by
   * more than the release, so latency is shown, not tested, and never decides `behaviour`.
   */
  timesApart?: string;
}

/** What a suite of this size can find, stated before the first request. */
export interface Detectable {
  questions: number;
  repeats: number;
  /** The relative drop in pass rate asked about (0.1 = 10%). */
  drop: number;
  /** The chance (0–1) that a drop of that size is called `regressed`. */
  power: number;
  /** "50 questions × 3 repeats: a 10% drop in pass rate is found 8 times in 10". */
  line: string;
  /** Present when a 20% drop is found less than 8 times in 10: names what to add. */
  warning?: string;
}
