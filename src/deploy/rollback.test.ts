// Rollback in both forms the service may use, against the simulator on a fake clock.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, policy, setup, timeout } from '../../test/support/setup.ts';
import { deployClaw, rollbackCommand } from './deploy.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const deploy = (harness: Harness, overrides = {}) =>
  deployClaw(
    harness.deps,
    { clawId: 'c1', strategy: '', payload: {}, wait: true },
    policy({ autoRollback: true, ...overrides }),
  );

const rollbackRequests = (harness: Harness) => harness.sim.requests.filter((r) => r.path.endsWith('/rollback'));

describe('automatic rollback', () => {
  it.each(['in-place', 'new-deployment'] as const)(
    'rolls a failed deployment back once (%s) and still fails',
    async (rollbackForm) => {
      h = await setup({ rollbackForm });
      h.sim.addClaw('c1', { plan: [['pending', 5000], ['crashed']] });
      const result = await deploy(h);
      expect(result).toMatchObject({ ok: false, outcome: 'failed', status: 'crashed' });
      expect(result.rollback).toMatchObject({ succeeded: true, form: rollbackForm });
      expect(result.rollback?.id).toBe(rollbackForm === 'in-place' ? 'dep_0001' : 'dep_0002');
      expect(result.rollback?.status).toBe(rollbackForm === 'in-place' ? 'rolled_back' : 'succeeded');
      expect(result.message).toMatch(/failed with status "crashed".*It was rolled back/);
      expect(rollbackRequests(h)).toHaveLength(1);
      expect(result.timeline.at(-1)).toMatchObject({
        deploymentId: result.rollback?.id,
        status: result.rollback?.status,
      });
    },
  );

  it('rolls back on timeout, and gives the rollback its own deadline', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['in_progress']], rollbackPlan: [['rolling_back', 50_000], ['rolled_back']] });
    const result = await deploy(h, { timeoutMs: timeout(h, 60_000) });
    expect(result.outcome).toBe('timed-out');
    expect(result.rollback).toMatchObject({ succeeded: true, status: 'rolled_back' });
    // The rollback took 50 s, more than what was left of the first minute.
    expect(h.clock.now() - h.deps.startedAt).toBeGreaterThan(100_000);
  });

  it('rolls back a paused deployment only when paused is in rollback-on', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 5000], ['on_hold']] });
    expect((await deploy(h)).rollback).toBeUndefined();
    const result = await deploy(h, { rollbackOn: ['paused'] });
    expect(result).toMatchObject({ outcome: 'paused', rollback: { succeeded: true } });
  });

  it('does not roll back a success, nor when auto-rollback is off', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['live']] });
    expect((await deploy(h)).rollback).toBeUndefined();
    h.sim.addClaw('c1', { plan: [['failed']] });
    expect((await deploy(h, { autoRollback: false })).rollback).toBeUndefined();
    expect(rollbackRequests(h)).toHaveLength(0);
  });

  it('reports a rollback that fails, with both statuses', async () => {
    h = await setup();
    h.sim.addClaw('c1', { plan: [['pending', 5000], ['crashed']], rollbackPlan: [['rolling_back', 5000], ['error']] });
    const result = await deploy(h);
    expect(result.rollback).toMatchObject({ succeeded: false, status: 'error' });
    expect(result.message).toContain('"crashed"');
    expect(result.message).toContain('Rolling it back failed too');
    expect(result.message).toContain('error');
  });

  it('does not take the status from before the rollback as its result', async () => {
    h = await setup();
    // The service takes 12 s to start the rollback: the original still says "crashed" meanwhile.
    h.sim.addClaw('c1', {
      plan: [['pending', 5000], ['crashed']],
      rollbackPlan: [['crashed', 12_000], ['rolling_back', 5000], ['rolled_back']],
    });
    const result = await deploy(h);
    expect(result.rollback).toMatchObject({ succeeded: true, status: 'rolled_back' });
  });

  it('reports a rollback the key may not make', async () => {
    h = await setup({ keys: { 'read-only-key': ['deployments:read'] } }, { apiKey: 'read-only-key' });
    h.sim.addClaw('c1', { plan: [['failed']] });
    h.sim.addDeployment('c1', [['failed']], 'dep_old');
    const result = await rollbackCommand(h.deps, { deploymentId: 'dep_old', clawId: '' }, policy());
    expect(result.ok).toBe(false);
    expect(result.message).toContain("lacks the 'deployments:write' scope");
  });
});

describe('the rollback command', () => {
  it('rolls back a deployment by id and succeeds when the rollback completes', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    h.sim.addDeployment('c1', [['live']], 'dep_live');
    const result = await rollbackCommand(h.deps, { deploymentId: 'dep_live', clawId: '' }, policy());
    expect(result).toMatchObject({
      ok: true,
      outcome: 'succeeded',
      deploymentId: 'dep_live',
      rollback: { status: 'rolled_back' },
    });
  });

  it.each(['plain', 'named-envelope'] as const)(
    "rolls back the Claw's current deployment (%s shape)",
    async (shape) => {
      h = await setup({ shape, rollbackForm: 'new-deployment' });
      h.sim.addClaw('c1');
      h.sim.addDeployment('c1', [['live']], 'dep_older');
      h.sim.addDeployment('c1', [['live']], 'dep_current');
      const result = await rollbackCommand(h.deps, { deploymentId: '', clawId: 'c1' }, policy());
      expect(result).toMatchObject({
        ok: true,
        deploymentId: 'dep_current',
        rollback: { form: 'new-deployment', succeeded: true },
      });
      expect(h.log.text('info')).toContain("Claw c1's current deployment is dep_current");
    },
  );

  it("falls back to the Claw's newest deployment in the list", async () => {
    h = await setup();
    const claw = h.sim.addClaw('c1');
    h.sim.addDeployment('c1', [['live']], 'dep_a');
    h.clock.advance(1000);
    h.sim.addDeployment('c1', [['live']], 'dep_b');
    h.sim.addDeployment('c2', [['live']], 'dep_other_claw');
    claw.currentDeploymentId = undefined; // the Claw's record does not say
    const result = await rollbackCommand(h.deps, { deploymentId: '', clawId: 'c1' }, policy());
    expect(result).toMatchObject({ ok: true, deploymentId: 'dep_b' });
  });

  it('fails plainly when the Claw has no deployment', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    const result = await rollbackCommand(h.deps, { deploymentId: '', clawId: 'c1' }, policy());
    expect(result).toMatchObject({ ok: false, message: 'Claw c1 has no deployment to roll back.' });
    expect(h.sim.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });
});
