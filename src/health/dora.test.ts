import { describe, expect, it } from 'vitest';
import { type DeploymentRecord, deploymentRecordJson, readDeploymentRecord } from './deployment-records.js';
import { doraReport, healthySightings, median, mergeDeployments } from './dora.js';

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
    expect(readDeploymentRecord(line({ actor: '<script>' }))).toBe('an unusable "actor"');
    expect(readDeploymentRecord(line({ commit: 'HEAD' }))).toBe('an unusable "commit"');
    expect(readDeploymentRecord([])).toBe('not a JSON object');
  });
});

describe('the figures teams track', () => {
  it('count a deployment seen twice once, and its rollback as its failure', () => {
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
    expect(merged.find((d) => d.claw === 'a')).toMatchObject({ failedAt: ago(2), liveAt: ago(3) });
    expect(merged.find((d) => d.claw === 'b')?.failedAt).toBeUndefined();
  });

  it('equal a hand count of a month', () => {
    const records = [
      // claw-a: three deployments; dep_a2 regressed at its gate and was rolled back; dep_a3 is named
      // the suspect of an incident. claw-b: one failed deployment 40 days ago, one good one.
      record('claw-a', 'dep_a1', ago(25), { committedAt: ago(25, 4) }),
      record('claw-a', 'dep_a2', ago(12), { committedAt: ago(12, 2), behaviour: 'regressed', rollback: 'dep_r1' }),
      record('claw-a', 'dep_a3', ago(5), { committedAt: ago(5, 1) }),
      record('claw-b', 'dep_b1', ago(40), { outcome: 'failed' }),
      record('claw-b', 'dep_b2', ago(2), { committedAt: ago(2, 6) }),
    ];
    const incidents = [{ claw: 'claw-a', openedAt: ago(4), closedAt: ago(3), suspect: 'dep_a3' }];
    const healthy = [
      { claw: 'claw-a', at: ago(12, -3) }, // 3 h after dep_a2's failure
      { claw: 'claw-a', at: ago(3, 12) }, // 12 h after the incident opened
      { claw: 'claw-b', at: ago(39) }, // a day after dep_b1 failed: outside 30 days
    ];
    const report = doraReport(records, incidents, healthy, NOW);
    expect(report.windowsDays).toEqual([7, 30, 90]);
    // 7 days: dep_a3 (suspect) and dep_b2.
    expect(report.overall['7']).toMatchObject({
      deployments: 2,
      perWeek: 2,
      changeFailureRate: { failed: 1, total: 2, rate: 0.5 },
      recoveryMs: { median: 12 * HOUR, n: 1, open: 0 },
      leadTimeMs: { median: 3.5 * HOUR, n: 2 },
    });
    // 30 days: a1, a2, a3, b2; a2 and a3 failed.
    expect(report.overall['30']).toMatchObject({
      deployments: 4,
      changeFailureRate: { failed: 2, total: 4, rate: 0.5 },
      recoveryMs: { median: 7.5 * HOUR, n: 2, open: 0 },
      leadTimeMs: { median: 3 * HOUR, n: 4 }, // a1 4 h, a2 2 h (live, then rolled back), a3 1 h, b2 6 h
    });
    // 90 days: b1's failure too, recovered in a day.
    expect(report.overall['90'].changeFailureRate).toEqual({ failed: 3, total: 5, rate: 0.6 });
    expect(report.overall['90'].recoveryMs).toEqual({ median: 12 * HOUR, n: 3, open: 0 });
    expect(report.claws['claw-b']['30']).toMatchObject({ deployments: 1, changeFailureRate: { failed: 0, total: 1 } });
  });

  it('counts a failure not yet recovered as open, never as zero', () => {
    const report = doraReport([record('a', 'dep_1', ago(1), { outcome: 'failed' })], [], [], NOW, [7]);
    expect(report.overall['7'].recoveryMs).toEqual({ median: null, n: 0, open: 1 });
    expect(report.overall['7'].changeFailureRate.rate).toBe(1);
  });

  it('has no rate without deployments', () => {
    expect(doraReport([], [], [], NOW, [7]).overall['7']).toMatchObject({
      deployments: 0,
      changeFailureRate: { failed: 0, total: 0, rate: null },
    });
    expect(median([3, 1, 2])).toEqual({ median: 2, n: 3 });
  });
});

describe('healthy sightings from what health keeps', () => {
  it('every healthy raw run, and for days only folded the end of a day that had one', () => {
    const day = (d: string, healthy: number) => ({
      day: d,
      claw: 'a',
      runs: 2,
      healthy,
      unhealthy: 2 - healthy,
      unknown: 0,
      deployments: [],
    });
    const sightings = healthySightings({
      recent: [
        { at: ago(1), run: '1', claw: 'a', status: 'healthy' },
        { at: ago(1, -1), run: '2', claw: 'a', status: 'unhealthy' },
        { at: ago(1, -2), run: '3', service: 'up' },
      ],
      daily: [day('2026-11-20', 1), day('2026-11-21', 0), day('2026-11-27', 2)],
    });
    // 2026-11-27 is covered by raw records already (they start on it): its daily line adds nothing.
    expect(sightings).toEqual([
      { claw: 'a', at: ago(1) },
      { claw: 'a', at: Date.parse('2026-11-21T00:00:00Z') - 1 },
    ]);
  });
});
