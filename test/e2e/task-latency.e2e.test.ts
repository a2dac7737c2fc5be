// A task Claw's reply time is the Claw's, not our polling's, through dist/index.js at 60 requests a
// minute (the simulator's minute and its tasks scaled 10×: the action's clock is real, so the
// figures are read in the simulator's time, × 10; a task of 800 ms lasts 80 ms, long beside a
// loaded machine's timer lateness). Its reply times are log-normal (median 800 ms):
// the median the checks report lies within 15% of the simulator's own draws for the same attempts,
// no task's polls wait for the window's reset, each question costs its message and a few polls, and an identical task Claw compared with itself is
// never `regressed` on latency because of how it was polled. Load on the machine only widens the
// intervals the polls leave (each holds the Claw's time whatever the wire's): nothing reads wall time.
import { describe, expect, it } from 'vitest';
import { MIN_REPLIES_FOR_PLAN } from '../../src/conversation/reply-times.ts';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const SPEED = 10;
const start = simulatorPerTest({ speed: SPEED });
const sixtyAMinute = { limit: 60, windowMs: 60_000 / SPEED, resetForm: 'epoch-ms' as const };
/** Longer than any poll's wait (a fifth of a reply's time at most), shorter than the window's minute. */
const RESET_WAIT_SIM_MS = 10_000;
/** Replies before the Claw's polls are planned (MIN_REPLIES_FOR_PLAN). */
const WARM_UP = MIN_REPLIES_FOR_PLAN;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

describe('a task Claw measured at 60 requests a minute', () => {
  it("reports the median reply time within 15% of the simulator's truth", async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], latencyMs: 800, latencySigma: 0.5, seed: 11 }, [], 'task'));
    // The Claw's first replies are polled on the fixed schedule (its first poll 150 ms after the
    // message in real time, 3 s of the simulator's: a bound saying next to nothing here): a warm-up
    // check asks them. Then one question asked 20 times (the seed fixes the draws), polled at the
    // quantiles of the times seen; its reported latency is the median of its replies. A minute for
    // each attempt: a message may wait for the window's reset.
    const checks = questionsFile(2, 20)
      .replace('timeout: 10s', 'timeout: 1m')
      .replace('  - name: q1\n', `  - name: q1\n    repeat: ${WARM_UP}\n`);
    const dir = workspaceWith({ 'checks.yml': checks });
    const run = await runAction(
      inputsFor(sim, { command: 'check', checks: 'checks.yml', timeout: '10m', 'poll-interval': '5s' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 120_000 },
    );
    const report = JSON.parse(run.outputs['checks-report']) as { check: string; latencyMs: number; passes: number }[];
    expect(report.map((e) => [e.check, e.passes])).toEqual([
      ['q1', WARM_UP],
      ['q2', 20],
    ]);
    // The truth over the same attempts: one task each, in order, nothing else asked.
    const all = [...sim.tasks.values()];
    expect(all).toHaveLength(WARM_UP + 20);
    const tasks = all.slice(WARM_UP);
    const truth = median(tasks.map((t) => t.ms));
    const reported = report[1].latencyMs * SPEED;
    expect(Math.abs(reported / truth - 1), `reported ${reported} ms, truth ${truth} ms`).toBeLessThan(0.15);
    // Each task's polls fit in one window: none waited for the reset (which left a bound of a minute).
    for (const task of all) {
      const polls = sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/tasks/${task.id}`));
      const at = [task.createdAt, ...polls.map((r) => r.at)];
      const gaps = at.slice(1).map((t, i) => (t - at[i]) * SPEED);
      expect(Math.max(...gaps), `${task.id}: polls ${gaps.join(', ')} ms apart`).toBeLessThan(RESET_WAIT_SIM_MS);
    }
    // What a question cost, from the simulator's log: a planned task's polls are its plan's (a
    // share of the window: 4 at 60 a minute, up to 7 while the median is not yet known) and a few
    // past it, each half the time run later; about three on average.
    const polls = tasks.map((t) => sim.requests.filter((r) => r.path.endsWith(`/tasks/${t.id}`)).length);
    for (const [i, n] of polls.entries()) expect(n, `${tasks[i].id} of ${tasks[i].ms} ms`).toBeLessThanOrEqual(12);
    expect(polls.reduce((a, b) => a + b, 0) / polls.length).toBeLessThan(5);
    const messages = sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/')).length;
    expect(messages).toBe(WARM_UP + 20);
  }, 120_000);

  it('an identical task Claw compared with itself is never regressed on latency', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], latencyMs: 800, latencySigma: 0.5, seed: 12 }, [{}], 'task'));
    const dir = workspaceWith({ 'checks.yml': questionsFile(4, 5) });
    const run = await runAction(
      inputsFor(sim, { checks: 'checks.yml', baseline: 'before', timeout: '10m', 'poll-interval': '5s' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 120_000 },
    );
    const metrics = JSON.parse(run.outputs.comparison) as { metric: string; verdict: string }[];
    const latency = metrics.filter((m) => m.metric.startsWith('latency'));
    expect(latency.length).toBeGreaterThan(0);
    for (const m of latency) expect(m.verdict).not.toBe('regressed');
    expect(run.outputs.behaviour).not.toBe('regressed');
  }, 120_000);
});
