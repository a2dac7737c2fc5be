import { describe, expect, it } from 'vitest';
import type { Compared } from '../checks/comparison.js';
import type { RunFacts } from '../health/deployment-records.js';
import type { DeployResult } from './deploy.js';
import type { FleetResult } from './fleet.js';
import { deployRecords, fleetRecords } from './records.js';

const AT = Date.parse('2026-11-22T12:00:00Z');
const FACTS: RunFacts = { at: AT, run: '7', commit: 'a'.repeat(40), committedAt: AT - 3600_000, actor: 'octo-cat' };
const compared: Compared = {
  behaviour: 'regressed',
  metrics: [
    {
      check: '*',
      metric: 'pass-rate',
      primary: true,
      baseline: { value: 0.9, n: 30 },
      candidate: { value: 0.6, n: 30 },
      change: -0.3,
      relative: -0.33,
      low: -0.5,
      high: -0.1,
      p: 0.001,
      verdict: 'regressed',
    },
  ],
};
const deployed = (over: Partial<DeployResult>): DeployResult => ({
  command: 'deploy',
  clawId: 'bot-a',
  strategy: 'rolling',
  deploymentId: 'dep_1',
  outcome: 'succeeded',
  durationMs: 5000,
  timeline: [],
  ok: true,
  message: '',
  ...over,
});

describe('the records a run leaves', () => {
  it('a deploy: its outcome, rollback, the run’s facts and the gate’s verdict with the pass rates', () => {
    const rolledBack = deployed({
      outcome: 'failed',
      comparison: compared,
      rollback: { id: 'dep_rb', form: 'new-deployment', succeeded: true, outcome: 'succeeded', message: '' },
    });
    expect(deployRecords(rolledBack, FACTS)).toEqual([
      {
        at: AT,
        claw: 'bot-a',
        deployment: 'dep_1',
        outcome: 'failed',
        run: '7',
        strategy: 'rolling',
        durationMs: 5000,
        rollback: 'dep_rb',
        behaviour: 'regressed',
        passRate: { before: 0.9, beforeN: 30, after: 0.6, afterN: 30, low: -0.5, high: -0.1 },
        commit: 'a'.repeat(40),
        committedAt: AT - 3600_000,
        actor: 'octo-cat',
      },
    ]);
    // Paused and error are failures; not waited for, never triggered, or `wait`: no record.
    expect(deployRecords(deployed({ outcome: 'paused' }), FACTS)[0].outcome).toBe('failed');
    expect(deployRecords(deployed({ outcome: 'triggered' }), FACTS)).toEqual([]);
    expect(deployRecords(deployed({ deploymentId: undefined, outcome: 'cancelled' }), FACTS)).toEqual([]);
    expect(deployRecords(deployed({ command: 'wait', clawId: undefined }), FACTS)).toEqual([]);
  });

  it('leaves out a fact the reader would refuse, never the record', () => {
    const [r] = deployRecords(deployed({}), { ...FACTS, actor: '<b>x</b>', run: 'run-7', committedAt: AT + 1000 });
    expect(r).toEqual({
      at: AT,
      claw: 'bot-a',
      deployment: 'dep_1',
      outcome: 'succeeded',
      run: '',
      strategy: 'rolling',
      durationMs: 5000,
      commit: 'a'.repeat(40),
    });
  });

  it('the rollback command: the deployment rolled back, only when the rollback went through', () => {
    const rollback = deployed({
      command: 'rollback',
      strategy: undefined,
      rollback: { id: 'dep_1', form: 'in-place', succeeded: true, outcome: 'succeeded', message: '' },
    });
    expect(deployRecords(rollback, FACTS)[0]).toMatchObject({
      deployment: 'dep_1',
      outcome: 'rolled-back',
      rollback: 'dep_1',
    });
    expect(
      deployRecords({ ...rollback, rollback: { ...rollback.rollback!, succeeded: false, outcome: 'failed' } }, FACTS),
    ).toEqual([]);
  });

  it('a fleet: one per Claw deployed, each with its own comparison', () => {
    const fleet: FleetResult = {
      entries: [
        { clawId: 'a', wave: 1, deploymentId: 'd1', outcome: 'succeeded', rolledBack: false, durationMs: 10 },
        { clawId: 'b', wave: 1, deploymentId: 'd2', outcome: 'timed-out', rolledBack: true, rollbackId: 'r2' },
        { clawId: 'c', wave: 2, outcome: 'skipped', rolledBack: false },
      ],
      comparisons: [{ clawId: 'a', compared: { ...compared, behaviour: 'unchanged' } }],
      waves: 2,
      outcome: 'failed',
      ok: false,
      message: '',
      durationMs: 10,
    };
    const records = fleetRecords(fleet, 'canary', FACTS);
    expect(records.map((r) => [r.claw, r.outcome, r.rollback, r.behaviour, r.strategy])).toEqual([
      ['a', 'succeeded', undefined, 'unchanged', 'canary'],
      ['b', 'timed-out', 'r2', undefined, 'canary'],
    ]);
  });
});
