// A crash never leaves a release live and unchecked: once the trigger's POST has gone out, any
// unexpected error (a bug, a closed output, a check that throws) takes the failure path: outcome
// `error`, a message saying what broke, and the rollback when the rules cover failures. Each test
// throws at one stage after the POST, against the simulator on the fake clock.
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../test/sim/server.ts';
import { type Harness, policy, setup } from '../../test/support/setup.ts';
import { deployClaw } from './deploy.js';
import { rolloutFleet } from './fleet.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const LIVE: Plan = [['pending', 10_000], ['live']];
const rules = policy({ autoRollback: true, rollbackOn: ['failed', 'timed-out'], pollIntervalMs: 2000 });

/** Replaces `object[name]` with a function that throws `error` on its `nth` call (1-based), then behaves. */
function breakOn<T extends object, K extends keyof T>(
  object: T,
  name: K,
  nth = 1,
  error = new TypeError('boom'),
): void {
  const original = object[name] as unknown as (...args: unknown[]) => unknown;
  let calls = 0;
  object[name] = ((...args: unknown[]) => {
    if (++calls === nth) throw error;
    return original.apply(object, args);
  }) as T[K];
}

const rollbacks = (harness: Harness) =>
  harness.sim.requests.filter((r) => r.method === 'POST' && /\/rollback$/.test(r.path)).map((r) => r.path);

describe('one Claw: a throw after the POST is rolled back', () => {
  async function claw(): Promise<Harness> {
    h = await setup({ rollbackForm: 'new-deployment' });
    h.sim.addClaw('c1', { plan: LIVE, chat: { mode: 'sync', reply: 'hello' } });
    return h;
  }
  const deploy = (harness: Harness) =>
    deployClaw(harness.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, rules);

  it.each([
    [
      'reporting the trigger (onProgress)',
      (harness: Harness) =>
        (harness.deps.onProgress = () => {
          throw new TypeError('boom');
        }),
    ],
    ['the wait (a poll)', (harness: Harness) => breakOn(harness.client, 'getDeployment')],
    ['the gate', (harness: Harness) => (harness.deps.checks = () => Promise.reject(new TypeError('boom')))],
    [
      'reporting the final status (onProgress)',
      (harness: Harness) => {
        let calls = 0;
        harness.deps.onProgress = () => {
          if (++calls === 2) throw new TypeError('boom');
        };
      },
    ],
  ])('%s: outcome error, the message says what broke, and the deployment is rolled back', async (_, breakIt) => {
    const harness = await claw();
    breakIt(harness);
    const result = await deploy(harness);
    expect(harness.sim.triggered('c1')).toHaveLength(1);
    expect(result.outcome).toBe('error');
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/was triggered, then the deploy stopped: unexpected error: boom/);
    expect(result.rollback?.succeeded).toBe(true);
    expect(result.message).toMatch(/It was rolled back/);
    expect(rollbacks(harness)).toEqual([`/v1/deployments/${result.deploymentId}/rollback`]);
  });

  it('without failed in rollback-on: outcome error, nothing rolled back, and the message says why', async () => {
    const harness = await claw();
    breakOn(harness.client, 'getDeployment');
    const result = await deployClaw(
      harness.deps,
      { clawId: 'c1', strategy: '', payload: {}, wait: true },
      policy({ autoRollback: true, rollbackOn: ['timed-out'] }),
    );
    expect(result.outcome).toBe('error');
    expect(result.message).toMatch(/It was not rolled back: 'rollback-on' does not hold failed\.$/);
    expect(rollbacks(harness)).toEqual([]);
  });
});

describe('a fleet: a throw after the first POST rolls back every Claw it deployed', () => {
  async function fleet(): Promise<Harness> {
    h = await setup({ rollbackForm: 'new-deployment' });
    for (const id of ['c1', 'c2', 'c3']) h.sim.addClaw(id, { plan: LIVE, chat: { mode: 'sync', reply: 'hello' } });
    return h;
  }
  const rollout = (harness: Harness, waves = [{ count: 1 }]) =>
    rolloutFleet(
      harness.deps,
      {
        targets: { all: false, ids: ['c1', 'c2', 'c3'] },
        strategy: '',
        payload: {},
        waves,
        bakeMs: 5000,
        maxFailures: { count: 0 },
        probeMessage: '',
      },
      rules,
    );

  it.each([
    ['the second wave’s trigger', (harness: Harness) => breakOn(harness.client, 'triggerDeployment', 2)],
    ['following the deployments', (harness: Harness) => breakOn(harness.client, 'findDeployments')],
    ['the gate', (harness: Harness) => (harness.deps.checks = () => Promise.reject(new TypeError('boom')))],
    // A read that throws during the bake is the Claw's health unknown: a failed Claw, not a crash.
    ['the bake', (harness: Harness) => breakOn(harness.client, 'getClaw'), 'failed'],
  ])('%s: the rollout halts, and what was deployed is rolled back', async (_, breakIt, outcome = 'error') => {
    const harness = await fleet();
    breakIt(harness);
    const result = await rollout(harness);
    expect(result.outcome).toBe(outcome);
    expect(result.ok).toBe(false);
    if (outcome === 'error')
      expect(result.message).toMatch(/halted \(error\): the rollout stopped on an unexpected error: boom/);
    const deployed = harness.sim.triggered();
    expect(deployed.length).toBeGreaterThan(0);
    expect(rollbacks(harness).sort()).toEqual(deployed.map((d) => `/v1/deployments/${d.id}/rollback`).sort());
  });
});
