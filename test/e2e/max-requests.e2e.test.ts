// `max-requests` through dist/index.js at 60 requests a minute (the simulator's minute scaled 20×):
// a comparison that could send more messages than the bound is asked fewer repeats, the cut and
// the power left said before the first message; one that cannot fit a single round of its
// questions is refused with one `::error::` naming the input and the value, before any request.
import { describe, expect, it } from 'vitest';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const SPEED = 20;
const start = simulatorPerTest({ speed: SPEED });
const sixtyAMinute = { limit: 60, windowMs: 60_000 / SPEED, resetForm: 'epoch-ms' as const };
const QUESTIONS = 10;

const messages = (requests: { method: string; path: string; body?: unknown }[]) =>
  requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/'));

/** compare of two live Claws, `base` and `cand`, on QUESTIONS questions × `repeat`, bounded by `maxRequests`. */
async function compareBounded(repeat: number, maxRequests: string) {
  const sim = await start({ rateLimit: sixtyAMinute });
  sim.addClaw('base', behavingClaw({ passRates: [0.9, 0.6], seed: 3 }));
  sim.addClaw('cand', behavingClaw({ passRates: [0.9, 0.6], seed: 4 }));
  const dir = workspaceWith({ 'checks.yml': questionsFile(QUESTIONS, repeat) });
  const run = await runAction(
    inputsFor(sim, {
      command: 'compare',
      'claw-id': 'cand',
      baseline: 'base',
      checks: 'checks.yml',
      'max-requests': maxRequests,
      timeout: '5m',
      'poll-interval': '50ms',
    }),
    { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 120_000 },
  );
  return { sim, run };
}

describe('max-requests', () => {
  it('a suite that would exceed it is asked fewer repeats, the cut and the power left said before the first message', async () => {
    // 10 questions × 5 on both sides: at most 100 messages; 45 fits two repeats a side (40).
    const { sim, run } = await compareBounded(5, '45');
    const lines = run.stdout.split('\n');
    const cut = lines.findIndex((l) => l.includes('max-requests 45: each question asked at most 2 time(s) a side'));
    expect(cut, run.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[cut]).toContain('at most 40 messages');
    // The cost line after it is the cut suite's, with the power it has left.
    const cost = lines.findIndex((l) => l.includes('Comparing: both sides:'));
    expect(cost).toBeGreaterThan(cut);
    expect(lines[cost]).toContain('at most 40 message(s)');
    expect(lines[cost]).toMatch(/10 questions × 2 repeats: a 10% drop in pass rate is found/);
    // Both lines before the first message: nothing logged from the checks sits above them.
    const firstCheck = lines.findIndex((l) => /\bq\d+\b/.test(l) && /passed|failed/.test(l));
    expect(firstCheck === -1 || firstCheck > cost).toBe(true);
    // The bound held: never more messages than it, never a third repeat of a question on a side.
    const sent = messages(sim.requests);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThanOrEqual(45);
    for (const claw of ['base', 'cand'])
      for (let q = 1; q <= QUESTIONS; q++) {
        const asked = sent.filter(
          (r) => r.path.split('/')[3] === claw && (r.body as { message?: string })?.message === `q${q}`,
        );
        expect(asked.length, `${claw} q${q}`).toBeLessThanOrEqual(2);
      }
  }, 120_000);

  it('a suite that cannot fit one round of its questions is refused: one error naming the input and the value, no request', async () => {
    // One round of 10 questions on both sides is 20 messages: 15 cannot hold it.
    const { sim, run } = await compareBounded(3, '15');
    expect(run.exitCode).not.toBe(0);
    const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(errors, run.stdout).toHaveLength(1);
    expect(errors[0]).toContain('max-requests');
    expect(errors[0]).toContain('15');
    expect(errors[0]).toContain('at least 20');
    expect(sim.requests).toHaveLength(0);
  }, 120_000);
});
