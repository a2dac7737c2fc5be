// Fleet rollouts against the simulator, on one fake clock shared with it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan, SimOptions } from '../../test/sim/server.ts';
import { type Harness, policy, setup, timeout } from '../../test/support/setup.ts';
import type { Share } from '../shared/share.js';
import type { Policy } from './deploy.js';
import { type FleetRequest, planWaves, rolloutFleet } from './fleet.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const OK: Plan = [['pending', 10_000], ['in_progress', 20_000], ['live']];
const CRASH: Plan = [['pending', 10_000], ['crashed']];

async function fleet(plans: Plan[], options: SimOptions = {}): Promise<Harness> {
  h = await setup({ rollbackForm: 'new-deployment', ...options });
  plans.forEach((plan, i) => h?.sim.addClaw(`c${i + 1}`, { plan }));
  return h;
}

const rollout = (harness: Harness, request: Partial<FleetRequest> = {}, overrides: Partial<Policy> = {}) =>
  rolloutFleet(
    harness.deps,
    {
      targets: { all: false, ids: [...harness.sim.claws.keys()] },
      strategy: '',
      payload: {},
      waves: [],
      bakeMs: 0,
      maxFailures: { count: 0 },
      probeMessage: '',
      ...request,
    },
    policy(overrides),
  );

/** When each Claw's deployment was triggered, and when it reached its final status. */
const triggers = (harness: Harness) => harness.sim.triggered().map((d) => ({ claw: d.clawId, at: d.createdAt }));

describe('planWaves', () => {
  it.each([
    [10, [], [[0, 10]]],
    [
      10,
      [{ count: 1 }, { percent: 25 }, { percent: 100 }],
      [
        [0, 1],
        [1, 3],
        [3, 10],
      ],
    ],
    [
      10,
      [{ count: 1 }, { percent: 50 }],
      [
        [0, 1],
        [1, 5],
        [5, 10],
      ],
    ],
    [3, [{ count: 5 }], [[0, 3]]],
    [
      4,
      [{ count: 2 }, { count: 1 }, { count: 3 }],
      [
        [0, 2],
        [2, 3],
        [3, 4],
      ],
    ],
  ] as [number, Share[], [number, number][]][])('%d Claws, %j → %j', (total, waves, ranges) =>
    expect(planWaves(total, waves)).toEqual(ranges),
  );
});

describe('rolloutFleet', () => {
  it('all at once: every Claw deployed, each round of polls one list request', async () => {
    const harness = await fleet([OK, OK, OK, OK]);
    const result = await rollout(harness);
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded', waves: 1 });
    expect(result.entries.map((e) => [e.clawId, e.outcome, e.status])).toEqual([
      ['c1', 'succeeded', 'live'],
      ['c2', 'succeeded', 'live'],
      ['c3', 'succeeded', 'live'],
      ['c4', 'succeeded', 'live'],
    ]);
    const counts = harness.sim.routeCounts();
    expect(counts['POST /v1/deployments']).toBe(4);
    expect(counts['GET /v1/deployments/:id'] ?? 0).toBe(0);
    // 30 s of deployments polled every 5 s: about six rounds, one request each.
    expect(counts['GET /v1/deployments']).toBeLessThanOrEqual(8);
    expect(result.message).toMatch(/^The rollout succeeded: 4 of 4 Claw\(s\) deployed/);
  });

  it('waves in order: the canary is final before any other trigger', async () => {
    const harness = await fleet([OK, OK, OK, OK]);
    const result = await rollout(harness, { waves: [{ count: 1 }, { percent: 50 }] });
    expect(result.waves).toBe(3);
    expect(result.entries.map((e) => e.wave)).toEqual([1, 2, 3, 3]);
    const canary = harness.sim.triggered('c1')[0];
    const others = triggers(harness).filter((t) => t.claw !== 'c1');
    expect(others.every((t) => t.at >= harness.sim.finalAt(canary))).toBe(true);
    const c2 = harness.sim.triggered('c2')[0];
    expect(
      triggers(harness)
        .filter((t) => ['c3', 'c4'].includes(t.claw))
        .every((t) => t.at >= harness.sim.finalAt(c2)),
    ).toBe(true);
  });

  it('a failing canary halts with one trigger and one rollback; the rest are skipped', async () => {
    const harness = await fleet([CRASH, OK, OK]);
    const result = await rollout(harness, { waves: [{ count: 1 }] }, { autoRollback: true });
    expect(result).toMatchObject({ ok: false, outcome: 'failed' });
    expect(result.entries.map((e) => e.outcome)).toEqual(['failed', 'skipped', 'skipped']);
    expect(result.entries[0]).toMatchObject({ rolledBack: true, status: 'crashed' });
    const counts = harness.sim.routeCounts();
    expect(counts['POST /v1/deployments']).toBe(1);
    expect(counts['POST /v1/deployments/:id/rollback']).toBe(1);
    expect(result.message).toMatch(/halted \(failed\): 1 Claw\(s\) failed, more than the 0 'max-failures' allows/);
  });

  it('a failure in a later wave rolls back every Claw deployed, latest wave first, once each', async () => {
    const harness = await fleet([OK, OK, OK, CRASH, OK]);
    const result = await rollout(harness, { waves: [{ count: 1 }, { count: 3 }] }, { autoRollback: true });
    expect(result.outcome).toBe('failed');
    expect(result.entries.map((e) => e.outcome)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'failed',
      'succeeded',
    ]);
    const rollbacks = harness.sim.requests.filter((r) => r.path.endsWith('/rollback'));
    const rolledBackClaws = rollbacks.map((r) => harness.sim.deployments.get(r.path.split('/')[3])?.clawId);
    expect(rolledBackClaws).toHaveLength(5);
    expect(new Set(rolledBackClaws).size).toBe(5);
    // Wave 3 (c4, c5) first, then wave 2 (c2, c3), then the canary.
    expect(new Set(rolledBackClaws.slice(0, 2))).toEqual(new Set(['c4', 'c5']));
    expect(new Set(rolledBackClaws.slice(2, 4))).toEqual(new Set(['c2', 'c3']));
    expect(rolledBackClaws[4]).toBe('c1');
    expect(result.entries.every((e) => e.rolledBack)).toBe(true);
  });

  it('max-failures tolerates one failure: the rollout succeeds and the report lists it', async () => {
    const harness = await fleet([OK, CRASH, OK]);
    const result = await rollout(harness, { waves: [{ count: 1 }], maxFailures: { count: 1 } }, { autoRollback: true });
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded' });
    expect(result.entries.map((e) => e.outcome)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(harness.sim.requests.filter((r) => r.path.endsWith('/rollback'))).toHaveLength(0);
  });

  it('a Claw unhealthy during the bake halts the rollout before the next wave', async () => {
    const harness = await fleet([OK, OK, OK]);
    const result = await rollout(
      harness,
      { waves: [{ count: 1 }], bakeMs: 60_000 },
      { autoRollback: true, rollbackOn: ['failed'] },
    );
    expect(result.outcome).toBe('succeeded'); // healthy throughout: the bake passes
    expect(harness.sim.routeCounts()['GET /v1/claws/:id']).toBeGreaterThanOrEqual(2);

    await harness.sim.stop();
    const sick = await fleet([OK, OK, OK]);
    // The canary's Claw goes offline 40 s in, during its bake.
    sick.clock.at(sick.clock.now() + 40_000, () => {
      const claw = sick.sim.claws.get('c1');
      if (claw) claw.status = 'offline';
    });
    const halted = await rollout(sick, { waves: [{ count: 1 }], bakeMs: 60_000 }, { autoRollback: true });
    expect(halted.outcome).toBe('failed');
    expect(halted.entries.map((e) => e.outcome)).toEqual(['failed', 'skipped', 'skipped']);
    expect(halted.entries[0].detail).toMatch(/unhealthy during the bake: status offline/);
    expect(sick.sim.triggered()).toHaveLength(1);
    expect(halted.entries[0].rolledBack).toBe(true);
  });

  it("'*' rolls out every Claw of a paged list, in the list's order", async () => {
    const harness = await fleet([OK, OK, OK, OK, OK], { pageSize: 2, shape: 'data-envelope' });
    const result = await rollout(harness, { targets: { all: true, ids: [] } });
    expect(result.entries.map((e) => e.clawId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(result.outcome).toBe('succeeded');
  });

  it('a cancel during a wave stops it, reports cancelled, and requests the rollbacks without waiting', async () => {
    const harness = await fleet([OK, OK, OK]);
    const cancel = new AbortController();
    harness.deps.signal = cancel.signal;
    harness.clock.at(harness.clock.now() + 12_000, () => cancel.abort());
    const result = await rollout(
      harness,
      { waves: [{ count: 2 }] },
      { autoRollback: true, rollbackOn: ['failed', 'cancelled'] },
    );
    expect(result.outcome).toBe('cancelled');
    expect(result.entries.map((e) => e.outcome)).toEqual(['cancelled', 'cancelled', 'skipped']);
    const rollbacks = harness.sim.requests.filter((r) => r.path.endsWith('/rollback'));
    expect(rollbacks).toHaveLength(2);
    expect(harness.sim.requests.at(-1)?.path).toMatch(/\/rollback$/);
    expect(harness.clock.now() - harness.deps.startedAt).toBeLessThan(12_000 + 5000);
  });

  it('falls back to per-id polls when the list carries no statuses', async () => {
    const harness = await fleet([OK, OK, OK], { listStatuses: false });
    const result = await rollout(harness);
    expect(result.outcome).toBe('succeeded');
    const counts = harness.sim.routeCounts();
    expect(counts['GET /v1/deployments']).toBe(1); // asked once, then no more
    expect(counts['GET /v1/deployments/:id']).toBeGreaterThanOrEqual(3 * 5);
    expect(harness.log.text('info')).toContain(
      'The deployments list shows no statuses; polling each deployment instead.',
    );
  });

  it('reads ids the list does not show one by one, and only those', async () => {
    // Pages of one, three pages at most: one of the four in flight is never listed.
    const harness = await fleet([OK, OK, OK, OK], { pageSize: 1, shape: 'data-envelope' });
    const result = await rollout(harness);
    expect(result.outcome).toBe('succeeded');
    const perId = harness.sim.requests.filter((r) => r.path.startsWith('/v1/deployments/dep_'));
    expect(perId.length).toBeGreaterThan(0);
    expect(new Set(perId.map((r) => r.path)).size).toBe(1);
  });

  it('timeout bounds the whole rollout: in flight at the deadline is timed-out, the rest skipped', async () => {
    const harness = await fleet([OK, [['in_progress', 10 * 60_000], ['live']], OK]);
    timeout(harness, 2 * 60_000);
    const result = await rollout(harness, { waves: [{ count: 1 }, { count: 2 }] }, { timeoutMs: 2 * 60_000 });
    expect(result.outcome).toBe('timed-out');
    expect(result.entries.map((e) => e.outcome)).toEqual(['succeeded', 'timed-out', 'skipped']);
    expect(harness.clock.now() - harness.deps.startedAt).toBeLessThanOrEqual(2 * 60_000);
  });
});
