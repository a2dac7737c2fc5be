// Deployment records written to the history branch and read back, through the GitHub host against
// the fake GitHub API (real HTTP): one commit per run whatever the Claws, sealed lines only, a copy
// counted once, a record moved to another month or edited to another Claw never read.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../test/sim/github.ts';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import { connectGitHub } from '../github/connection.js';
import { githubHealthHost } from '../github/health-host.js';
import { githubRun } from '../shared/workflow-run.js';
import { sealKey } from '../shared/seal.js';
import { appendDeploymentRecords, deploymentLine, keepDeploymentRecords } from './deployment-log.js';
import { type DeploymentRecord, deploymentRecordJson } from './deployment-records.js';
import { HealthHistory } from './history.js';
import type { HealthHost } from './host.js';
import { sealLine } from './sealed-line.js';

let github: FakeGitHub | undefined;
afterEach(async () => {
  await github?.stop();
  github = undefined;
});

const BRANCH = 'claw-health';
const T0 = Date.parse('2026-11-22T12:00:00Z');
const DAY = 24 * 3600_000;
const SEAL = sealKey('sim-key', 'octo/claws');
const SHA = 'c0ffee'.padEnd(40, '0');

async function start(): Promise<{ fake: FakeGitHub; host: HealthHost; clock: FakeClock; log: RecordingLogger }> {
  const clock = new FakeClock(T0);
  const fake = new FakeGitHub({ now: clock.now });
  github = fake;
  const url = await fake.start();
  const run = githubRun({ GITHUB_REPOSITORY: 'octo/claws', GITHUB_API_URL: url, GITHUB_RUN_ID: '7' });
  return { fake, host: githubHealthHost(connectGitHub('ghs_token', run), BRANCH), clock, log: new RecordingLogger() };
}

const record = (claw: string, at = T0, extra: Partial<DeploymentRecord> = {}): DeploymentRecord => ({
  at,
  claw,
  deployment: `dep_${claw}`,
  outcome: 'succeeded',
  run: '7',
  strategy: 'rolling',
  durationMs: 42_000,
  commit: SHA,
  committedAt: at - 3600_000,
  actor: 'octo-cat',
  behaviour: 'unchanged',
  passRate: { before: 0.9, beforeN: 30, after: 0.93, afterN: 30, low: -0.08, high: 0.14 },
  ...extra,
});

const load = async (host: HealthHost, clock: FakeClock, log: RecordingLogger, now = T0 + 60_000) =>
  (await new HealthHistory(host.branch, { clock, log, name: BRANCH, seal: SEAL }).load(now)).deployments;

const append = (host: HealthHost, clock: FakeClock, log: RecordingLogger, records: DeploymentRecord[]) =>
  appendDeploymentRecords(host.branch, records, { clock, log, name: BRANCH, seal: SEAL }, 'deployments');

describe('deployment records on the history branch', () => {
  it('are written sealed in their month’s file and read back field by field', async () => {
    const { fake, host, clock, log } = await start();
    const written = [record('bot-a'), record('bot-b', T0 + 1000, { outcome: 'failed', rollback: 'dep_rb' })];
    await append(host, clock, log, written);
    expect(fake.repo.files(BRANCH)).toEqual(['history/deployments/2026-11.ndjson', 'history/index.json']);
    const lines = fake.repo.file(BRANCH, 'history/deployments/2026-11.ndjson')!.split('\n').filter(Boolean);
    expect(lines).toEqual(written.map((r) => deploymentLine(r, SEAL)));
    expect(lines[0]).toMatch(/,"seal":"[A-Za-z0-9_-]{43}"}$/);
    expect(await load(host, clock, log)).toEqual(written);
    expect(log.text('warning')).toBe('');
  });

  it('write a fleet of 1,000 Claws in one commit of a few calls, appended to what is there', async () => {
    const { fake, host, clock, log } = await start();
    await append(host, clock, log, [record('first')]);
    fake.requests.length = 0;
    const fleet = Array.from({ length: 1000 }, (_, i) => record(`claw-${i}`));
    const cost = await append(host, clock, log, fleet);
    expect(cost).toMatchObject({ attempts: 1, reads: 1 });
    // ref, commit, tree listing, the index, the month's last part; a tree, a commit, the ref.
    expect(fake.requests).toHaveLength(8);
    expect(fake.repo.log(BRANCH)).toHaveLength(2);
    const read = await load(host, clock, log);
    expect(read).toHaveLength(1001);
    expect(new Set(read.map((r) => r.claw)).size).toBe(1001);
  });

  it('ignore unsealed, edited, re-kinded and misplaced lines, and count a copy once', async () => {
    const { fake, host, clock, log } = await start();
    const genuine = record('bot-a', T0 - 30 * DAY); // October
    const october = deploymentLine(genuine, SEAL);
    await append(host, clock, log, [genuine, record('bot-b')]);
    const json = (r: DeploymentRecord): string => JSON.stringify(deploymentRecordJson(r));
    const november = fake.repo.file(BRANCH, 'history/deployments/2026-11.ndjson')!;
    fake.repo.push(BRANCH, {
      'history/deployments/2026-11.ndjson': [
        november.trim(),
        // A forged verdict without the seal, and one with a seal that no longer matches.
        json(record('bot-c', T0, { behaviour: 'improved' })),
        deploymentLine(record('bot-b'), SEAL).replace('"unchanged"', '"regressed"'),
        // The genuine October line moved into November's file; a line copied to another Claw.
        october,
        october.replace('"claw":"bot-a"', '"claw":"bot-z"'),
        // A health line's seal on a deployment record: another kind, not this one.
        sealLine(json(record('bot-d')), SEAL),
        sealLine(json(record('bot-e')), SEAL, 'deployment-record 2026-10'),
        // A copy of a genuine line: one deployment, read once.
        deploymentLine(record('bot-b'), SEAL),
      ].join('\n'),
    });
    const read = await load(host, clock, log);
    expect(read.map((r) => r.claw)).toEqual(['bot-a', 'bot-b']);
    expect(read.find((r) => r.claw === 'bot-b')?.behaviour).toBe('unchanged');
    expect(log.text('warning')).toContain(
      "ignored 7 line(s) on 'claw-health': 6 not sealed by this action, 1 repeating a line already read.",
    );
  });

  it('read the parts the index names, and neither read nor write over a pushed part larger than any run writes', async () => {
    const { fake, host, clock, log } = await start();
    await append(host, clock, log, [record('bot-a')]);
    const huge = 'x'.repeat(6 * 1024 * 1024);
    fake.repo.push(BRANCH, { 'history/deployments/2026-11.2.ndjson': huge });
    fake.requests.length = 0;
    expect((await load(host, clock, log)).map((r) => r.claw)).toEqual(['bot-a']);
    expect(log.text('warning')).toContain(
      "skipped 1 file(s) on 'claw-health' (6291456 bytes) that are not among this action's parts: history/deployments/2026-11.2.ndjson.",
    );
    // The index and the own part: the pushed one is never fetched.
    expect(fake.requests.filter((r) => r.path.includes('/git/blobs/'))).toHaveLength(2);
    // The next write appends to the action's own part; the pushed one stays as it was.
    await append(host, clock, log, [record('bot-b', T0 + 1000)]);
    expect(fake.repo.file(BRANCH, 'history/deployments/2026-11.2.ndjson')).toBe(huge);
    expect(fake.repo.file(BRANCH, 'history/deployments/2026-11.ndjson')!.split('\n').filter(Boolean)).toHaveLength(2);
    expect((await load(host, clock, log)).map((r) => r.claw)).toEqual(['bot-a', 'bot-b']);
  });

  it('keep a run’s records with its commit’s time, and only warn when the branch cannot be written', async () => {
    const { fake, host, clock, log } = await start();
    fake.repo.codeCommits.set(SHA, new Date(T0 - 7200_000).toISOString());
    const kept = await keepDeploymentRecords(
      { clock, log },
      { host, branch: BRANCH, seal: SEAL, sha: SHA, actor: 'octo-cat' },
      (facts) => [{ ...facts, claw: 'bot-a', deployment: 'dep_1', outcome: 'succeeded' }],
    );
    expect(kept?.attempts).toBe(1);
    expect(await load(host, clock, log)).toEqual([
      {
        at: T0,
        claw: 'bot-a',
        deployment: 'dep_1',
        outcome: 'succeeded',
        run: '7',
        commit: SHA,
        committedAt: T0 - 7200_000,
        actor: 'octo-cat',
      },
    ]);
    fake.repo.gitWriteStatus = 403;
    const refused = await keepDeploymentRecords(
      { clock, log },
      { host, branch: BRANCH, seal: SEAL, sha: SHA, actor: 'octo-cat' },
      (facts) => [{ ...facts, claw: 'bot-a', deployment: 'dep_2', outcome: 'succeeded' }],
    );
    expect(refused).toBeUndefined();
    expect(log.text('warning')).toMatch(
      /could not record 1 deployment\(s\) on 'claw-health' \(403: give the workflow 'permissions: contents: write'.*the deployment's outcome stands/,
    );
  });
});
