// Turnbull's estimate for interval-censored reply times: exact times give the plain median; times
// known only between two polls give a median inside the right interval; and a task's polls go to
// the quantiles of the times seen, once enough are known.
import { describe, expect, it } from 'vitest';
import { seededUniform } from '../compare/distributions.js';
import {
  MIN_REPLIES_FOR_PLAN,
  ReplyTimes,
  TAIL_SHARE,
  intervalMedian,
  nextPlannedPoll,
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

describe('ReplyTimes.plan', () => {
  it('waits for enough replies, then polls at the quantiles around the median, in order', () => {
    const times = new ReplyTimes();
    for (let i = 0; i < MIN_REPLIES_FOR_PLAN - 1; i++) times.add({ lowMs: 700 + 50 * i, highMs: 700 + 50 * i }, true);
    expect(times.plan(0.5)).toBeUndefined();
    for (let i = 0; i < 20; i++) times.add({ lowMs: 400 + 50 * i, highMs: 400 + 50 * i }, true);
    const plan = times.plan(0.5)!;
    expect(plan.length).toBeGreaterThanOrEqual(4);
    expect([...plan].sort((a, b) => a - b)).toEqual(plan);
    expect(plan[0]).toBeGreaterThanOrEqual(400);
    expect(plan.at(-1)!).toBeLessThanOrEqual(1400);
    // Its middle poll is near the median of the times seen.
    expect(Math.abs(plan[2] - times.median()) / times.median()).toBeLessThan(0.15);
    expect(times.tasks).toBe(true);
  });

  it("counts every poll a task's schedule makes: the plan's, those the tail share adds, and past it", () => {
    const plan = [400, 600, 750, 850, 1000, 1500];
    // Followed by hand: each poll at the plan's next point, unless that is more than a fifth of the
    // time run later.
    const polls: number[] = [];
    for (let t = 0; polls.length === 0 || t < 4000;) polls.push((t = nextPlannedPoll(plan, t, 5000)));
    for (let i = 1; i < polls.length; i++) {
      expect(polls[i]).toBeGreaterThan(polls[i - 1]);
      expect(polls[i] - polls[i - 1]).toBeLessThanOrEqual(Math.max(1, polls[i - 1] * TAIL_SHARE) + 1e-9);
    }
    for (const ms of plan) expect(polls).toContain(ms);
    expect(pollsToReach(plan, 4000, 5000)).toBe(polls.length);
    // More than the plan's own: room for only those cut slow tasks at the window's reset.
    expect(polls.length).toBeGreaterThan(plan.length + 6);
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
