// A task Claw's reply time is the Claw's, not our polling's, through dist/index.js at 60 requests a
// minute (the simulator's minute and its tasks scaled 4×: the action's clock is real, so the
// figures are read in the simulator's time, × 4). Its reply times are log-normal (median 800 ms):
// the median the checks report lies within 15% of the simulator's own draws, and an identical task
// Claw compared with itself is never `regressed` on latency because of how it was polled.
import { describe, expect, it } from 'vitest';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const SPEED = 4;
const start = simulatorPerTest({ speed: SPEED });
const sixtyAMinute = { limit: 60, windowMs: 60_000 / SPEED, resetForm: 'epoch-ms' as const };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

describe('a task Claw measured at 60 requests a minute', () => {
  it("reports the median reply time within 15% of the simulator's truth", async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], latencyMs: 800, latencySigma: 0.5, seed: 11 }, [], 'task'));
    // One question asked 30 times: one check, whose reported latency is the median of its replies.
    // A minute for each attempt: a message may wait for the window's reset (15 s) before it goes.
    const dir = workspaceWith({ 'checks.yml': questionsFile(1, 30).replace('timeout: 10s', 'timeout: 1m') });
    const run = await runAction(
      inputsFor(sim, { command: 'check', checks: 'checks.yml', timeout: '10m', 'poll-interval': '5s' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 300_000 },
    );
    const report = JSON.parse(run.outputs['checks-report']) as { latencyMs: number; passes: number }[];
    expect(report[0].passes).toBe(30);
    const truth = median([...sim.tasks.values()].map((t) => t.ms));
    const reported = report[0].latencyMs * SPEED;
    expect(Math.abs(reported / truth - 1), `reported ${reported} ms, truth ${truth} ms`).toBeLessThan(0.15);
  }, 300_000);

  it('an identical task Claw compared with itself is never regressed on latency', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], latencyMs: 800, latencySigma: 0.5, seed: 12 }, [{}], 'task'));
    const dir = workspaceWith({ 'checks.yml': questionsFile(4, 5) });
    const run = await runAction(
      inputsFor(sim, { checks: 'checks.yml', baseline: 'before', timeout: '10m', 'poll-interval': '5s' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 300_000 },
    );
    const metrics = JSON.parse(run.outputs.comparison) as { metric: string; verdict: string }[];
    const latency = metrics.filter((m) => m.metric.startsWith('latency'));
    expect(latency.length).toBeGreaterThan(0);
    for (const m of latency) expect(m.verdict).not.toBe('regressed');
    expect(run.outputs.behaviour).not.toBe('regressed');
  }, 300_000);
});
