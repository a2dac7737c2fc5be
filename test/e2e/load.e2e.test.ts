// Concurrent runs of the bundled action sharing one small team limit: none fails, none deploys
// twice. How many 429s and how long it took are figures for `npm run bench`, not pass/fail.
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

describe('concurrent runs against a shared limit', () => {
  it('5 runs, 10 requests per 1 s window: every run succeeds with one deployment each', async () => {
    // A one-second window, outside the spec's per-minute limits: its reset goes as an epoch, which
    // no run can misread (a small delay could be seconds or milliseconds; see ResetMemory).
    sim = new Simulator({ speed: 20, rateLimit: { limit: 10, windowMs: 1000, resetForm: 'epoch-ms' } });
    const url = await sim.start();
    const claws = ['c1', 'c2', 'c3', 'c4', 'c5'];
    for (const id of claws) sim.addClaw(id, { plan: [['pending', 10_000], ['in_progress', 30_000], ['live']] });
    const s = sim;
    const runs = await Promise.all(
      claws.map((id) =>
        runAction(
          { 'api-key': DEMO_KEY, 'base-url': url, 'claw-id': id, 'poll-interval': '100ms', timeout: '60s' },
          { killAfterMs: 25_000 },
        ),
      ),
    );
    for (const [i, run] of runs.entries()) {
      expect(run.exitCode, run.stdout).toBe(0);
      expect(run.outputs.outcome).toBe('succeeded');
      expect(s.triggered(claws[i])).toHaveLength(1);
    }
  });
});
