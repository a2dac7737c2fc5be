// deploy with `baseline: before` through dist/index.js, on the simulator's behaviour mode: the
// checks on the live Claw before the trigger and on the deployment after it, compared. A release
// that passes fewer questions is `regressed` and rolled back; an identical one is `unchanged`, even
// when its checks are flaky enough to fail the absolute gate. The outputs parse as the contract says.
import { describe, expect, it } from 'vitest';
import { behavingClaw, failsFirst, questionsFile } from '../sim/behaviour.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });

interface Entry {
  check: string;
  metric: string;
  baseline: { value: number | null; n: number };
  candidate: { value: number | null; n: number };
  change: number | null;
  low: number | null;
  high: number | null;
  bound: number | null;
  verdict: string;
}

/** The `comparison` output, each entry held to the contract's fields. */
function comparisonOf(text: string): Entry[] {
  const entries = JSON.parse(text) as Entry[];
  expect(Array.isArray(entries)).toBe(true);
  for (const e of entries) {
    expect(Object.keys(e)).toEqual(
      expect.arrayContaining(['check', 'metric', 'baseline', 'candidate', 'change', 'low', 'high', 'bound', 'verdict']),
    );
    expect(['regressed', 'improved', 'unchanged', 'inconclusive']).toContain(e.verdict);
    for (const side of [e.baseline, e.candidate]) expect(Object.keys(side).sort()).toEqual(['n', 'value']);
  }
  return entries;
}

const QUESTIONS = 20;
const REPEATS = 3;
const inputs = (s: Parameters<typeof inputsFor>[0], extra: Record<string, string> = {}) =>
  inputsFor(s, { checks: 'checks.yml', baseline: 'before', timeout: '60s', ...extra });

describe('deploy with baseline: before', () => {
  it('a release that passes fewer questions is regressed, fails the gate and is rolled back', async () => {
    const s = await start();
    // Before: every question passes. After: 8 of the 20 questions always fail.
    s.addClaw('c1', behavingClaw({ passRates: [1] }, [{ passRates: failsFirst(8) }]));
    const dir = workspaceWith({ 'checks.yml': questionsFile(QUESTIONS, REPEATS) });
    const run = await runAction(inputs(s, { 'auto-rollback': 'true', 'fail-on': 'regression' }), {
      env: { GITHUB_WORKSPACE: dir },
    });
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({ outcome: 'failed', 'rolled-back': 'true', behaviour: 'regressed' });
    const entries = comparisonOf(run.outputs.comparison);
    const suite = entries.find((e) => e.check === '*' && e.metric === 'pass-rate')!;
    // No question's answers vary (each always passes or always fails): the deployment asks each
    // once against the baseline's known answers, and each side is compared once a question.
    expect(suite.baseline).toEqual({ value: 1, n: QUESTIONS });
    expect(suite.candidate).toEqual({ value: 0.6, n: QUESTIONS });
    expect(suite.verdict).toBe('regressed');
    expect(suite.high!).toBeLessThan(0);
    // The power line comes before the first request; the summary shows the table.
    const powerAt = run.stdout.indexOf('20 questions × 3 repeats: a 10% drop in pass rate is found');
    expect(powerAt).toBeGreaterThan(-1);
    expect(run.stdout.indexOf('Baseline: the checks on Claw c1')).toBeGreaterThan(powerAt);
    expect(run.errors[0]).toMatch(/behaves worse than before it .*behaviour regressed/);
    expect(run.summary).toContain('#### Behaviour before and after: 🔻 **regressed**');
    // Answers that do not vary are not asked `repeat` times: the baseline, checked alone, twice a
    // question (one answer cannot show it varies); the deployment once, the baseline's answers known.
    expect(s.routeCounts()['POST /v1/chat/:id/messages']).toBe(2 * QUESTIONS + QUESTIONS);
  });

  it('an identical release is not a regression and passes, though its flaky checks fail the absolute rule', async () => {
    // Each answer held 30 ms, and a latency tolerance of 100%: the machine's own jitter (other
    // processes on its cores) never reads as the Claw's latency.
    const s = await start({ holdMs: 30 });
    // Every question passes 4 times in 5, before and after alike.
    s.addClaw('c1', behavingClaw({ passRates: [0.8], seed: 3 }));
    const tolerance = '  tolerance:\n    latency: 100%\n';
    const dir = workspaceWith({ 'checks.yml': questionsFile(QUESTIONS, REPEATS, tolerance) });
    const run = await runAction(inputs(s, { 'auto-rollback': 'true' }), { env: { GITHUB_WORKSPACE: dir } });
    expect(run.outputs['checks-passed']).toBe('false');
    expect(run.outputs).toMatchObject({ outcome: 'succeeded', 'rolled-back': 'false' });
    expect(run.outputs.behaviour).toBe('unchanged');
    expect(run.exitCode).toBe(0);
    const entries = comparisonOf(run.outputs.comparison);
    expect(entries.filter((e) => e.verdict === 'regressed')).toEqual([]);
    // No change found: the 95% interval spans 0 and says how large a drop these 60 attempts could hide.
    const suite = entries.find((e) => e.check === '*' && e.metric === 'pass-rate')!;
    expect(suite).toMatchObject({ verdict: 'unchanged' });
    expect(suite.low!).toBeLessThan(0);
    expect(suite.high!).toBeGreaterThan(0);
    expect(suite.bound!).toBeGreaterThan(suite.low!);
    expect(suite.bound!).toBeLessThan(suite.high!);
    // The same release under fail-on failure: today's absolute rule fails it.
    const strict = await runAction(inputs(s, { 'fail-on': 'failure' }), { env: { GITHUB_WORKSPACE: dir } });
    expect(strict.exitCode).toBe(1);
    expect(strict.outputs.outcome).toBe('failed');
    expect(strict.outputs.behaviour).not.toBe('');
  });

  it('without a baseline, nothing is compared: behaviour and comparison are empty', async () => {
    const s = await start();
    s.addClaw('c1', behavingClaw({ passRates: [1] }));
    const dir = workspaceWith({ 'checks.yml': questionsFile(2, 2) });
    const run = await runAction(inputsFor(s, { checks: 'checks.yml' }), { env: { GITHUB_WORKSPACE: dir } });
    expect(run.exitCode).toBe(0);
    expect(run.outputs.behaviour).toBe('');
    expect(run.outputs.comparison).toBe('');
  });

  it('refuses baseline: before without checks, before any request', async () => {
    const s = await start();
    s.addClaw('c1');
    const run = await runAction(inputsFor(s, { baseline: 'before' }));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([expect.stringMatching(/^Input 'baseline' is "before": expected none when/)]);
    expect(s.requests).toHaveLength(0);
  });
});
