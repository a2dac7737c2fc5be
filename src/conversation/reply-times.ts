// A Claw's reply times so far, as the intervals its task polls left (a task's reply came after the
// last poll that saw it running and before the first that saw it done; a synchronous reply is
// exact), and where the next task's polls narrow that interval most: at the quantiles of the times
// seen, around the median, so that the figures compared (the median above all) are the Claw's own
// and not our polling's. The distribution is Turnbull's estimate for interval-censored times (the
// nonparametric maximum likelihood, by its self-consistency iteration), bounded in work by a cap
// on the intervals kept.

/** A reply's time: between `lowMs` and `highMs` after the message was sent (equal when exact). */
export interface ReplyInterval {
  lowMs: number;
  highMs: number;
}

/** Below this many replies the spread is unknown: the task is followed on the fixed schedule. */
export const MIN_REPLIES_FOR_PLAN = 3;
/** The most intervals one Claw keeps (the latest): bounds the estimate's work. */
const MAX_KEPT = 400;
/** The quantiles a task's polls go to: dense around the median, which is what is compared. */
export const PLAN_LEVELS = [0.1, 0.3, 0.45, 0.55, 0.7, 0.9];
/** No planned poll waits longer than this share of the time the task has run (and past the plan, each does). */
export const TAIL_SHARE = 1 / 5;
const ITERATIONS = 200;
/**
 * A task's polls are given room in the window to follow a reply this many times slower than the
 * FOLLOW_LEVEL quantile of those seen: few replies seen say little of the tail, and each doubling
 * costs only a few polls (their waits grow by the tail share).
 */
export const FOLLOW_LEVEL = 0.98;
const FOLLOW_MARGIN = 2;
/** The most polls `pollsToReach` counts: bounds its work whatever the plan and horizon. */
const MAX_COUNTED_POLLS = 1000;

/**
 * When a task followed by `plan` (ms after the message) is polled next, having run `elapsedMs`:
 * the plan's next point, unless that is more than TAIL_SHARE of the time run later (then that
 * share, as past the plan), never more than `pollIntervalMs` later.
 */
export function nextPlannedPoll(plan: readonly number[], elapsedMs: number, pollIntervalMs: number): number {
  const planned = plan.find((ms) => ms > elapsedMs + 1);
  const step = Math.min(pollIntervalMs, Math.max(1, elapsedMs * TAIL_SHARE));
  return planned !== undefined && (elapsedMs === 0 || planned <= elapsedMs + step) ? planned : elapsedMs + step;
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
   * When the next task's polls go, in ms after the message: at the planned quantiles of the times
   * seen, each moved by one shared random share of a level (`jitter`, 0 to 1) so that tasks are
   * not all cut at the same points. Undefined while too few replies are known.
   */
  plan(jitter: number): number[] | undefined {
    if (this.seen.length < MIN_REPLIES_FOR_PLAN) return undefined;
    this.estimate ??= turnbull(this.seen);
    const shift = (jitter - 0.5) * 0.1;
    const offsets = PLAN_LEVELS.map((level) => Math.round(quantileOf(this.estimate!, level + shift)));
    return [...new Set(offsets.filter((ms) => ms > 0))].sort((a, b) => a - b);
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
