import { describe, expect, it } from 'vitest';
import { type DeploymentRecord, deploymentRecordJson, readDeploymentRecord } from './deployment-records.js';
import { doraReport, median, mergeDeployments } from './dora.js';

const DAY = 24 * 3600_000;
const HOUR = 3600_000;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const ago = (days: number, hours = 0) => NOW - days * DAY - hours * HOUR;

function record(claw: string, deployment: string, at: number, extra: Partial<DeploymentRecord> = {}): DeploymentRecord {
  return { at, claw, deployment, outcome: 'succeeded', run: '1', ...extra };
}

describe('deployment records', () => {
  it('read back what is written, and name what is wrong with a line', () => {
    const r = record('claw-a', 'dep_1', ago(1), {
      commit: 'a'.repeat(40),
      committedAt: ago(1, 2),
      firstCommitAt: ago(1, 5),
      mergedAt: ago(1, 1),
      actor: 'octo-cat',
      behaviour: 'regressed',
      rollback: 'dep_2',
      durationMs: 5000,
      strategy: 'blue-green',
    });
    expect(readDeploymentRecord(JSON.parse(JSON.stringify(deploymentRecordJson(r))))).toEqual(r);
    const line = (over: Record<string, unknown>) => ({ ...deploymentRecordJson(r), ...over });
    expect(readDeploymentRecord(line({ claw: '..' }))).toBe('no usable Claw id in "claw"');
    expect(readDeploymentRecord(line({ outcome: 'great' }))).toBe('an unknown "outcome"');
    expect(readDeploymentRecord(line({ behaviour: 'fine' }))).toBe('an unknown "behaviour"');
    expect(readDeploymentRecord(line({ committedAt: new Date(ago(-1)).toISOString() }))).toBe(
      'an unusable "committedAt"',
    );
    expect(readDeploymentRecord(line({ firstCommitAt: new Date(ago(-1)).toISOString() }))).toBe(
      'an unusable "firstCommitAt"',
    );
    expect(readDeploymentRecord(line({ mergedAt: 'soon' }))).toBe('an unusable "mergedAt"');
    expect(readDeploymentRecord(line({ actor: '<script>' }))).toBe('an unusable "actor"');
    expect(readDeploymentRecord(line({ commit: 'HEAD' }))).toBe('an unusable "commit"');
    expect(readDeploymentRecord([])).toBe('not a JSON object');
  });
});

describe("the figures teams track, by DORA's definitions", () => {
  it('count a deployment seen twice once, and its rollback as its failure, remedied when the rollback went live', () => {
    const merged = mergeDeployments(
      [
        record('a', 'dep_1', ago(3)),
        record('a', 'dep_1', ago(3)), // a copied line
        record('a', 'dep_1', ago(2), { outcome: 'rolled-back', rollback: 'dep_r' }),
        record('b', 'dep_1', ago(3)), // another Claw's deployment of the same id
      ],
      [],
    );
    expect(merged).toHaveLength(2);
    expect(merged.find((d) => d.claw === 'a')).toMatchObject({ failed: true, liveAt: ago(3), remedies: [ago(2)] });
    expect(merged.find((d) => d.claw === 'b')?.failed).toBe(false);
  });

  // The reviewer's timeline (issue 49), read by the old rules as 6 deployments, a change failure
  // rate of 5/6 and a median recovery of 10 minutes (the rollback's own record, or the incident's
  // opening, to the next healthy run).
  it("the reviewer's timeline: 4 deployments, change failure rate 2/4, recovery at least 3 hours", () => {
    const records = [
      record('claw-a', 'dep_1', ago(6), { committedAt: ago(6, 2), firstCommitAt: ago(6, 5) }),
      // Triggered, never live: not deployments, and not change failures.
      record('claw-a', 'dep_2', ago(5), { outcome: 'failed' }),
      record('claw-a', 'dep_3', ago(5, -1), { outcome: 'timed-out' }),
      // Live, then rolled back 3 hours later by the rollback command (its own record).
      record('claw-a', 'dep_4', ago(4), { mergedAt: ago(4, 1) }),
      record('claw-a', 'dep_4', ago(4, -3), { outcome: 'rolled-back', rollback: 'dep_r' }),
      // Live; a behaviour incident names it with evidence 2 h later and stays open 37 hours.
      record('claw-a', 'dep_5', ago(3), { committedAt: ago(3, 1) }),
      // The next good deployment, after the incident closed healthy.
      record('claw-a', 'dep_6', ago(1)),
    ];
    const incidents = [{ claw: 'claw-a', openedAt: ago(3, -2), closedAt: ago(3, -39), suspect: 'dep_5' }];
    // The Claw was healthy by its status all along: healthy runs are no remedy.
    const f = doraReport(records, incidents, NOW, [7]).overall['7'];
    expect(f.deployments).toBe(4);
    expect(f.notLive).toBe(2);
    expect(f.changeFailureRate).toEqual({ failed: 2, total: 4, rate: 0.5 });
    // dep_4: 3 h from live to the rollback; dep_5: 39 h from live to the incident closed healthy.
    expect(f.recoveryMs).toEqual({ median: 21 * HOUR, n: 2, open: 0 });
    expect(f.recoveryMs.median).toBeGreaterThanOrEqual(3 * HOUR);
    // dep_1 from its first commit (5 h), dep_4 from its merge (1 h), dep_5 from its commit (1 h).
    expect(f.leadTimeMs).toEqual({ median: HOUR, n: 3, from: { firstCommit: 1, merged: 1, headCommit: 1 } });
  });

  it('count a failure with no remedy yet as open, and a rollback in the run that made it as live', () => {
    const records = [
      record('a', 'dep_1', ago(2), { behaviour: 'regressed' }), // live, regressed at its gate, never fixed
      record('a', 'dep_2', ago(1), { outcome: 'rolled-back', rollback: 'dep_r', durationMs: 20 * 60_000 }),
    ];
    const f = doraReport(records, [], NOW, [7]).overall['7'];
    // dep_2 went live in its run and was rolled back there: a failure remedied within 20 minutes.
    // It is no good deployment, so dep_1 stays open.
    expect(f).toMatchObject({ deployments: 2, notLive: 0, changeFailureRate: { failed: 2, total: 2 } });
    expect(f.recoveryMs).toEqual({ median: 20 * 60_000, n: 1, open: 1 });
  });

  it('an incident naming a deployment that never went live fails nothing', () => {
    const records = [record('a', 'dep_1', ago(2), { outcome: 'cancelled' })];
    const f = doraReport(records, [{ claw: 'a', openedAt: ago(1), suspect: 'dep_1' }], NOW, [7]).overall['7'];
    expect(f).toMatchObject({ deployments: 0, notLive: 1, changeFailureRate: { failed: 0, total: 0, rate: null } });
  });

  it('counts a failure not yet recovered as open, never as zero', () => {
    const records = [record('a', 'dep_1', ago(1))];
    const report = doraReport(records, [{ claw: 'a', openedAt: ago(1, -1), suspect: 'dep_1' }], NOW, [7]);
    expect(report.overall['7'].recoveryMs).toEqual({ median: null, n: 0, open: 1 });
    expect(report.overall['7'].changeFailureRate.rate).toBe(1);
  });

  it('has no rate without deployments', () => {
    expect(doraReport([], [], NOW, [7]).overall['7']).toMatchObject({
      deployments: 0,
      changeFailureRate: { failed: 0, total: 0, rate: null },
    });
    expect(median([3, 1, 2])).toEqual({ median: 2, n: 3 });
  });
});
