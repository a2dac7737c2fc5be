// The watch after each deployment, from constructed records: which deployment an incident names,
// when a regression holds, and what the page's rows say of each deployment.
import { describe, expect, it } from 'vitest';
import { seededUniform } from '../compare/distributions.js';
import type { DeploymentRecord } from './deployment-records.js';
import { MAX_WATCHED, deploymentRows, dropPoint, figuresOf, watchClaws, weekStart } from './deployment-watch.js';
import type { WatchResult } from '../compare/index.js';
import type { ClawRecord } from './records.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** A Wednesday noon. */
const NOW = Date.parse('2026-11-25T12:00:00Z');
const links = {
  run: (id: string) => `https://github.com/octo/claws/actions/runs/${id}`,
  repositoryUrl: 'https://github.com/octo/claws',
};

/** Health runs of Claw `claw` every 6 hours over `days` up to NOW: 30 attempts each at `rate(at)`. */
function runs(claw: string, days: number, rate: (at: number) => number, seed = 1): ClawRecord[] {
  const uniform = seededUniform(seed);
  const out: ClawRecord[] = [];
  for (let at = NOW - days * DAY; at <= NOW; at += 6 * HOUR) {
    let passed = 0;
    for (let i = 0; i < 30; i++) if (uniform() < rate(at)) passed++;
    out.push({
      at,
      run: String(at / HOUR),
      claw,
      status: 'healthy',
      checks: { passed, failed: 30 - passed, errors: 0 },
    });
  }
  return out;
}

const deployment = (claw: string, id: string, at: number, extra: Partial<DeploymentRecord> = {}): DeploymentRecord => ({
  at,
  claw,
  deployment: id,
  outcome: 'succeeded',
  run: '4242',
  commit: id.endsWith('1') ? '1'.repeat(40) : id.endsWith('2') ? '2'.repeat(40) : '3'.repeat(40),
  ...extra,
});

describe('watchClaws', () => {
  it('a drop after a deployment is a regression naming it, with a compare link to the deployment before', () => {
    const deployedAt = NOW - 2 * DAY;
    const records = runs('a', 14, (at) => (at >= deployedAt ? 0.7 : 0.9));
    const deployments = [deployment('a', 'dep-1', NOW - 12 * DAY), deployment('a', 'dep-2', deployedAt)];
    const watch = watchClaws({ runs: records, deployments, now: NOW, claws: ['a'], links }).get('a')!;
    expect(watch.facts.regression).toMatchObject({ deployment: 'dep-2', signature: 'regressed:dep-2' });
    expect(watch.facts.suspect).toMatchObject({
      id: 'dep-2',
      commit: '2'.repeat(40),
      previousCommit: '1'.repeat(40),
      compareUrl: `https://github.com/octo/claws/compare/${'1'.repeat(40)}...${'2'.repeat(40)}`,
      run: { id: '4242', url: 'https://github.com/octo/claws/actions/runs/4242' },
    });
    expect(watch.facts.suspect?.figures?.after.passRate).toBeLessThan(0.8);
    expect(watch.deployments.map((d) => d.record.deployment)).toEqual(['dep-2']);
  });

  it('a drop that begins days after a deployment ran unchanged does not name it: the regression clears it', () => {
    const deployedAt = NOW - 6 * DAY;
    const dropAt = NOW - 2 * DAY;
    const records = runs('a', 14, (at) => (at >= dropAt ? 0.3 : 0.9));
    const watches = watchClaws({
      runs: records,
      deployments: [deployment('a', 'dep-2', deployedAt)],
      now: NOW,
      claws: ['a'],
      links,
    });
    const { facts } = watches.get('a')!;
    expect(facts.regression?.deployment).toBeUndefined();
    expect(facts.regression).toMatchObject({
      cleared: { deployment: 'dep-2', deployedAt, changeAt: dropAt },
      signature: 'regressed:after:dep-2',
    });
    // The page's row says why, in the words.
    const [row] = deploymentRows(watches, new Map([['claw:a', { number: 3, url: 'u', suspect: null, since: NOW }]]));
    expect(row).toMatchObject({
      id: 'dep-2',
      suspect: false,
      notNamed: 'deployed 4 days earlier and healthy since; not named as the cause',
    });
  });

  it('the drop point: where a lower rate begins, none for a rise, linear in the runs', () => {
    const at = (k: number) => k * HOUR;
    const flat = Array.from({ length: 20 }, (_, k) => ({ at: at(k), passed: 27, failed: 3, unjudged: 0 }));
    const drop = flat.map((r, k) => (k >= 12 ? { ...r, passed: 18, failed: 12 } : r));
    expect(dropPoint(drop)).toBe(at(12));
    const rise = flat.map((r, k) => (k >= 12 ? { ...r, passed: 30, failed: 0 } : r));
    expect(dropPoint(rise.map((r, k) => (k < 12 ? { ...r, passed: 20, failed: 10 } : r)))).toBeUndefined();
    expect(dropPoint(flat.slice(0, 1))).toBeUndefined();
  });

  it('a harmless deployment is no regression; it is still the suspect of an incident opening in its window', () => {
    const records = runs('a', 14, () => 0.9);
    const watch = watchClaws({
      runs: records,
      deployments: [deployment('a', 'dep-2', NOW - 3 * DAY)],
      now: NOW,
      claws: ['a'],
      links,
    }).get('a')!;
    expect(watch.facts.regression).toBeUndefined();
    expect(watch.facts.suspect?.id).toBe('dep-2');
  });

  it('a drop with nothing deployed in the window is the quiet watch: no deployment named', () => {
    const monday = weekStart(NOW);
    expect(new Date(monday).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    const records = runs('a', 14, (at) => (at >= monday ? 0.6 : 0.9));
    const watch = watchClaws({
      runs: records,
      deployments: [deployment('a', 'dep-1', NOW - 20 * DAY)],
      now: NOW,
      claws: ['a'],
      links,
    }).get('a')!;
    expect(watch.facts.suspect).toBeUndefined();
    // One signature for the alarm, whatever the calendar week; its figures count from where the
    // CUSUM's excursion began (the drop's first run, Monday 00:00, or a low run shortly before).
    expect(watch.facts.regression?.signature).toBe('regressed:quiet');
    const sinceMonday = records.filter((r) => r.at >= monday && r.at <= NOW).length;
    expect(watch.facts.regression?.figures.after.runs).toBeGreaterThanOrEqual(sinceMonday);
    expect(watch.facts.regression?.figures.after.runs).toBeLessThanOrEqual(sinceMonday + 4);
    expect(watch.facts.regression?.deployment).toBeUndefined();
  });

  it('a later deployment (a fix or a rollback) ends the regression of the one before', () => {
    const bad = NOW - 3 * DAY;
    const records = runs('a', 14, (at) => (at >= bad ? 0.7 : 0.9));
    const deployments = [deployment('a', 'dep-2', bad), deployment('a', 'dep-3', NOW - HOUR)];
    const watch = watchClaws({ runs: records, deployments, now: NOW, claws: ['a'], links }).get('a')!;
    expect(watch.facts.regression).toBeUndefined();
    expect(watch.facts.suspect?.id).toBe('dep-3');
  });

  it('counts a deployment seen twice once, ignores one dated after now, and keeps each Claw to its own', () => {
    const records = [...runs('a', 10, () => 0.9), ...runs('b', 10, () => 0.9, 2)];
    const deployments = [
      deployment('a', 'dep-2', NOW - DAY),
      deployment('a', 'dep-2', NOW - DAY + HOUR),
      deployment('a', 'dep-9', NOW + HOUR),
      deployment('b', 'dep-2', NOW - 2 * DAY),
    ];
    const watches = watchClaws({ runs: records, deployments, now: NOW, claws: ['a', 'b'], links });
    expect(watches.get('a')!.deployments.map((d) => [d.record.deployment, d.record.at])).toEqual([
      ['dep-2', NOW - DAY],
    ]);
    expect(watches.get('b')!.deployments.map((d) => d.record.claw)).toEqual(['b']);
  });

  it("the page's rows: regressed when the gate or the watch says so, the suspect marked by the incident naming it", () => {
    const deployedAt = NOW - 2 * DAY;
    const records = runs('a', 14, (at) => (at >= deployedAt ? 0.7 : 0.9));
    const deployments = [
      deployment('a', 'dep-1', NOW - 6 * DAY, { behaviour: 'unchanged' }),
      deployment('a', 'dep-2', deployedAt),
      deployment('a', 'dep-x', NOW - 4 * DAY, { outcome: 'rolled-back', behaviour: 'regressed' }),
    ];
    const watches = watchClaws({ runs: records, deployments, now: NOW, claws: ['a'], links });
    const incident = { number: 7, url: 'https://github.com/octo/claws/issues/7', suspect: 'dep-2' };
    const rows = deploymentRows(watches, new Map([['claw:a', incident]]));
    expect(rows.map((r) => [r.id, r.verdict, r.suspect, r.incident?.number])).toEqual([
      ['dep-2', 'regressed', true, 7],
      ['dep-x', 'regressed', false, undefined],
      ['dep-1', 'inconclusive', false, undefined],
    ]);
    // dep-1's watch stops where dep-2 went live: dep-2's drop is never dep-1's.
    expect(rows[2]).toMatchObject({ gate: 'unchanged', watch: 'inconclusive' });
  });

  it('a rollback ends the regression: its later record makes the deployment rolled-back', () => {
    const bad = NOW - 3 * DAY;
    const records = runs('a', 14, (at) => (at >= bad && at < NOW - DAY ? 0.6 : 0.9));
    const deployments = [
      deployment('a', 'dep-2', bad),
      deployment('a', 'dep-2', NOW - DAY, { outcome: 'rolled-back', rollback: 'dep-r' }),
    ];
    const watch = watchClaws({ runs: records, deployments, now: NOW, claws: ['a'], links }).get('a')!;
    expect(watch.deployments.map((d) => [d.record.deployment, d.record.outcome])).toEqual([['dep-2', 'rolled-back']]);
    expect(watch.deployments[0].watch?.verdict).toBe('regressed');
    expect(watch.facts.regression).toBeUndefined();
    expect(watch.facts.suspect?.id).toBe('dep-2');
  });

  it('a flood of records costs a bounded watch: the newest 50 deployments of a Claw, the rest listed unwatched', () => {
    const records = runs('a', 10, () => 0.9);
    const flood = Array.from({ length: 5000 }, (_, i) => deployment('a', `dep-f${i}`, NOW - 6 * DAY + i * 60_000));
    const watch = watchClaws({ runs: records, deployments: flood, now: NOW, claws: ['a'], links }).get('a')!;
    expect(watch.deployments).toHaveLength(MAX_WATCHED);
    expect(watch.deployments.at(-1)?.record.deployment).toBe('dep-f4999');
    expect(watch.facts.suspect?.id).toBe('dep-f4999');
  });

  it("the figures shown keep the change within what a pass rate's change can be; the verdict's own are untouched", () => {
    const side = (passRate: number | null) => ({ passRate, n: 48, unjudged: 0, runs: 6 });
    const watch = { before: side(1), after: side(0), change: -1, low: -1.365, high: -0.635 } as unknown as WatchResult;
    expect(figuresOf(watch)).toMatchObject({ change: -1, low: -1, high: -0.635 });
    const rise = { ...watch, before: side(0.2), after: side(0.9), change: 0.7, low: 0.3, high: 1.1 } as WatchResult;
    expect(figuresOf(rise)).toMatchObject({ low: 0.3, high: 0.8 });
    expect(figuresOf({ ...watch, before: side(null), low: null, high: null } as WatchResult)).toMatchObject({
      low: null,
      high: null,
    });
  });
});
