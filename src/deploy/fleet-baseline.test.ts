// A fleet with `baseline: before`: each wave's Claws checked before its trigger, every attempt,
// then each compared with its own baseline after; a Claw that regressed fails (and is rolled back),
// one that behaves as before succeeds, though its checks are the same; the wave says its verdict.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, policy, setup } from '../../test/support/setup.ts';
import { behavingClaw, failsFirst, questionsFile } from '../../test/sim/behaviour.ts';
import { compareRuns } from '../checks/comparison.js';
import { runChecks } from '../checks/gate.js';
import { parseChecks } from '../checks/load.js';
import { statusClassifier } from '../shared/status.js';
import { rolloutFleet } from './fleet.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

describe('a fleet with baseline: before', () => {
  it('compares each Claw with its own baseline: the worse one fails and is rolled back, the wave says the worst', async () => {
    h = await setup({ rollbackForm: 'new-deployment' });
    const harness = h;
    const suite = parseChecks('checks.yml', questionsFile(20, 3));
    harness.deps.checks = (ids, _until, mode) =>
      runChecks(harness.deps, suite, ids, { pollIntervalMs: 1000, classify: statusClassifier(), ...mode });
    harness.deps.behaviour = { failOn: 'regression', compare: (b, c) => compareRuns(b, c, suite) };
    harness.sim.addClaw('c1', behavingClaw({ passRates: [1] }));
    harness.sim.addClaw('c2', behavingClaw({ passRates: [1] }, [{ passRates: failsFirst(8) }]));
    const result = await rolloutFleet(
      harness.deps,
      {
        targets: { all: false, ids: ['c1', 'c2'] },
        strategy: '',
        payload: {},
        waves: [],
        bakeMs: 0,
        maxFailures: { count: 1 },
        probeMessage: '',
      },
      policy({ autoRollback: true }),
    );
    expect(result.entries.map((e) => [e.clawId, e.outcome, e.rolledBack])).toEqual([
      ['c1', 'succeeded', false],
      ['c2', 'failed', true],
    ]);
    expect(result.entries[1].detail).toMatch(/^it behaves worse than before: behaviour regressed/);
    expect(result.comparisons?.map((c) => [c.clawId, c.compared.behaviour === 'regressed'])).toEqual([
      ['c1', false],
      ['c2', true],
    ]);
    // Both sides of both Claws: 2 Claws × 20 questions × 3 repeats × 2.
    expect(harness.sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/'))).toHaveLength(240);
    expect(harness.log.text('info')).toContain("The wave's behaviour compared with before it: regressed.");
  });
});
