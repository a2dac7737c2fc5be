// A Claw's reply times so far, as the intervals its task polls left (a task's reply came after the
// last poll that saw it running and before the first that saw it done; a synchronous reply is
// exact), and where the next task's polls go. What the comparison needs of a task's time is its
// median to a tolerance, not each reply to the millisecond: the polls go over the band of levels
// where the median may lie (narrowing as replies are seen), no closer together than the tolerance
// and no more than a share of the team's window allows, jittered so that across tasks they cover
// the band; past it they back off fast. The distribution is Turnbull's estimate for
// interval-censored times (the nonparametric maximum likelihood, by its self-consistency
// iteration), bounded in work by a cap on the intervals kept.
import { zQuantile } from '../compare/distributions.js';

/** A reply's time: between `lowMs` and `highMs` after the message was sent (equal when exact). */
export interface ReplyInterval {
  lowMs: number;
  highMs: number;
}

/** Below this many replies the spread is unknown: the task is followed on the fixed schedule. */
export const MIN_REPLIES_FOR_PLAN = 3;
/** The most intervals one Claw keeps (the latest): bounds the estimate's work. */
const MAX_KEPT = 400;
/**
 * The latency tolerance the comparison uses unless a suite sets its own (compare's default): the
 * planned polls are never closer together than it, as a narrower interval tells the median no more.
 */
export const DEFAULT_LATENCY_TOLERANCE = 0.05;
/** A task's planned polls: at least this many, whatever the window... */
export const MIN_PLANNED = 2;
/** ...and at most this many, whatever the window and the tolerance (bounds a plan's work). */
export const MAX_PLANNED = 12;
/**
 * A task's planned polls take at most this share of the team's window (4 at 60 requests a minute,
 * capped at MAX_PLANNED at 300): a task's message and polls then cost about four requests at 60 a
 * minute, where dense polls cost seven or more.
 */
export const WINDOW_SHARE = 1 / 15;
/**
 * The band of levels the planned polls cover: where the median may lie given the replies seen (its
 * order-statistic interval, about 0.5 ± 1/√n), never narrower than ±MIN_BAND (a release may have
 * moved it) nor wider than ±MAX_BAND. Outside it a reply's interval only says which side of the
 * median it came, which is all the median needs.
 */
export const MIN_BAND = 0.25;
export const MAX_BAND = 0.4;
/**
 * Below this many replies the distribution is still being learnt: the plan's budget is
 * EARLY_BUDGET times its own (the first replies place the plan for all that follow).
 */
export const KNOWN_AFTER = 30;
export const EARLY_BUDGET = 1.5;
/**
 * Past the plan each poll waits this share of the time the task has run: a slow reply is followed
 * in few polls (each doubling of its time costs under two), to an interval that still says how slow.
 */
export const TAIL_SHARE = 1 / 2;
const ITERATIONS = 200;
/** The quartiles of a normal law lie this many σ apart. */
const QUARTILES_Z = 1.349;
/** The spread assumed when the quartiles say none (a typical Claw's), and the bounds kept on it. */
const DEFAULT_SIGMA = 0.5;
/** How many replies' worth the typical spread weighs against the spread seen. */
const PRIOR_REPLIES = 10;
const MIN_SIGMA = 0.05;
const MAX_SIGMA = 2;
/**
 * A task's polls are given room in the window to follow a reply this many times slower than the
 * FOLLOW_LEVEL quantile of those seen: few replies seen say little of the tail, and each doubling
 * costs only a few polls (their waits grow by the tail share).
 */
export const FOLLOW_LEVEL = 0.98;
const FOLLOW_MARGIN = 2;
/** The most polls `pollsToReach` counts: bounds its work whatever the plan and horizon. */
const MAX_COUNTED_POLLS = 1000;

/** What a task's plan may spend: the team's window (requests) and the latency tolerance (a share). */
export interface PlanBudget {
  /** The team's limit a window, as its headers said; the documented 60 before any was seen. */
  windowLimit?: number;
  tolerance?: number;
  /**
   * The most points the plan may have: what is left of the window, when a full plan would not fit
   * it (fewer points now rather than a wait for the reset with requests unspent).
   */
  most?: number;
}

/** The planned polls one task may have within a window of `windowLimit` requests. */
export function plannedPollBudget(windowLimit = 60): number {
  return Math.min(MAX_PLANNED, Math.max(MIN_PLANNED, Math.floor(windowLimit * WINDOW_SHARE)));
}

/**
 * Where a task's polls go, in ms after the message, for a Claw whose times have median `medianMs`
 * and spread `sigma` (of their logarithm), having seen `n` replies: evenly on the log scale over
 * the band where the median may lie (levels 0.5 ± `bandHalfWidth(n)`), as many as narrow an
 * interval there to the tolerance and no more than `budget`, all moved by `jitter` (0 to 1) of one
 * gap so that across tasks the points cover the band (Turnbull's estimate then resolves it) rather
 * than cut it at the same places.
 */
export function planOffsets(
  medianMs: number,
  sigma: number,
  n: number,
  tolerance: number,
  budget: number,
  jitter: number,
  most = MAX_PLANNED,
): number[] {
  const z = zQuantile(0.5 + bandHalfWidth(n));
  const reach = sigma * z;
  const needed = 1 + Math.ceil((2 * reach) / Math.log(1 + Math.max(tolerance, 1e-3)));
  // The budget buys its gaps over the band once the median is known; while the band is wider, as
  // many more points as keep those gaps, and before KNOWN_AFTER replies half as many again (the
  // first replies place the plan for all that follow, and a check's median may rest on them alone).
  const own = n < KNOWN_AFTER ? Math.round(budget * EARLY_BUDGET) : budget;
  const spaced = 1 + Math.ceil(((own - 1) * z) / zQuantile(0.5 + MIN_BAND) - 1e-9);
  const k = Math.max(MIN_PLANNED, Math.min(spaced, needed, MAX_PLANNED, most));
  const gap = (2 * reach) / (k - 1);
  const first = -reach + (jitter - 0.5) * gap;
  const offsets = Array.from({ length: k }, (_, i) => Math.round(medianMs * Math.exp(first + i * gap)));
  return [...new Set(offsets.filter((ms) => ms > 0))];
}

/** Half the band of levels where the median may lie after `n` replies: about 1/√n, within bounds. */
export function bandHalfWidth(n: number): number {
  return Math.min(MAX_BAND, Math.max(MIN_BAND, 1 / Math.sqrt(Math.max(n, 1))));
}

/**
 * When a task followed by `plan` (ms after the message) is polled next, having run `elapsedMs`:
 * the plan's next point (the plan spends its budget where it chose), then, past the plan, TAIL_SHARE
 * of the time run later; never more than `pollIntervalMs` later.
 */
export function nextPlannedPoll(plan: readonly number[], elapsedMs: number, pollIntervalMs: number): number {
  const planned = plan.find((ms) => ms > elapsedMs + 1);
  if (planned !== undefined) return Math.min(planned, elapsedMs + pollIntervalMs);
  return elapsedMs + Math.min(pollIntervalMs, Math.max(1, elapsedMs * TAIL_SHARE));
}

/** How many polls `nextPlannedPoll` makes until one goes out at `horizonMs` or later. */
export function pollsToReach(plan: readonly number[], horizonMs: number, pollIntervalMs: number): number {
  let polls = 0;
  for (let t = 0; polls < MAX_COUNTED_POLLS && (polls === 0 || t < horizonMs); polls++) {
    t = nextPlannedPoll(plan, t, pollIntervalMs);
  }
  return polls;
}

/**
 * Turnbull's estimate of the distribution behind interval-censored times: the masses on the
 * distinct endpoints (sorted), found by self-consistency. Exact times put their mass on one point.
 */
export function turnbull(intervals: readonly ReplyInterval[]): { at: number[]; mass: number[] } {
  const at = [...new Set(intervals.flatMap((i) => [i.lowMs, i.highMs]))].sort((a, b) => a - b);
  if (intervals.length === 0) return { at, mass: [] };
  const index = new Map(at.map((t, j) => [t, j]));
  // Each interval covers the support points from its low end (exclusive, unless exact) to its high end.
  const spans = intervals.map((i) => {
    const hi = index.get(i.highMs)!;
    const lo = i.lowMs === i.highMs ? hi : index.get(i.lowMs)! + 1;
    return [Math.min(lo, hi), hi] as const;
  });
  let mass = at.map(() => 1 / at.length);
  for (let step = 0; step < ITERATIONS; step++) {
    const next = at.map(() => 0);
    for (const [lo, hi] of spans) {
      let total = 0;
      for (let j = lo; j <= hi; j++) total += mass[j];
      if (total <= 0) {
        for (let j = lo; j <= hi; j++) next[j] += 1 / (hi - lo + 1);
        continue;
      }
      for (let j = lo; j <= hi; j++) next[j] += mass[j] / total;
    }
    mass = next.map((m) => m / intervals.length);
  }
  return { at, mass };
}

/**
 * The `level` quantile of the estimate, interpolated between support points (the mass of an
 * interval lies somewhere inside it, not at its end).
 */
export function quantileOf(estimate: { at: number[]; mass: number[] }, level: number): number {
  const { at, mass } = estimate;
  if (at.length === 0) return NaN;
  let cumulative = 0;
  for (let j = 0; j < at.length; j++) {
    const before = cumulative;
    cumulative += mass[j];
    if (cumulative >= level && mass[j] > 0) {
      if (j === 0) return at[0];
      const share = (level - before) / mass[j];
      return at[j - 1] + share * (at[j] - at[j - 1]);
    }
  }
  return at[at.length - 1];
}

/** The estimate's distribution function at `t`, interpolated as `quantileOf` is. */
export function cdfAt(estimate: { at: number[]; mass: number[] }, t: number): number {
  const { at, mass } = estimate;
  let cumulative = 0;
  for (let j = 0; j < at.length; j++) {
    if (t >= at[j]) {
      cumulative += mass[j];
      continue;
    }
    if (j > 0 && at[j] > at[j - 1]) cumulative += (mass[j] * (t - at[j - 1])) / (at[j] - at[j - 1]);
    break;
  }
  return Math.min(1, cumulative);
}

/** The median reply time of intervals (Turnbull's estimate, interpolated); NaN with none. */
export function intervalMedian(intervals: readonly ReplyInterval[]): number {
  return quantileOf(turnbull(intervals), 0.5);
}

/** One reply's time as a single figure, knowing nothing else: the middle of its interval. */
export function pointOf(interval: ReplyInterval): number {
  return Math.round((interval.lowMs + interval.highMs) / 2);
}

/** One Claw's reply times, shared by its conversation's turns. */
export class ReplyTimes {
  private readonly seen: ReplyInterval[] = [];
  private estimate?: { at: number[]; mass: number[] };
  /** Whether the Claw has replied through a task: its polls then need room in the team's window. */
  tasks = false;

  add(interval: ReplyInterval, task: boolean): void {
    this.seen.push(interval);
    if (this.seen.length > MAX_KEPT) this.seen.shift();
    if (task) this.tasks = true;
    this.estimate = undefined;
  }

  get count(): number {
    return this.seen.length;
  }

  /**
   * When the next task's polls go, in ms after the message: where `planOffsets` puts them for the
   * replies seen, the window's budget and the tolerance (`jitter`, 0 to 1, moves them by a share
   * of a gap). Undefined while too few replies are known.
   */
  plan(jitter: number, budget: PlanBudget = {}): number[] | undefined {
    if (this.seen.length < MIN_REPLIES_FOR_PLAN) return undefined;
    this.estimate ??= turnbull(this.seen);
    return planOffsets(
      quantileOf(this.estimate, 0.5),
      this.spread(),
      this.seen.length,
      budget.tolerance ?? DEFAULT_LATENCY_TOLERANCE,
      plannedPollBudget(budget.windowLimit),
      jitter,
      budget.most,
    );
  }

  /**
   * The spread of the log reply times, from the quartiles of the estimate (a log-normal's σ): the
   * quartiles rest on half the replies each, so the plan moves smoothly as replies come in.
   */
  private spread(): number {
    this.estimate ??= turnbull(this.seen);
    const [q1, q3] = [quantileOf(this.estimate, 0.25), quantileOf(this.estimate, 0.75)];
    const seen = q1 > 0 && q3 > q1 ? Math.log(q3 / q1) / QUARTILES_Z : DEFAULT_SIGMA;
    // Few replies, coarsely known, can put most of the estimate's mass on one point and its quartiles
    // together: the spread is drawn toward a typical one by PRIOR_REPLIES replies' worth, so that an
    // early plan never narrows onto a median it has not found.
    const n = this.seen.length;
    const sigma = Math.sqrt((n * seen ** 2 + PRIOR_REPLIES * DEFAULT_SIGMA ** 2) / (n + PRIOR_REPLIES));
    return Math.min(MAX_SIGMA, Math.max(MIN_SIGMA, sigma));
  }

  /**
   * How many polls following a task by `plan` costs to reach a slow reply (FOLLOW_MARGIN times the
   * FOLLOW_LEVEL quantile of the times seen): the plan's own and those the tail share adds between
   * and after them. Room for fewer cut slow tasks at the window's reset, leaving them nearly unbounded.
   */
  pollsToFollow(plan: readonly number[], pollIntervalMs: number): number {
    this.estimate ??= turnbull(this.seen);
    return pollsToReach(plan, FOLLOW_MARGIN * quantileOf(this.estimate, FOLLOW_LEVEL), pollIntervalMs);
  }

  /** The typical width of the intervals seen (their median), in ms; 0 when all are exact. */
  typicalWidth(): number {
    const widths = this.seen.map((i) => i.highMs - i.lowMs).sort((a, b) => a - b);
    return widths.length ? widths[Math.floor(widths.length / 2)] : 0;
  }

  /**
   * One reply's time as a single figure: the median of the Claw's reply times that fall inside its
   * interval (the middle of the interval when none of the estimate's mass does). A reply seen done
   * at the first poll is then not taken for half that poll's wait.
   */
  pointWithin(interval: ReplyInterval): number {
    if (interval.lowMs >= interval.highMs) return interval.highMs;
    this.estimate ??= turnbull(this.seen);
    const [low, high] = [cdfAt(this.estimate, interval.lowMs), cdfAt(this.estimate, interval.highMs)];
    if (!(high > low)) return pointOf(interval);
    const t = quantileOf(this.estimate, (low + high) / 2);
    return Math.round(Math.min(interval.highMs, Math.max(interval.lowMs, t)));
  }

  /** The median reply time so far. */
  median(): number {
    this.estimate ??= turnbull(this.seen);
    return quantileOf(this.estimate, 0.5);
  }
}
