// A Claw that is already deploying: the trigger is refused with 409, on one fake clock with the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../test/sim/server.ts';
import { type Harness, policy, setup, timeout } from '../../test/support/setup.ts';
import type { Policy } from './deploy.js';
import { deployClaw } from './deploy.js';
import { rolloutFleet } from './fleet.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const OURS: Plan = [['pending', 5000], ['live']];
/** Another pipeline's deployment, 40 s from its end. */
const THEIRS: Plan = [['deploying', 40_000], ['live']];

const deploy = (harness: Harness, overrides: Partial<Policy> = {}) =>
  deployClaw(harness.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, policy(overrides));

const posts = (harness: Harness) => harness.sim.requests.filter((r) => r.method === 'POST');

describe('a Claw that is already deploying', () => {
  it('waits for the deployment the error names, then triggers again as a new write', async () => {
    h = await setup({ conflicts: 'named' });
    h.sim.addClaw('c1', { plan: OURS });
    const theirs = h.sim.addDeployment('c1', THEIRS, 'dep_other');
    const result = await deploy(h);
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded' });
    expect(result.deploymentId).not.toBe(theirs.id);
    expect(h.sim.triggered('c1')).toHaveLength(1);
    // The refused trigger and the new one: two writes, two keys.
    const keys = posts(h).map((r) => r.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
    // Named in the error: no lookup of the Claw or the list.
    expect(h.sim.routeCounts()['GET /v1/claws/:id']).toBeUndefined();
    expect(h.log.text('info')).toContain('deployment dep_other is in the way');
    expect(result.message).toMatch(/ It first waited 4\d(\.\d)?s for deployment dep_other, which was in the way\.$/);
    // The new trigger went only once the other had ended.
    expect(h.sim.triggered('c1')[0].createdAt).toBeGreaterThanOrEqual(h.sim.finalAt(theirs));
    // The wait is its own row in the timeline, then the other deployment's statuses, then ours.
    const rows = result.timeline.map((e) => [e.deploymentId, e.status, e.note ?? '']);
    expect(rows[0]).toEqual(['dep_other', 'in progress', 'in the way: waited for it (409 on the trigger)']);
    expect(rows).toContainEqual(['dep_other', 'live', '']);
    expect(rows.at(-1)).toEqual([result.deploymentId, 'live', '']);
  });

  it("finds the one in the way from the Claw's current deployment when the error names none", async () => {
    h = await setup({ conflicts: 'anonymous' });
    h.sim.addClaw('c1', { plan: OURS });
    h.sim.addDeployment('c1', THEIRS, 'dep_other');
    const result = await deploy(h);
    expect(result.outcome).toBe('succeeded');
    expect(h.sim.routeCounts()['GET /v1/claws/:id']).toBe(1);
    expect(h.log.text('info')).toContain('deployment dep_other (deploying) is in the way');
  });

  it('finds it in the recent list when the Claw does not show it', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: OURS });
    h.sim.addDeployment('c1', THEIRS, 'dep_other');
    h.sim.addDeployment('c2', THEIRS, 'dep_not_this_claw');
    h.sim.claws.get('c1')!.currentDeploymentId = undefined;
    h.sim.fault({
      kind: 'error',
      method: 'POST',
      path: '/deployments',
      status: 409,
      body: { error: { code: 'busy', message: 'busy', status: 409 } },
      times: 1,
    });
    const result = await deploy(h);
    expect(result.outcome).toBe('succeeded');
    expect(h.log.text('info')).toContain('deployment dep_other (deploying) is in the way');
    expect(h.sim.routeCounts()['GET /v1/deployments']).toBe(1);
  });

  it('times out when the other deployment outlasts the deadline, naming it, and triggers nothing', async () => {
    h = await setup({ conflicts: 'named' });
    h.sim.addClaw('c1', { plan: OURS });
    h.sim.addDeployment('c1', [['deploying', 10 * 60_000], ['live']], 'dep_slow');
    const result = await deploy(h, { timeoutMs: timeout(h, 60_000) });
    expect(result).toMatchObject({ ok: false, outcome: 'timed-out' });
    expect(result.message).toContain('dep_slow');
    expect(h.sim.triggered('c1')).toHaveLength(0);
    expect(h.clock.now() - h.deps.startedAt).toBeLessThanOrEqual(60_000);
  });

  it("'on-conflict: fail' stops at once with outcome error, naming the deployment in the way", async () => {
    h = await setup({ conflicts: 'named' });
    h.sim.addClaw('c1', { plan: OURS });
    h.sim.addDeployment('c1', THEIRS, 'dep_other');
    const result = await deploy(h, { onConflict: 'fail' });
    expect(result).toMatchObject({ ok: false, outcome: 'error' });
    expect(result.message).toMatch(/deployment dep_other is in progress.*'on-conflict' is fail/);
    expect(h.sim.requests).toHaveLength(1);
    expect(h.clock.now()).toBe(h.deps.startedAt);
  });

  it('a refusal that outlives the one in the way waits a poll interval, never a burst', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: OURS });
    h.sim.addDeployment('c1', [['live']], 'dep_done');
    // The service refuses three times, naming a deployment that is already final.
    h.sim.fault({
      kind: 'error',
      method: 'POST',
      path: '/deployments',
      status: 409,
      body: { error: { code: 'conflict', message: 'busy', status: 409, deploymentId: 'dep_done' } },
      times: 3,
    });
    const result = await deploy(h);
    expect(result.outcome).toBe('succeeded');
    const times = posts(h).map((r) => r.at);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(4500);
  });
});

describe('a fleet Claw in conflict', () => {
  async function busyFleet(): Promise<Harness> {
    h = await setup({ conflicts: 'named', rollbackForm: 'new-deployment' });
    for (const id of ['c1', 'c2', 'c3']) h.sim.addClaw(id, { plan: OURS });
    h.sim.addDeployment('c2', THEIRS, 'dep_other');
    return h;
  }
  const rollout = (harness: Harness, maxFailures: number, overrides: Partial<Policy> = {}) =>
    rolloutFleet(
      harness.deps,
      {
        targets: { all: false, ids: ['c1', 'c2', 'c3'] },
        strategy: '',
        payload: {},
        waves: [],
        bakeMs: 0,
        maxFailures: { count: maxFailures },
        probeMessage: '',
      },
      policy(overrides),
    );

  it('waits for the deployment in the way, then deploys the Claw with the rest', async () => {
    const harness = await busyFleet();
    const result = await rollout(harness, 0);
    expect(result.outcome).toBe('succeeded');
    expect(result.entries.map((e) => e.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(harness.sim.triggered('c2')).toHaveLength(1);
  });

  it("with 'on-conflict: fail' the Claw fails and counts against max-failures", async () => {
    let harness = await busyFleet();
    let result = await rollout(harness, 1, { onConflict: 'fail' });
    expect(result.outcome).toBe('succeeded');
    expect(result.entries.find((e) => e.clawId === 'c2')).toMatchObject({ outcome: 'failed' });
    expect(result.entries.find((e) => e.clawId === 'c2')?.detail).toContain('dep_other');
    await harness.sim.stop();

    harness = await busyFleet();
    result = await rollout(harness, 0, { onConflict: 'fail', autoRollback: true });
    expect(result.outcome).toBe('failed');
    expect(result.message).toContain("more than the 0 'max-failures' allows");
    // c1 was deployed before c2 was refused: the halt rolls it back; c3 is never reached.
    expect(result.entries.map((e) => e.outcome)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(result.entries[0].rolledBack).toBe(true);
  });
});
