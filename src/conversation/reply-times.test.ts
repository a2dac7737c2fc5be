// Turnbull's estimate for interval-censored reply times: exact times give the plain median; times
// known only between two polls give a median inside the right interval; and a task's polls go to
// the band where the median may lie, a share of the team's window at most, once enough are known.
import { describe, expect, it } from 'vitest';
import { seededUniform, zQuantile } from '../compare/distributions.js';
import {
  EARLY_BUDGET,
  KNOWN_AFTER,
  MAX_BAND,
  MAX_PLANNED,
  MIN_BAND,
  MIN_PLANNED,
  MIN_REPLIES_FOR_PLAN,
  ReplyTimes,
  TAIL_SHARE,
  bandHalfWidth,
  intervalMedian,
  nextPlannedPoll,
  planOffsets,
  plannedPollBudget,
  pointOf,
  pollsToReach,
  turnbull,
} from './reply-times.js';

describe('turnbull', () => {
  it('puts the mass of exact times on them, evenly', () => {
    const { at, mass } = turnbull([100, 200, 300, 400].map((ms) => ({ lowMs: ms, highMs: ms })));
    expect(at).toEqual([100, 200, 300, 400]);
    mass.forEach((m) => expect(m).toBeCloseTo(0.25, 9));
  });

  it('the median of interval-censored log-normal times lies within 10% of the truth, polled at fixed points', () => {
    const uniform = seededUniform(7);
    const polls = [300, 500, 650, 800, 950, 1150, 1500, 2200, 4000, 9000];
    const truth: number[] = [];
    const intervals = Array.from({ length: 400 }, () => {
      // Box–Muller: log-normal, median 800 ms, sigma 0.5.
      const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
      const t = 800 * Math.exp(0.5 * z);
      truth.push(t);
      const high = polls.find((p) => p >= t) ?? 20_000;
      const low = [...polls].reverse().find((p) => p < t) ?? 0;
      return { lowMs: low, highMs: high };
    });
    const sorted = [...truth].sort((a, b) => a - b);
    const median = (sorted[199] + sorted[200]) / 2;
    expect(intervalMedian(intervals) / median).toBeGreaterThan(0.9);
    expect(intervalMedian(intervals) / median).toBeLessThan(1.1);
    // The time the poll saw it done, taken as the reply time, is far off: what this replaces.
    const seen = intervals.map((i) => i.highMs).sort((a, b) => a - b);
    expect(seen[200] / median).toBeGreaterThan(1.1);
  });
});

describe('pointOf', () => {
  it('is the middle of an interval, the time itself when exact', () => {
    expect(pointOf({ lowMs: 400, highMs: 900 })).toBe(650);
    expect(pointOf({ lowMs: 700, highMs: 700 })).toBe(700);
    expect(pointOf({ lowMs: 0, highMs: 300 })).toBe(150);
  });

  it("inside an interval, the Claw's times say where: a reply seen at the first poll is not half that wait", () => {
    const times = new ReplyTimes();
    for (let i = 0; i < 40; i++) times.add({ lowMs: 500 + 10 * i, highMs: 500 + 10 * i }, true);
    // Seen done at the first poll, 1.2 s after the message: the Claw's times put it at about 700 ms.
    const point = times.pointWithin({ lowMs: 2, highMs: 1200 });
    expect(point).toBeGreaterThan(650);
    expect(point).toBeLessThan(750);
  });
});

describe('the poll plan', () => {
  it("a task's planned polls are a share of the team's window: 4 at 60 a minute, more at 300, within bounds", () => {
    expect(plannedPollBudget(60)).toBe(4);
    expect(plannedPollBudget(undefined)).toBe(4);
    expect(plannedPollBudget(300)).toBe(MAX_PLANNED);
    expect(plannedPollBudget(10)).toBe(MIN_PLANNED);
  });

  it('spreads the budget evenly on the log scale over the band where the median may lie, the median in the middle', () => {
    const plan = planOffsets(800, 0.5, KNOWN_AFTER, 0.05, 4, 0.5);
    expect(plan).toHaveLength(4);
    const ratios = plan.slice(1).map((ms, i) => ms / plan[i]);
    for (const r of ratios) expect(r).toBeCloseTo(ratios[0], 2);
    // Symmetric about the median: the band's ends at 0.5 ± its half-width of a log-normal with σ 0.5.
    expect(Math.sqrt(plan[0] * plan[3])).toBeCloseTo(800, -1);
    const reach = 0.5 * zQuantile(0.5 + bandHalfWidth(KNOWN_AFTER));
    expect(plan[0]).toBeCloseTo(800 * Math.exp(-reach), -1);
    expect(plan[3]).toBeCloseTo(800 * Math.exp(reach), -1);
  });

  it('jitter moves every point by up to half a gap each way, so that across tasks they cover the band', () => {
    const [low, mid, high] = [0, 0.5, 1].map((j) => planOffsets(800, 0.5, KNOWN_AFTER, 0.05, 4, j));
    const gap = mid[1] / mid[0];
    expect(mid[0] / low[0]).toBeCloseTo(Math.sqrt(gap), 2);
    expect(high[0] / mid[0]).toBeCloseTo(Math.sqrt(gap), 2);
    // Jitter 1 puts the first point where jitter 0 put the second: no gap is left uncovered.
    expect(high[0]).toBeCloseTo(low[1], -1);
  });

  it('no closer together than the tolerance: a loose tolerance or a narrow band asks fewer polls than the budget', () => {
    expect(planOffsets(800, 0.5, 20, 0.05, 12, 0.5)).toHaveLength(12);
    // A tolerance of 50%: two points a band of about ±30% are enough.
    expect(planOffsets(800, 0.5, 20, 0.5, 12, 0.5).length).toBeLessThanOrEqual(3);
    // A Claw whose times barely vary: the band is narrow, a few points narrow it to 5%.
    expect(planOffsets(800, 0.05, 20, 0.05, 12, 0.5).length).toBeLessThanOrEqual(3);
  });

  it('fewer polls once the distribution is known: the band narrows with the replies seen, to a floor', () => {
    expect(bandHalfWidth(3)).toBe(MAX_BAND);
    expect(bandHalfWidth(9)).toBeCloseTo(1 / 3, 9);
    expect(bandHalfWidth(400)).toBe(MIN_BAND);
    // A tolerance of 10%: twelve points early on, nine once 400 replies have pinned the median.
    const [early, known] = [planOffsets(800, 0.5, 5, 0.1, 12, 0.5), planOffsets(800, 0.5, 400, 0.1, 12, 0.5)];
    expect(early).toHaveLength(12);
    expect(known).toHaveLength(9);
    expect(known.length).toBeLessThan(early.length);
    expect(known[0]).toBeGreaterThan(early[0]);
    expect(known.at(-1)!).toBeLessThan(early.at(-1)!);
  });

  it('while the median is not yet known the band is wider, and more points keep the gaps (half as many again) the budget buys once it is', () => {
    const [early, known] = [planOffsets(800, 0.5, 3, 0.05, 4, 0.5), planOffsets(800, 0.5, 400, 0.05, 4, 0.5)];
    expect(known).toHaveLength(4);
    // Six points over a band 1.9 times as wide (z at 0.9 against z at 0.75): eleven.
    expect(early).toHaveLength(11);
    expect(planOffsets(800, 0.5, KNOWN_AFTER - 1, 0.05, 4, 0.5)).toHaveLength(1 + Math.round(4 * EARLY_BUDGET) - 1);
    const gap = (plan: number[]) => Math.log(plan[1] / plan[0]);
    expect(gap(early)).toBeLessThanOrEqual(gap(known) + 1e-3);
  });

  it('a first few replies known only coarsely never narrow the plan onto one point: their spread is drawn toward a typical one', () => {
    const times = new ReplyTimes();
    // Three replies each seen done at a poll about a second after the message, none seen running,
    // then two seen running past a second: the estimate's quartiles are within 30% of each other.
    for (const ms of [1154, 1204, 1261]) times.add({ lowMs: 0, highMs: ms }, true);
    times.add({ lowMs: 1251, highMs: 1772 }, true);
    times.add({ lowMs: 1071, highMs: 1499 }, true);
    const plan = times.plan(0.5)!;
    // The band spans at least a factor of two, where the estimate's own quartiles would allow a few percent.
    expect(plan.at(-1)! / plan[0]).toBeGreaterThan(2);
  });

  it('waits for enough replies, then plans from the times seen, in order, within the budget', () => {
    const times = new ReplyTimes();
    for (let i = 0; i < MIN_REPLIES_FOR_PLAN - 1; i++) times.add({ lowMs: 700 + 50 * i, highMs: 700 + 50 * i }, true);
    expect(times.plan(0.5)).toBeUndefined();
    for (let i = 0; i < KNOWN_AFTER; i++) times.add({ lowMs: 400 + 25 * i, highMs: 400 + 25 * i }, true);
    const plan = times.plan(0.5)!;
    expect(plan).toHaveLength(4);
    expect([...plan].sort((a, b) => a - b)).toEqual(plan);
    expect(plan[0]).toBeGreaterThanOrEqual(400);
    expect(plan.at(-1)!).toBeLessThanOrEqual(1400);
    expect(Math.abs(Math.sqrt(plan[0] * plan[3]) - times.median()) / times.median()).toBeLessThan(0.05);
    expect(times.plan(0.5, { windowLimit: 300 })!.length).toBeGreaterThan(plan.length);
    expect(times.tasks).toBe(true);
  });

  it("counts every poll a task's schedule makes: the plan's own, then each half the time run later", () => {
    const plan = [600, 700, 800, 900];
    const polls: number[] = [];
    for (let t = 0; polls.length === 0 || t < 4000;) polls.push((t = nextPlannedPoll(plan, t, 5000)));
    expect(polls.slice(0, 4)).toEqual(plan);
    for (let i = 4; i < polls.length; i++) expect(polls[i]).toBeCloseTo(polls[i - 1] * (1 + TAIL_SHARE), 6);
    // 900 → 1350 → 2025 → 3037.5 → 4556.25: a slow reply costs few polls past the plan.
    expect(polls).toHaveLength(8);
    expect(pollsToReach(plan, 4000, 5000)).toBe(polls.length);
    // The poll interval caps the waits, so a long horizon costs more polls, never unbounded work.
    expect(pollsToReach(plan, 60_000, 1000)).toBeGreaterThan(pollsToReach(plan, 60_000, 5000));
    expect(pollsToReach(plan, 1e12, 1)).toBe(1000);
  });

  it('gives room to follow a reply twice as slow as the slowest seen', () => {
    const times = new ReplyTimes();
    for (let i = 0; i < 20; i++) times.add({ lowMs: 400 + 50 * i, highMs: 400 + 50 * i }, true);
    const plan = times.plan(0.5)!;
    const polls = times.pollsToFollow(plan, 5000);
    expect(polls).toBeGreaterThanOrEqual(pollsToReach(plan, 2 * 1300, 5000));
    expect(polls).toBeLessThanOrEqual(pollsToReach(plan, 2 * 1350, 5000));
    expect(polls).toBeGreaterThan(pollsToReach(plan, 1350, 5000));
  });
});
