// What a comparison costs, through dist/index.js at 60 requests a minute (the simulator's minute
// scaled 20×): the cost is said before the first request (the line knows no rate-limit header yet,
// and every answer of the simulator carries one), and a release that broke its answers is decided
// with fewer messages than the suite as written, the other repeats never asked: after a deploy, and
// between two live Claws asked in alternating rounds.
import { describe, expect, it } from 'vitest';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const SPEED = 20;
const start = simulatorPerTest({ speed: SPEED });
const sixtyAMinute = { limit: 60, windowMs: 60_000 / SPEED, resetForm: 'epoch-ms' as const };
/** 7 in 10 near-certain, 2 flaky, 1 near-never. */
const RATES = [0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.6, 0.5, 0.03];
const QUESTIONS = 20;
const REPEATS = 3;

const messages = (requests: { method: string; path: string }[]) =>
  requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/')).length;

describe('compare: the cost, and stopping once decisive', () => {
  it('a clear regression is decided regressed with fewer messages than the suite as written; the cost came first', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: RATES, seed: 5 }, [{ passRates: [0.2] }]));
    const dir = workspaceWith({ 'checks.yml': questionsFile(QUESTIONS, REPEATS) });
    const run = await runAction(
      inputsFor(sim, { checks: 'checks.yml', baseline: 'before', timeout: '10m', 'poll-interval': '50ms' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 300_000 },
    );
    expect(run.outputs.behaviour).toBe('regressed');
    // The suite as written: every repeat of every question on both sides.
    const written = 2 * QUESTIONS * REPEATS;
    expect(messages(sim.requests)).toBeLessThan(written);
    expect(run.stdout).toMatch(/Stopped after round \d of 3: behaviour regressed/);
    // The cost line: the most it may send, as written, before any answer was read (no header yet).
    const lines = run.stdout.split('\n');
    const cost = lines.findIndex((l) => l.includes('Comparing before and after:'));
    expect(lines[cost]).toContain(`at most ${written} message(s)`);
    expect(lines[cost]).toMatch(/about \d+ expected/);
    expect(lines[cost]).toContain('60 requests a minute (the documented default: no rate-limit header seen yet)');
    expect(lines[cost]).toMatch(/questions × 3 repeats/);
    // Every answer the simulator gave carried the team's headers: the line was made before the first.
    expect(sim.requests.length).toBeGreaterThan(0);
    const firstBaseline = lines.findIndex((l) => /Baseline: the checks/.test(l));
    expect(cost).toBeGreaterThanOrEqual(0);
    expect(cost).toBeLessThan(firstBaseline);
  }, 300_000);

  it('an identical release reads unchanged, asking questions that never vary fewer times than written', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1, 1, 1, 1, 0] }, [{}]));
    const dir = workspaceWith({ 'checks.yml': questionsFile(10, REPEATS) });
    const run = await runAction(
      inputsFor(sim, { checks: 'checks.yml', baseline: 'before', timeout: '10m', 'poll-interval': '50ms' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 300_000 },
    );
    expect(run.outputs.behaviour).not.toBe('regressed');
    // Before: twice each (a question that answers the same twice is not asked a third time); after: once.
    expect(messages(sim.requests)).toBe(10 * 2 + 10);
  }, 300_000);

  it('compare of two live Claws: a clear regression stops early, both sides asked in alternating rounds', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('base', behavingClaw({ passRates: RATES, seed: 5 }));
    sim.addClaw('cand', behavingClaw({ passRates: [0.2], seed: 6 }));
    const dir = workspaceWith({ 'checks.yml': questionsFile(QUESTIONS, REPEATS) });
    const run = await runAction(
      inputsFor(sim, {
        command: 'compare',
        'claw-id': 'cand',
        baseline: 'base',
        checks: 'checks.yml',
        timeout: '10m',
        'poll-interval': '50ms',
      }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 300_000 },
    );
    expect(run.outputs.behaviour).toBe('regressed');
    const written = 2 * QUESTIONS * REPEATS;
    expect(messages(sim.requests)).toBeLessThan(written);
    expect(run.stdout).toMatch(/cand against base: behaviour regressed after round [12] of 3 at this look's level/);
    // The cost line, before any message: the most both sides may send and what to expect.
    const lines = run.stdout.split('\n');
    const cost = lines.findIndex((l) => l.includes('Comparing: both sides:'));
    expect(cost).toBeGreaterThanOrEqual(0);
    expect(lines[cost]).toContain(`at most ${written} message(s)`);
    expect(lines[cost]).toMatch(/about \d+ expected/);
    expect(lines[cost]).toContain('no rate-limit header seen yet');
    // Alternating rounds: each side's round-1 answers come before either side's second.
    const asked = sim.requests
      .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/'))
      .map((r) => r.path.split('/')[3]);
    const first = asked.slice(0, QUESTIONS * 2);
    expect(first.filter((id) => id === 'base')).toHaveLength(QUESTIONS);
    expect(first.filter((id) => id === 'cand')).toHaveLength(QUESTIONS);
  }, 300_000);
});
