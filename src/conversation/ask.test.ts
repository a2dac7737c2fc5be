// A task Claw's latency is its own to within a small bound, whatever the poll interval: the task is
// followed on a schedule that starts short and backs off to the interval, through the team's pacer;
// the simulator and the client share one fake clock, so no figure depends on the machine.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, setup } from '../../test/support/setup.ts';
import { statusClassifier } from '../shared/status.js';
import { behavingClaw } from '../../test/sim/behaviour.ts';
import { seededUniform } from '../compare/distributions.js';
import { FIRST_TASK_POLL_MS, askClaw, taskPollDelay } from './ask.js';
import {
  KNOWN_AFTER,
  MAX_PLANNED,
  MIN_REPLIES_FOR_PLAN,
  ReplyTimes,
  TAIL_SHARE,
  intervalMedian,
  plannedPollBudget,
} from './reply-times.js';

/** The polls past a plan ending no sooner than 400 ms that reach a reply of `ms`, at most. */
const pollsPast = (ms: number) => Math.max(1, Math.ceil(Math.log(ms / 400) / Math.log(1 + TAIL_SHARE)) + 1);

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const taskPolls = (harness: Harness) => harness.sim.requests.filter((r) => r.path.startsWith('/v1/tasks/'));

async function ask(harness: Harness, pollIntervalMs: number) {
  return askClaw(harness.deps, {
    clawId: 'c1',
    message: 'Which day is it?',
    deadline: harness.clock.now() + 60_000,
    pollIntervalMs,
    classify: statusClassifier(),
  });
}

describe('taskPollDelay', () => {
  it('starts short, grows with the time the task has run, and never passes the poll interval', () => {
    expect(taskPollDelay(0, 5000)).toBe(FIRST_TASK_POLL_MS);
    expect(taskPollDelay(800, 5000)).toBe(FIRST_TASK_POLL_MS);
    expect(taskPollDelay(4000, 5000)).toBe(500);
    expect(taskPollDelay(120_000, 5000)).toBe(5000);
    // A poll interval shorter than the first poll is the user's to ask for.
    expect(taskPollDelay(0, 100)).toBe(100);
  });
});

describe('askClaw following a task', () => {
  it('a 1.5 s task at the default 5 s poll interval reports 1.5 s within a small bound, at about ten polls', async () => {
    h = await setup({});
    h.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 1500, reply: 'Thursday' } });
    const answer = await ask(h, 5000);
    if ('problem' in answer) throw new Error(answer.problem);
    expect(answer.reply).toBe('Thursday');
    expect(answer.latencyMs).toBeGreaterThanOrEqual(1500);
    expect(answer.latencyMs).toBeLessThanOrEqual(1750);
    // The bound: the poll before the one that saw the reply went out no later than 1.5 s.
    expect(answer.latency.ms).toBe(answer.latencyMs);
    expect(answer.latency.lowMs).toBeLessThanOrEqual(1500);
    expect(answer.latency.ms - answer.latency.lowMs).toBeLessThanOrEqual(250);
    expect(taskPolls(h).length).toBeLessThanOrEqual(12);
  });

  it('a long task backs off to the poll interval: a minute costs tens of polls, not hundreds', async () => {
    h = await setup({});
    h.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 50_000, reply: 'Thursday' } });
    const answer = await ask(h, 5000);
    if ('problem' in answer) throw new Error(answer.problem);
    expect(answer.latencyMs).toBeGreaterThanOrEqual(50_000);
    expect(answer.latency.lowMs).toBeLessThanOrEqual(50_000);
    expect(answer.latency.ms - answer.latency.lowMs).toBeLessThanOrEqual(5000);
    expect(taskPolls(h).length).toBeLessThanOrEqual(45);
  });

  it("the team's budget paces the polls: a low window stretches them, and the bound says how far", async () => {
    // 60 a minute, most of it spent by others: the pacer spreads what is left.
    h = await setup({ rateLimit: { limit: 60, windowMs: 60_000, resetForm: 'epoch-ms' } });
    h.sim.rateLimit.spend(h.clock.now(), 40);
    h.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 1500, reply: 'Thursday' } });
    const answer = await ask(h, 5000);
    if ('problem' in answer) throw new Error(answer.problem);
    // Fewer polls than the free schedule's ten, each further apart; the bound still holds 1.5 s.
    expect(taskPolls(h).length).toBeLessThan(5);
    expect(answer.latency.lowMs).toBeLessThanOrEqual(1500);
    expect(answer.latency.ms).toBeGreaterThanOrEqual(1500);
    expect(answer.latency.ms - answer.latency.lowMs).toBeGreaterThan(250);
  });

  it('a reply that comes with the answer to the message has no bound', async () => {
    h = await setup({});
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'Thursday' } });
    const answer = await ask(h, 5000);
    if ('problem' in answer) throw new Error(answer.problem);
    expect(answer.latency.lowMs).toBe(answer.latency.ms);
    expect(taskPolls(h)).toHaveLength(0);
  });
});

describe('askClaw with the Claw reply times so far (the gate)', () => {
  it('at 60 requests a minute, a log-normal task Claw is measured to within 15% of its true median', async () => {
    h = await setup({ rateLimit: { limit: 60, windowMs: 60_000, resetForm: 'epoch-ms' } });
    h.sim.addClaw('c1', behavingClaw({ passRates: [1], latencyMs: 800, latencySigma: 0.5 }, [], 'task'));
    const replyTimes = new ReplyTimes();
    const uniform = seededUniform(3);
    const intervals: { lowMs: number; highMs: number }[] = [];
    for (let q = 1; q <= 60; q++) {
      const answer = await askClaw(h.deps, {
        clawId: 'c1',
        message: `q${q}`,
        deadline: h.clock.now() + 120_000,
        pollIntervalMs: 5000,
        classify: statusClassifier(),
        replyTimes,
        random: uniform,
      });
      if ('problem' in answer) throw new Error(answer.problem);
      intervals.push({ lowMs: answer.latency.lowMs, highMs: answer.latency.ms });
    }
    const truth = [...h.sim.tasks.values()].map((t) => t.ms).sort((a, b) => a - b);
    const trueMedian = (truth[29] + truth[30]) / 2;
    // Every interval holds its task's true time (the simulator answers at once on the fake clock).
    [...h.sim.tasks.values()].forEach((t, i) => {
      expect(intervals[i].lowMs).toBeLessThanOrEqual(t.ms);
      expect(intervals[i].highMs).toBeGreaterThanOrEqual(t.ms);
    });
    expect(
      Math.abs(intervalMedian(intervals) / trueMedian - 1),
      `${intervalMedian(intervals)} vs ${trueMedian}: ${JSON.stringify(intervals)}`,
    ).toBeLessThan(0.15);
    // No task's polls were cut by the window's reset: the waits came before the messages.
    expect(h.log.text('debug')).toMatch(/waiting \d+ms for the reset/);
    expect(Math.max(...intervals.map((i) => i.highMs - i.lowMs))).toBeLessThan(5000);
    // What it costs, from the simulator's log: a planned task's polls are its plan's (4 at 60 a
    // minute once 30 replies are known, more before) and those past it, each half the time run
    // later; under four and a half a task on average, under four once the distribution is known.
    const planned = [...h.sim.tasks.values()].slice(MIN_REPLIES_FOR_PLAN);
    const polls = planned.map((t) => taskPolls(h!).filter((r) => r.path.endsWith(`/tasks/${t.id}`)).length);
    planned.forEach((t, i) => {
      expect(polls[i], `${t.ms} ms`).toBeLessThanOrEqual(MAX_PLANNED + pollsPast(t.ms));
    });
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(polls)).toBeLessThan(4.5);
    const known = polls.slice(KNOWN_AFTER);
    expect(mean(known)).toBeLessThan(4);
    known.forEach((n, i) => {
      const t = planned[KNOWN_AFTER + i];
      expect(n, `${t.ms} ms`).toBeLessThanOrEqual(plannedPollBudget(60) + pollsPast(t.ms));
    });
  });

  it("fits a plan to what is left of the team's window: fewer points now, rather than a wait with requests unspent", async () => {
    const known = () => {
      const times = new ReplyTimes();
      for (let i = 0; i < 2 * KNOWN_AFTER; i++) times.add({ lowMs: 500 + 10 * i, highMs: 500 + 10 * i }, true);
      return times;
    };
    const polled = async (spent: number) => {
      h = await setup({ rateLimit: { limit: 60, windowMs: 60_000, resetForm: 'epoch-ms' } });
      h.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 1000, reply: 'Thursday' } });
      // Others' requests, then one of ours: the pacer reads what is left from its headers.
      h.sim.rateLimit.spend(h.clock.now(), spent);
      await h.deps.client.listClaws({});
      const began = h.clock.now();
      const answer = await askClaw(h.deps, {
        clawId: 'c1',
        message: 'Which day is it?',
        deadline: h.clock.now() + 120_000,
        pollIntervalMs: 5000,
        classify: statusClassifier(),
        replyTimes: known(),
        random: () => 0.5,
      });
      if ('problem' in answer) throw new Error(answer.problem);
      const polls = taskPolls(h).length;
      const waited = /for the reset/.test(h.log.text('debug'));
      const tookMs = h.clock.now() - began;
      await h.sim.stop();
      h = undefined;
      return { polls, waited, tookMs };
    };
    const fresh = await polled(0);
    // 60 a minute, 6 kept back: 48 spent and one of ours leave 5 for the message and its polls,
    // where the full plan (four points) wants room for 7: two points, and the tail polls.
    const tight = await polled(48);
    expect(fresh.waited).toBe(false);
    expect(tight.waited).toBe(false);
    expect(tight.polls).toBeLessThan(fresh.polls);
    expect(tight.tookMs).toBeLessThan(10_000);
  });
});
