// Issue 43, parts 2 and 3, through dist/index.js: a deploy with `history` appends one sealed record
// to the history branch, a fleet one per Claw in one commit, and the next health run reads them
// back into status.json's `dora`. Then as anyone with push access would try it: a pushed record
// forging a verdict, a genuine record copied to another Claw or month, and a flood of 100,000
// record lines. Each is ignored and counted in health's one warning; the flood stays within the
// read's budget of files and within a bound on memory.
// Input controlled by: anyone who can push to the history branch.
import { afterEach, describe, expect, it } from 'vitest';
import { sealKey } from '../../src/shared/seal.ts';
import { deploymentLine } from '../../src/health/deployment-log.ts';
import type { DeploymentRecord } from '../../src/health/deployment-records.ts';
import { unsealLine } from '../../src/health/sealed-line.ts';
import { DEMO_KEY, type Plan } from '../sim/server.ts';
import { HealthWorld } from './health-world.ts';

const T = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;
const BRANCH = 'claw-health';
const MONTH = 'history/deployments/2026-11.ndjson';
const SHA = 'c0ffee'.padEnd(40, '1');
const SEAL = sealKey(DEMO_KEY, 'octo/claws');
const LIVE: Plan = [['pending', 1000], ['live']];
const DEPLOY_ENV = { GITHUB_SHA: SHA, GITHUB_ACTOR: 'octo-cat' };

const world = new HealthWorld({ timeout: '20s', 'status-page': 'true', incidents: 'false' }, {}, 4300);
afterEach(() => world.stop());

const deploy = (when: number, extra: Record<string, string>) =>
  world.run(when, { command: 'deploy', history: BRANCH, 'status-page': 'false', ...extra }, { env: DEPLOY_ENV });
const lines = (path = MONTH): string[] => (world.github!.repo.file(BRANCH, path) ?? '').split('\n').filter(Boolean);
const dora = (): {
  overall: Record<string, { deployments: number; changeFailureRate: { failed: number; total: number } }>;
} => (JSON.parse(world.github!.repo.file(BRANCH, 'status.json')!) as { dora: ReturnType<typeof dora> }).dora;

describe('every deployment recorded on the history branch (issue 43)', () => {
  it('a deploy appends one sealed record with its run, commit, time and actor; health reads it into dora', async () => {
    const { sim, github } = await world.start({ speed: 20 });
    sim.addClaw('bot-a', { plan: LIVE });
    github.repo.codeCommits.set(SHA, new Date(T - 2 * HOUR).toISOString());
    const run = await deploy(T, { 'claw-id': 'bot-a' });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("History: recorded 1 deployment(s) on 'claw-health' in one commit.");
    const [line] = lines();
    expect(lines()).toHaveLength(1);
    const record = JSON.parse(unsealLine(line, SEAL, 'deployment-record 2026-11')!) as Record<string, unknown>;
    expect(record).toMatchObject({
      claw: 'bot-a',
      deployment: run.outputs['deployment-id'],
      outcome: 'succeeded',
      run: '4301',
      commit: SHA,
      committedAt: new Date(T - 2 * HOUR).toISOString(),
      actor: 'octo-cat',
    });
    expect(typeof record.durationMs).toBe('number');

    const health = await world.run(T + HOUR, { 'claw-id': '*' });
    expect(health.exitCode).toBe(0);
    expect(health.warnings).toEqual([]);
    expect(dora().overall['7']).toMatchObject({ deployments: 1, changeFailureRate: { failed: 0, total: 1 } });
    expect(health.summary).toContain('#### Deployments: the figures teams track');
    expect(github.repo.file(BRANCH, 'index.html')).toContain('<h2 id="dora">Delivery: the four DORA figures</h2>');
  });

  it('a fleet appends one record per Claw in one commit', async () => {
    const { sim, github } = await world.start({ speed: 20 });
    const claws = Array.from({ length: 12 }, (_, i) => `c${i + 1}`);
    for (const id of claws) sim.addClaw(id, { plan: LIVE });
    const run = await deploy(T, { 'claw-id': claws.join(', '), waves: '2, 100%' });
    expect(run.exitCode).toBe(0);
    expect(github.repo.log(BRANCH)).toHaveLength(1);
    const records = lines().map(
      (l) => JSON.parse(unsealLine(l, SEAL, 'deployment-record 2026-11')!) as DeploymentRecord,
    );
    expect(records.map((r) => r.claw).sort()).toEqual([...claws].sort());
    expect(records.every((r) => r.outcome === 'succeeded')).toBe(true);
  });

  it('a forged verdict, a record copied to another Claw or month: ignored and counted; the genuine one counts once', async () => {
    const { sim, github } = await world.start({ speed: 20 });
    sim.addClaw('bot-a', { plan: LIVE });
    sim.addClaw('bot-b');
    await deploy(T, { 'claw-id': 'bot-a' });
    const [genuine] = lines();
    const content = unsealLine(genuine, SEAL, 'deployment-record 2026-11')!;
    const forged = JSON.parse(content) as Record<string, unknown>;
    github.repo.push(BRANCH, {
      [MONTH]: [
        genuine,
        // Unsealed: bot-b "regressed" at its gate; and bot-a's record with its outcome changed.
        JSON.stringify({ ...forged, claw: 'bot-b', deployment: 'dep_forged', behaviour: 'regressed' }),
        genuine.replace('"succeeded"', '"failed"'),
        // The genuine line copied to another Claw, and copied verbatim (one deployment).
        genuine.replace('"claw":"bot-a"', '"claw":"bot-b"'),
        genuine,
      ].join('\n'),
      // The genuine line copied into October's file.
      'history/deployments/2026-10.ndjson': `${genuine}\n`,
    });
    const health = await world.run(T + HOUR, { 'claw-id': '*' });
    expect(health.exitCode).toBe(0);
    // The copy in October's file is not among the action's parts (its sealed index): never read, named once.
    expect(health.warnings).toEqual([
      "History: ignored 4 line(s) on 'claw-health': 3 not sealed by this action, 1 repeating a line already read. Only lines this action wrote count.",
      "History: skipped 1 file(s) on 'claw-health' (249 bytes) that are not among this action's parts: history/deployments/2026-10.ndjson. Its own parts are named by its sealed index and read first; only lines it sealed count.",
    ]);
    expect(dora().overall['30']).toMatchObject({ deployments: 1, changeFailureRate: { failed: 0, total: 1 } });
  });

  it("a flood of 100,000 record lines beside the action's own part: never fetched, named once; the genuine record counts, in bounded memory", async () => {
    const { sim, github } = await world.start({ speed: 20 });
    sim.addClaw('bot-a', { plan: LIVE });
    await deploy(T, { 'claw-id': 'bot-a' });
    const [genuine] = lines();
    // Records that look sealed (each costs a seal check), in parts of ~1 MiB as a run would write.
    const fake = (i: number): string =>
      deploymentLine({ ...base, deployment: `dep_${i}` }, sealKey('not-the-key', 'octo/claws'));
    const base: DeploymentRecord = {
      at: T - HOUR,
      claw: 'bot-a',
      deployment: 'x',
      outcome: 'failed',
      run: '1',
      behaviour: 'regressed',
    };
    const files: Record<string, string> = {};
    const perPart = Math.floor((1024 * 1024) / (fake(0).length + 1));
    let part = 2;
    for (let i = 0; i < 100_000; i += perPart, part++) {
      const chunk = Array.from({ length: Math.min(perPart, 100_000 - i) }, (_, j) => fake(i + j));
      files[`history/deployments/2026-11.${part}.ndjson`] = `${chunk.join('\n')}\n`;
    }
    github.repo.push(BRANCH, files);
    github.requests.length = 0;
    const health = await world.run(T + HOUR, { 'claw-id': '*' }, { measureRss: true, killAfterMs: 120_000 });
    expect(health.exitCode).toBe(0);
    const fetched = github.requests.filter((r) => r.method === 'GET' && r.path.includes('/git/blobs/')).length;
    // The index and the action's own part: the pushed parts are not among them.
    expect(fetched).toBeLessThanOrEqual(2);
    expect(health.warnings).toHaveLength(1);
    expect(health.warnings[0]).toMatch(
      new RegExp(
        `^History: skipped ${part - 2} file\\(s\\) on 'claw-health' \\(\\d+ bytes\\) that are not among this action's parts: history/deployments/2026-11\\.`,
      ),
    );
    expect(lines()).toEqual([genuine]);
    expect(dora().overall['7']).toMatchObject({ deployments: 1, changeFailureRate: { failed: 0, total: 1 } });
    // A bound on memory, far above a normal run's (~100 MB) and far below the flood's 30 MB × copies.
    expect(health.peakRssKb).toBeLessThan(400 * 1024);
  });

  it('a month of three deployments, one failed and rolled back: the figures equal a hand count', async () => {
    const { sim, github } = await world.start({ speed: 20, rollbackForm: 'new-deployment' });
    const bot = sim.addClaw('bot-a', { plan: LIVE });
    const DAY = 24 * HOUR;
    const start = T - 25 * DAY;
    const shas = ['a', 'b', 'c'].map((c) => c.repeat(40));
    // Each commit made 3, 5 and 7 hours before its deployment.
    shas.forEach((sha, i) =>
      github.repo.codeCommits.set(sha, new Date(start + i * 10 * DAY - (3 + 2 * i) * HOUR).toISOString()),
    );
    const deployAt = (i: number, extra: Record<string, string> = {}) =>
      world.run(
        start + i * 10 * DAY,
        { command: 'deploy', history: BRANCH, 'status-page': 'false', 'claw-id': 'bot-a', ...extra },
        { env: { ...DEPLOY_ENV, GITHUB_SHA: shas[i] } },
      );
    expect((await deployAt(0)).exitCode).toBe(0);
    await world.run(start + HOUR, { 'claw-id': '*' });
    bot.plan = [['pending', 1000], ['crashed']];
    const failed = await deployAt(1, { 'auto-rollback': 'true' });
    expect(failed.outputs['rolled-back']).toBe('true');
    // Healthy again at the next health run, two hours after the failure.
    await world.run(start + 10 * DAY + 2 * HOUR, { 'claw-id': '*' });
    bot.plan = LIVE;
    expect((await deployAt(2)).exitCode).toBe(0);
    const last = await world.run(start + 25 * DAY, { 'claw-id': '*' });
    expect(last.exitCode).toBe(0);
    const figures = (
      dora().overall as unknown as Record<string, Record<string, Record<string, number | null> | number>>
    )['30'];
    // By DORA's definitions: the crashed deployment never went live (rolled back to the one before):
    // 2 deployments in 30 days and 1 attempt not live; neither live one needed a remedy (0 / 2);
    // lead times 3 h and 7 h (median 5 h).
    expect(figures).toMatchObject({
      days: 30,
      deployments: 2,
      notLive: 1,
      perWeek: 0.47,
      changeFailureRate: { failed: 0, total: 2 },
      recoveryMs: { n: 0, open: 0 },
      leadTimeMs: { n: 2, from: { firstCommit: 0, merged: 0, headCommit: 2 } },
    });
    const near = (value: unknown, ms: number): void => {
      // The run's own seconds (each deploy takes a few) are in the record's time, never minutes.
      expect(value as number).toBeGreaterThanOrEqual(ms - 60_000);
      expect(value as number).toBeLessThanOrEqual(ms + 60_000);
    };
    near((figures.leadTimeMs as Record<string, number>).median, 5 * HOUR);
    expect(dora().overall['7']).toMatchObject({ deployments: 1, changeFailureRate: { failed: 0, total: 1 } });
  });

  it('the rollback command records the deployment it rolled back, by Claw or by id alone', async () => {
    const { sim } = await world.start({ speed: 20, rollbackForm: 'new-deployment' });
    sim.addClaw('bot-a');
    sim.addDeployment('bot-a', [['live']], 'dep_one');
    const byClaw = await deploy(T, { command: 'rollback', 'claw-id': 'bot-a' });
    expect(byClaw.exitCode).toBe(0);
    sim.addDeployment('bot-a', [['live']], 'dep_two');
    const byId = await deploy(T + HOUR, { command: 'rollback', 'claw-id': '', 'deployment-id': 'dep_two' });
    expect(byId.exitCode).toBe(0);
    const records = lines().map(
      (l) => JSON.parse(unsealLine(l, SEAL, 'deployment-record 2026-11')!) as Record<string, unknown>,
    );
    expect(records).toMatchObject([
      { claw: 'bot-a', deployment: 'dep_one', outcome: 'rolled-back', rollback: byClaw.outputs['rollback-id'] },
      { claw: 'bot-a', deployment: 'dep_two', outcome: 'rolled-back', rollback: byId.outputs['rollback-id'] },
    ]);
  });
});
