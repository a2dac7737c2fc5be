// The history branch through the GitHub host against the fake GitHub API (real HTTP): month files,
// parts under 1 MiB, daily folding, retention, broken lines, and two runs writing at once.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../test/sim/github.ts';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import { connectGitHub } from '../github/connection.js';
import { githubHealthHost } from '../github/health-host.js';
import { githubRun } from '../shared/workflow-run.js';
import { sealKey } from '../shared/seal.js';
import { HealthHistory, MAX_FILE_BYTES, MAX_READ_BYTES, MAX_READ_FILES } from './history.js';
import type { HistoryBranch } from './host.js';
import { type ClawRecord, type DailyRecord, type RunRecord, recordLine } from './records.js';
import { sealLine } from './sealed-line.js';
import { ownParts } from '../../test/support/own-parts.ts';
import { WATCH_HISTORY_DAYS } from '../compare/watch.js';

let github: FakeGitHub | undefined;
afterEach(async () => {
  await github?.stop();
  github = undefined;
});

const BRANCH = 'claw-health';
const T0 = Date.parse('2026-11-22T12:00:00Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function start(): Promise<{ fake: FakeGitHub; branch: HistoryBranch; clock: FakeClock; log: RecordingLogger }> {
  const clock = new FakeClock(T0);
  const fake = new FakeGitHub({ now: clock.now });
  github = fake;
  const url = await fake.start();
  const run = githubRun({ GITHUB_REPOSITORY: 'octo/claws', GITHUB_API_URL: url, GITHUB_RUN_ID: '7' });
  const host = githubHealthHost(connectGitHub('ghs_token', run), BRANCH);
  return { fake, branch: host.branch, clock, log: new RecordingLogger() };
}

const SEAL = sealKey('sim-key', 'octo/claws');
const history = (
  branch: HistoryBranch,
  clock: FakeClock,
  log: RecordingLogger,
  known?: ReadonlySet<string>,
): HealthHistory => new HealthHistory(branch, { clock, log, name: BRANCH, seal: SEAL, known });
/** A record's line as a run writes it: sealed. */
const sealed = (r: RunRecord | DailyRecord): string => sealLine(recordLine(r), SEAL);

const record = (at: number, claw = 'bot-a', status: ClawRecord['status'] = 'healthy', run = '7'): ClawRecord => ({
  at,
  run,
  claw,
  status,
  latencyMs: 420,
});

const none = (): [] => [];

describe('HealthHistory', () => {
  it('creates the orphan branch with this month’s file, then appends to it in a few calls', async () => {
    const { fake, branch, clock, log } = await start();
    const first = await history(branch, clock, log).save(T0, [record(T0), record(T0, 'bot-b')], none, 'health 1');
    expect(first.attempts).toBe(1);
    expect(fake.repo.files(BRANCH)).toEqual(['history/2026-11.ndjson', 'history/index.json']);
    expect(fake.repo.log(BRANCH)).toHaveLength(1);
    expect(fake.repo.log(BRANCH)[0].parents).toEqual([]);

    fake.requests.length = 0;
    const records: RunRecord[] = Array.from({ length: 40 }, (_, i) => record(T0 + HOUR, `bot-${i}`));
    await history(branch, clock, log).save(T0 + HOUR, records, none, 'health 2');
    const text = fake.repo.file(BRANCH, 'history/2026-11.ndjson')!;
    expect(text.split('\n').filter(Boolean)).toHaveLength(42);
    expect(text.startsWith(sealed(record(T0)))).toBe(true);
    // ref, commit, tree listing, the index, the month's file; a tree, a commit, the ref: 8 whatever
    // the Claws.
    expect(fake.requests.map((r) => `${r.method} ${r.path.split('?')[0].replace(/[0-9a-f]{40}/, ':sha')}`)).toEqual([
      'GET /repos/octo/claws/git/ref/heads%2Fclaw-health',
      'GET /repos/octo/claws/git/commits/:sha',
      'GET /repos/octo/claws/git/trees/:sha',
      'GET /repos/octo/claws/git/blobs/:sha',
      'GET /repos/octo/claws/git/blobs/:sha',
      'POST /repos/octo/claws/git/trees',
      'POST /repos/octo/claws/git/commits',
      'PATCH /repos/octo/claws/git/refs/heads%2Fclaw-health',
    ]);
  });

  it("early in a month, with every day folded, reads the last month's raw runs too: the watch's four weeks before", async () => {
    const { fake, branch, clock, log } = await start();
    const now = Date.parse('2026-12-03T12:00:00Z');
    clock.t = now;
    const runs = (from: string, days: number) =>
      Array.from({ length: days * 4 }, (_, k) => record(Date.parse(from) + k * 6 * HOUR));
    const folded = ['2026-11-05', '2026-12-02'].map((day) => ({
      day,
      claw: 'bot-a',
      runs: 4,
      healthy: 4,
      unhealthy: 0,
      unknown: 0,
      deployments: [],
    }));
    fake.repo.push(
      BRANCH,
      ownParts(
        {
          'history/2026-11.ndjson': runs('2026-11-01T00:00:00Z', 30)
            .map((r) => `${sealed(r)}\n`)
            .join(''),
          'history/2026-12.ndjson': runs('2026-12-01T00:00:00Z', 2)
            .map((r) => `${sealed(r)}\n`)
            .join(''),
          'history/daily/2026-11.ndjson': `${sealed(folded[0])}\n`,
          'history/daily/2026-12.ndjson': `${sealed(folded[1])}\n`,
        },
        SEAL,
      ),
    );
    const { recent } = await history(branch, clock, log).load(now);
    // The watch fits drift on the weeks before its baseline and excursion (WATCH_HISTORY_DAYS, more
    // than the month's three days): November's runs are read, not only December's.
    expect(WATCH_HISTORY_DAYS).toBeGreaterThan(28);
    expect(recent[0].at).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(recent).toHaveLength(32 * 4);
  });

  it('skips a broken line with one warning, and never rewrites it', async () => {
    const { fake, branch, clock, log } = await start();
    const good = sealed(record(T0 - HOUR));
    const forged = JSON.stringify({ at: new Date(T0).toISOString(), run: '1', claw: '../etc', status: 'healthy' });
    const bad = sealLine(
      JSON.stringify({ at: new Date(T0).toISOString(), run: '1', claw: '../etc', status: 'healthy' }),
      SEAL,
    );
    fake.repo.push(BRANCH, ownParts({ 'history/2026-11.ndjson': `${good}\n{not json\n${forged}\n${bad}\n` }, SEAL));
    const store = history(branch, clock, log);
    const view = await store.load(T0);
    expect(view.recent).toEqual([record(T0 - HOUR)]);
    await store.save(T0, [record(T0)], none, 'health');
    const warnings = log.lines.filter((l) => l.level === 'warning').map((l) => l.message);
    expect(warnings).toEqual([
      "History: ignored 3 line(s) on 'claw-health': 2 not sealed by this action, 1 not a usable record. Only lines this action wrote count.",
    ]);
    expect(fake.repo.file(BRANCH, 'history/2026-11.ndjson')).toBe(
      `${good}\n{not json\n${forged}\n${bad}\n${sealed(record(T0))}\n`,
    );
  });

  it('two runs that write at once both land: the second reads again and appends', async () => {
    const { fake, branch, clock, log } = await start();
    await history(branch, clock, log).save(T0, [record(T0)], none, 'health 1');
    fake.repo.holdBranchReads(2);
    const [a, b] = await Promise.all([
      history(branch, clock, log).save(T0 + HOUR, [record(T0 + HOUR, 'bot-a', 'healthy', '8')], none, 'run 8'),
      history(branch, clock, log).save(T0 + HOUR, [record(T0 + HOUR, 'bot-a', 'unhealthy', '9')], none, 'run 9'),
    ]);
    expect([a.attempts, b.attempts].sort()).toEqual([1, 2]);
    const runs = fake.repo
      .file(BRANCH, 'history/2026-11.ndjson')!
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { run: string }).run);
    expect(runs.sort()).toEqual(['7', '8', '9']);
    expect(log.text('info')).toContain(
      "History: the branch 'claw-health' moved while this run wrote; reading it again.",
    );
  });

  it('continues a full month file in a new part, no file over 1 MiB', async () => {
    const { fake, branch, clock, log } = await start();
    const line = sealed(record(T0 - DAY));
    const lines = Math.floor((MAX_FILE_BYTES - 200) / (line.length + 1));
    fake.repo.push(BRANCH, ownParts({ 'history/2026-11.ndjson': `${line}\n`.repeat(lines) }, SEAL));
    const records = Array.from({ length: 10 }, (_, i) => record(T0, `bot-${i}`));
    await history(branch, clock, log).save(T0, records, none, 'health');
    const first = fake.repo.file(BRANCH, 'history/2026-11.ndjson')!;
    const second = fake.repo.file(BRANCH, 'history/2026-11.2.ndjson')!;
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(MAX_FILE_BYTES);
    expect(first.split('\n').filter(Boolean).length + second.split('\n').filter(Boolean).length).toBe(lines + 10);
    // The next run appends to the last part.
    await history(branch, clock, log).save(T0 + HOUR, [record(T0 + HOUR)], none, 'health');
    expect(fake.repo.file(BRANCH, 'history/2026-11.2.ndjson')!.trim().split('\n').at(-1)).toBe(
      sealed(record(T0 + HOUR)),
    );
    // Yesterday's records were folded (the full part was read whole to find the day's first ones).
    expect(fake.repo.files(BRANCH)).toEqual([
      'history/2026-11.2.ndjson',
      'history/2026-11.ndjson',
      'history/daily/2026-11.ndjson',
      'history/index.json',
    ]);
  });

  it('folds a finished day into daily lines, and deletes raw months past 90 days once folded', async () => {
    const { fake, branch, clock, log } = await start();
    const yesterday = T0 - DAY;
    const old = Date.parse('2026-07-15T08:00:00Z');
    fake.repo.push(
      BRANCH,
      ownParts(
        {
          'history/2026-07.ndjson': `${sealed(record(old))}\n`,
          'history/daily/2026-07.ndjson': `${sealed({ day: '2026-07-15', claw: 'bot-a', runs: 1, healthy: 1, unhealthy: 0, unknown: 0, deployments: [] })}\n`,
          'history/daily/2026-11.ndjson': `${sealed({ day: '2026-11-20', claw: 'bot-a', runs: 1, healthy: 1, unhealthy: 0, unknown: 0, deployments: [] })}\n`,
          'history/2026-11.ndjson': [
            record(Date.parse('2026-11-20T10:00:00Z')),
            { ...record(yesterday), latencyMs: 100, deployment: 'dep_1' },
            { ...record(yesterday + HOUR, 'bot-a', 'unhealthy'), latencyMs: 900, deployment: 'dep_2' },
            record(yesterday + 2 * HOUR, 'bot-b', 'unknown'),
            record(T0 - HOUR),
          ]
            .map((r) => `${sealed(r)}\n`)
            .join(''),
        },
        SEAL,
      ),
    );
    const { view } = await history(branch, clock, log).save(T0, [record(T0)], none, 'health');
    const daily = fake.repo
      .file(BRANCH, 'history/daily/2026-11.ndjson')!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map(({ seal, ...rest }) => (expect(seal).toMatch(/^[\w-]{43}$/), rest));
    expect(daily.slice(1)).toEqual([
      {
        day: '2026-11-21',
        claw: 'bot-a',
        runs: 2,
        healthy: 1,
        unhealthy: 1,
        unknown: 0,
        deployments: ['dep_1', 'dep_2'],
        latencyP50: 100,
        latencyP95: 900,
      },
      { day: '2026-11-21', claw: 'bot-b', runs: 1, healthy: 0, unhealthy: 0, unknown: 1, deployments: [] },
    ]);
    expect(view.daily.map((d) => `${d.day} ${d.claw}`)).toEqual([
      '2026-11-20 bot-a',
      '2026-11-21 bot-a',
      '2026-11-21 bot-b',
    ]);
    // July ended more than 90 days ago and is folded: its raw file goes, its daily lines stay.
    expect(fake.repo.files(BRANCH)).toEqual([
      'history/2026-11.ndjson',
      'history/daily/2026-07.ndjson',
      'history/daily/2026-11.ndjson',
      'history/index.json',
    ]);
    // A second run the same day folds nothing again.
    await history(branch, clock, log).save(T0 + HOUR, [record(T0 + HOUR)], none, 'health');
    expect(fake.repo.file(BRANCH, 'history/daily/2026-11.ndjson')!.trim().split('\n')).toHaveLength(3);
  });

  it("a file too large to be a run's (30 MB) is skipped unread with one warning naming it; the rest is read and written", async () => {
    const { fake, branch, clock, log } = await start();
    const line = sealed(record(T0 - HOUR));
    const huge = `${line}\n`.repeat(Math.ceil((30 * 1024 * 1024) / (line.length + 1)));
    fake.repo.push(
      BRANCH,
      ownParts(
        {
          'history/2026-11.ndjson': huge,
          'history/2026-10.ndjson': `${sealed(record(T0 - 30 * DAY))}\n`,
        },
        SEAL,
      ),
    );
    fake.requests.length = 0;
    const store = history(branch, clock, log);
    const view = await store.load(T0);
    expect(view.recent).toEqual([record(T0 - 30 * DAY)]);
    await store.save(T0, [record(T0)], none, 'health');
    expect(log.lines.filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([
      "History: skipped history/2026-11.ndjson on 'claw-health': 30.0 MiB, over the 5 MiB this action ever writes to a file. It is left as it is; the run goes on without it.",
    ]);
    // Never fetched, never rewritten: this run's lines went to a new part (the index and October read).
    expect(fake.requests.filter((r) => r.path.includes('/git/blobs/'))).toHaveLength(2);
    expect(fake.repo.file(BRANCH, 'history/2026-11.ndjson')).toBe(huge);
    expect(fake.repo.file(BRANCH, 'history/2026-11.2.ndjson')).toBe(`${sealed(record(T0))}\n`);
  });

  it('ignores unsealed lines (1,000 forged Claws, 99.9999% uptime), a future-dated healthy line and unknown Claws, in one warning', async () => {
    const { fake, branch, clock, log } = await start();
    const forged = Array.from({ length: 1000 }, (_, i) => recordLine(record(T0 - HOUR, `forged-${i}`)));
    const uptime = Array.from({ length: 100 }, (_, i) => recordLine(record(T0 - 2 * HOUR - i * 60_000, 'bot-a')));
    const future = sealed(record(T0 + 59 * 60_000, 'bot-a', 'healthy'));
    const gone = sealed(record(T0 - HOUR, 'bot-gone', 'healthy'));
    const own = sealed(record(T0 - HOUR, 'bot-a', 'unhealthy'));
    // A sealed line with a field changed is not sealed any more.
    const edited = own.replace('"unhealthy"', '"healthy"');
    fake.repo.push(
      BRANCH,
      ownParts(
        {
          'history/2026-11.ndjson': [...forged, ...uptime, future, gone, own, edited].join('\n') + '\n',
        },
        SEAL,
      ),
    );
    const view = await history(branch, clock, log, new Set(['bot-a'])).load(T0);
    expect(view.recent).toEqual([record(T0 - HOUR, 'bot-a', 'unhealthy')]);
    expect(log.lines.filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([
      "History: ignored 1103 line(s) on 'claw-health': 1101 not sealed by this action, 1 dated in the future, 1 naming a Claw the service does not list. Only lines this action wrote count.",
    ]);
  });

  it('a branch from before the index is read by names once and its parts adopted; an index edited by hand is refused with a warning, nothing lost', async () => {
    const { fake, branch, clock, log } = await start();
    // Written by an earlier version: sealed lines, no index.
    fake.repo.push(BRANCH, { 'history/2026-11.ndjson': `${sealed(record(T0 - HOUR))}\n` });
    await history(branch, clock, log).save(T0, [record(T0)], none, 'health');
    expect(log.text('info')).toContain("History: 'claw-health' has no index of this action's parts");
    expect(log.text('warning')).toBe('');
    const index = fake.repo.file(BRANCH, 'history/index.json')!;
    expect(index).toContain('"path":"history/2026-11.ndjson"');
    // Anyone with push access edits the index to name a part of theirs: its seal fails.
    fake.repo.push(BRANCH, {
      'history/index.json': index.replace('history/2026-11.ndjson', 'history/2099-12.ndjson'),
      'history/2099-12.ndjson': 'x\n',
    });
    const view = await history(branch, clock, log).load(T0 + HOUR);
    expect(view.recent).toEqual([record(T0 - HOUR), record(T0)]);
    expect(log.text('warning')).toContain(
      "History: the index of this action's parts on 'claw-health' (history/index.json) was not used: it does not carry this action’s seal. Read by file names this once; the next commit writes it again.",
    );
    await history(branch, clock, log).save(T0 + HOUR, [record(T0 + HOUR)], none, 'health');
    const again = fake.repo.file(BRANCH, 'history/index.json')!;
    expect(again).toContain('"path":"history/2026-11.ndjson"');
    expect(again).not.toContain('2099-12');
  });

  it('a branch sealed wholly under another key (an API key rotated without state-secret): its lines and its index are said in one warning', async () => {
    const { fake, branch, clock, log } = await start();
    await history(branch, clock, log).save(T0, [record(T0)], none, 'health');
    expect(fake.repo.file(BRANCH, 'history/index.json')).toBeDefined();
    const rotated = sealKey('rotated-key', 'octo/claws');
    const view = await new HealthHistory(branch, { clock, log, name: BRANCH, seal: rotated }).load(T0 + HOUR);
    expect(view.recent).toEqual([]);
    expect(log.lines.filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([
      "History: ignored 1 line(s) on 'claw-health': 1 not sealed by this action. Only lines this action wrote count. Its index (history/index.json) is not sealed by this action either (sealed under another key): read by file names this once; the next commit writes it again.",
    ]);
  });

  it('throws when the branch cannot be read, and when it cannot be written', async () => {
    const { fake, branch, clock, log } = await start();
    fake.repo.gitStatus = 403;
    await expect(history(branch, clock, log).load(T0)).rejects.toMatchObject({ status: 403 });
    fake.repo.gitStatus = undefined;
    fake.repo.gitWriteStatus = 403;
    await expect(history(branch, clock, log).save(T0, [record(T0)], none, 'health')).rejects.toMatchObject({
      status: 403,
    });
  });
  describe('one budget for the whole read (issue 39)', () => {
    const blobs = (fake: FakeGitHub) => fake.requests.filter((r) => r.path.includes('/git/blobs/')).length;
    const padding = (bytes: number): string => `${'x'.repeat(99)}\n`.repeat(Math.ceil(bytes / 100));

    it('240 padded parts without a sealed line, raw and daily, do not make 480 blob fetches; the newest records still count', async () => {
      const { fake, branch, clock, log } = await start();
      const files: Record<string, string> = {};
      for (let part = 2; part <= 241; part++) {
        files[`history/2026-10.${part}.ndjson`] = padding(20_000);
        files[`history/daily/2026-10.${part}.ndjson`] = padding(20_000);
      }
      // The newest part holds this month's real records: a Claw down twice.
      files['history/2026-11.ndjson'] = [
        record(T0 - 2 * HOUR, 'bot-a', 'unhealthy'),
        record(T0 - HOUR, 'bot-a', 'unhealthy'),
      ]
        .map(sealed)
        .join('\n');
      fake.repo.push(BRANCH, files);
      fake.requests.length = 0;
      const store = history(branch, clock, log);
      const view = await store.load(T0);
      expect(blobs(fake)).toBeLessThanOrEqual(MAX_READ_FILES);
      expect(view.recent).toEqual([
        record(T0 - 2 * HOUR, 'bot-a', 'unhealthy'),
        record(T0 - HOUR, 'bot-a', 'unhealthy'),
      ]);
      const warnings = log.lines.filter((l) => l.level === 'warning').map((l) => l.message);
      const budget = warnings.filter((w) => w.includes('the most one run reads'));
      expect(budget).toHaveLength(1);
      expect(budget[0]).toMatch(/left \d+ unread: history\/daily\/2026-10\.\d+\.ndjson/);
      // The run still writes its record after what it read.
      await store.save(T0, [record(T0, 'bot-a', 'unhealthy')], none, 'health');
      expect(fake.repo.file(BRANCH, 'history/2026-11.ndjson')!.trim().split('\n')).toHaveLength(3);
    });

    it('parts of 1 MiB stop at the byte budget, sealed lines or not', async () => {
      const { fake, branch, clock, log } = await start();
      const files: Record<string, string> = {};
      for (let part = 2; part <= 20; part++) files[`history/2026-11.${part}.ndjson`] = padding(MAX_FILE_BYTES - 200);
      fake.repo.push(BRANCH, files);
      fake.requests.length = 0;
      await history(branch, clock, log).load(T0);
      expect(blobs(fake)).toBeLessThanOrEqual(Math.floor(MAX_READ_BYTES / (MAX_FILE_BYTES - 100)));
      expect(blobs(fake)).toBeGreaterThan(0);
    });
  });
});
