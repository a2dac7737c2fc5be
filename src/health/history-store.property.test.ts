// The history store against a model: random sequences of health runs and deployments written to a
// branch, while anyone with push access adds random files beside them (empty, larger than any run
// writes, future months, part numbers at every width, names that sort first, dozens at once). A
// second branch gets the same runs and no pushed file. After every step, each read of the pushed
// branch gives exactly what the clean one gives (no record hidden or lost, no verdict changed), the
// model's records are all there, and no read fetches more than its budget. PROPERTY_RUNS sets the
// number of sequences (40 in CI).
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import { gitBlobSha } from '../../test/support/own-parts.ts';
import { sealKey } from '../shared/seal.js';
import { appendDeploymentRecords } from './deployment-log.js';
import type { DeploymentRecord } from './deployment-records.js';
import {
  HealthHistory,
  type HistoryView,
  MAX_DEPLOYMENT_READ_BYTES,
  MAX_DEPLOYMENT_READ_FILES,
  MAX_READ_BYTES,
  MAX_READ_FILES,
} from './history.js';
import { folderHealthHost } from './folder-host.js';
import type { BranchFile, BranchSnapshot, FileChange, HistoryBranch } from './host.js';
import type { ClawRecord } from './records.js';
import { MAX_INDEX_BYTES } from './store-index.js';

const RUNS = Number(process.env.PROPERTY_RUNS) || 40;
const T0 = Date.parse('2026-11-27T00:00:00Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const SEAL = sealKey('sim-key', 'octo/claws');
const CLAWS = ['bot-a', 'bot-b'];
/** What a pushed file holds, by name (so a counterexample prints short): one string each, shared. */
const CONTENTS: Record<string, string> = {
  empty: '',
  line: 'x\n',
  // Larger than any part a run writes (5 MiB): never read.
  huge: `${'x'.repeat(99)}\n`.repeat(56_000),
  // Lines as a run writes them, without the seal: 160 KB.
  padding: '{"at":"2026-11-27T00:00:00.000Z","run":"1","claw":"bot-a","status":"healthy"}\n'.repeat(2000),
  text: 'not a record',
};
const HUGE = 'huge';

/** A branch in memory, as the git data API shows it: blobs by sha, a head that moves per commit. */
class MemoryBranch implements HistoryBranch {
  private files = new Map<string, BranchFile & { text: string }>();
  private head = 0;
  reads = { files: 0, bytes: 0 };

  blobSha = gitBlobSha;

  snapshot(): Promise<BranchSnapshot | undefined> {
    if (this.head === 0) return Promise.resolve(undefined);
    const files = [...this.files.values()].map(({ path, sha, size }) => ({ path, sha, size }));
    return Promise.resolve({ commit: String(this.head), tree: String(this.head), files });
  }

  read(file: BranchFile): Promise<string> {
    const found = [...this.files.values()].find((f) => f.sha === file.sha);
    if (!found) return Promise.reject(new Error(`no blob ${file.sha}`));
    this.reads.files += 1;
    this.reads.bytes += found.size;
    return Promise.resolve(found.text);
  }

  commit(parent: BranchSnapshot | undefined, changes: FileChange[]): Promise<'written' | 'conflict'> {
    if ((parent?.commit ?? '0') !== String(this.head)) return Promise.resolve('conflict');
    for (const change of changes) {
      if (change.content === null) this.files.delete(change.path);
      else this.put(change.path, change.content);
    }
    this.head += 1;
    return Promise.resolve('written');
  }

  /** Files pushed by someone else beside the action's (a file it wrote, replaced, is lost to it): one commit. */
  push(files: [string, string][]): void {
    for (const [path, content] of files) if (!this.files.has(path)) this.put(path, CONTENTS[content]);
    this.head += 1;
  }

  paths(): string[] {
    return [...this.files.keys()];
  }

  private put(path: string, text: string): void {
    this.files.set(path, { path, text, sha: gitBlobSha(text), size: Buffer.byteLength(text, 'utf8') });
  }
}

type Step =
  | { kind: 'health'; hours: number; statuses: ('healthy' | 'unhealthy')[] }
  | { kind: 'deploy'; hours: number; claw: number; outcome: 'succeeded' | 'failed' }
  | { kind: 'push'; files: [string, string][] };

const foreignFile: fc.Arbitrary<[string, string]> = fc
  .tuple(
    fc.constantFrom('history', 'history/daily', 'history/deployments'),
    // Names that sort first, the action's own months, a month ahead, one far in the future.
    fc.constantFrom('0000-00', '2000-01', '2026-11', '2026-12', '2027-01', '2099-12'),
    fc.oneof(
      fc.constant(1),
      fc.integer({ min: 2, max: 9 }),
      fc.integer({ min: 10, max: 99_999 }),
      fc.constantFrom(9999, 10_000, 999_999_999_999_999),
    ),
    fc.constantFrom('empty', 'line', 'huge', 'padding', 'text'),
  )
  .map(([dir, month, part, content]) => [`${dir}/${month}${part === 1 ? '' : `.${part}`}.ndjson`, content]);

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('health' as const),
    hours: fc.integer({ min: 1, max: 40 }),
    statuses: fc.array(fc.constantFrom('healthy' as const, 'unhealthy' as const), {
      minLength: CLAWS.length,
      maxLength: CLAWS.length,
    }),
  }),
  fc.record({
    kind: fc.constant('deploy' as const),
    hours: fc.integer({ min: 1, max: 40 }),
    claw: fc.integer({ min: 0, max: CLAWS.length - 1 }),
    outcome: fc.constantFrom('succeeded' as const, 'failed' as const),
  }),
  fc.record({ kind: fc.constant('push' as const), files: fc.array(foreignFile, { minLength: 1, maxLength: 40 }) }),
);

/** One branch and what the runs wrote to it. */
class World {
  readonly branch = new MemoryBranch();
  readonly clock = new FakeClock(T0);
  readonly log = new RecordingLogger();

  async health(now: number, records: ClawRecord[]): Promise<void> {
    const store = new HealthHistory(this.branch, { clock: this.clock, log: this.log, name: 'claw-health', seal: SEAL });
    await store.load(now);
    await store.save(now, records, () => [], 'health');
  }

  async deploy(record: DeploymentRecord): Promise<void> {
    const deps = { clock: this.clock, log: this.log, name: 'claw-health', seal: SEAL };
    await appendDeploymentRecords(this.branch, [record], deps, 'deploy');
  }

  /** A fresh run's read, and what it fetched. */
  async view(now: number): Promise<{ view: HistoryView; files: number; bytes: number }> {
    this.branch.reads = { files: 0, bytes: 0 };
    const store = new HealthHistory(this.branch, { clock: this.clock, log: this.log, name: 'claw-health', seal: SEAL });
    const view = await store.load(now);
    return { view, ...this.branch.reads };
  }
}

/** The runs in a row each Claw has been unhealthy, newest first: what `confirm` counts. */
const streaks = (view: HistoryView): number[] =>
  CLAWS.map((claw) => {
    const runs = view.recent.filter((r) => 'claw' in r && r.claw === claw).reverse() as ClawRecord[];
    const healthy = runs.findIndex((r) => r.status !== 'unhealthy');
    return healthy < 0 ? runs.length : healthy;
  });

async function play(steps: Step[]): Promise<void> {
  const pushed = new World();
  const clean = new World();
  const health: ClawRecord[] = [];
  const deployments: DeploymentRecord[] = [];
  let now = T0;
  for (const [i, s] of steps.entries()) {
    if (s.kind === 'push') {
      pushed.branch.push(s.files);
      continue;
    }
    now += s.hours * HOUR;
    pushed.clock.t = now;
    clean.clock.t = now;
    if (s.kind === 'health') {
      const records = CLAWS.map((claw, c) => ({ at: now, run: String(i), claw, status: s.statuses[c] }));
      health.push(...records);
      await pushed.health(now, records);
      await clean.health(now, records);
    } else {
      const record: DeploymentRecord = {
        at: now,
        claw: CLAWS[s.claw],
        deployment: `dep_${i}`,
        outcome: s.outcome,
        run: String(i),
      };
      deployments.push(record);
      await pushed.deploy(record);
      await clean.deploy(record);
    }
    const a = await pushed.view(now);
    const b = await clean.view(now);
    // The same records, daily lines and deployments as on the branch no one pushed to.
    expect(a.view.recent).toEqual(b.view.recent);
    expect(a.view.daily).toEqual(b.view.daily);
    expect(a.view.deployments).toEqual(b.view.deployments);
    expect(streaks(a.view)).toEqual(streaks(b.view));
    // Every record of the last day, and every deployment of the window, is there.
    const lastDay = health.filter((r) => r.at >= now - DAY);
    expect(a.view.recent.filter((r) => r.at >= now - DAY)).toEqual(lastDay);
    expect(a.view.deployments).toEqual(deployments.filter((r) => r.at > now - 90 * DAY));
    // Within the budget: the index, health's share and the deployments' share.
    expect(a.files).toBeLessThanOrEqual(1 + MAX_READ_FILES + MAX_DEPLOYMENT_READ_FILES);
    expect(a.bytes).toBeLessThanOrEqual(MAX_INDEX_BYTES + MAX_READ_BYTES + MAX_DEPLOYMENT_READ_BYTES);
  }
}

describe('the history store reads what it wrote, whatever is pushed beside it', () => {
  it('no record hidden or lost, no read past its budget, no verdict changed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => play(steps)),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('a pushed part at every width beside the current month: the next parts land where the reader looks', async () => {
    await play([
      { kind: 'health', hours: 1, statuses: ['unhealthy', 'healthy'] },
      { kind: 'deploy', hours: 1, claw: 0, outcome: 'failed' },
      {
        kind: 'push',
        files: [
          ['history/deployments/2026-11.9999.ndjson', HUGE],
          ['history/2026-11.9999.ndjson', HUGE],
          ...Array.from({ length: 8 }, (_, i): [string, string] => [
            `history/deployments/2026-11.${9992 + i}.ndjson`,
            'empty',
          ]),
          ...Array.from({ length: 40 }, (_, i): [string, string] => [`history/2099-12.${i + 2}.ndjson`, 'padding']),
        ],
      },
      { kind: 'health', hours: 1, statuses: ['unhealthy', 'healthy'] },
      { kind: 'deploy', hours: 1, claw: 1, outcome: 'succeeded' },
      { kind: 'deploy', hours: 1, claw: 0, outcome: 'succeeded' },
      { kind: 'health', hours: 1, statuses: ['unhealthy', 'unhealthy'] },
    ]);
  });

  it("the command line's history folder holds the same rule: pushed files beside its parts are never read nor written over", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'claw-history-'));
    const { branch } = folderHealthHost(folder);
    const clock = new FakeClock(T0);
    const log = new RecordingLogger();
    const store = (): HealthHistory => new HealthHistory(branch, { clock, log, name: 'history', seal: SEAL });
    const down = (at: number): ClawRecord => ({ at, run: '', claw: 'bot-a', status: 'unhealthy' });
    await store().save(T0, [down(T0)], () => [], 'health');
    mkdirSync(join(folder, 'history', 'deployments'), { recursive: true });
    writeFileSync(join(folder, 'history', '2026-11.9999.ndjson'), CONTENTS.huge);
    for (let i = 2; i <= 41; i++) writeFileSync(join(folder, 'history', `2099-12.${i}.ndjson`), CONTENTS.padding);
    // A link where a next part could go: never followed, never replaced.
    symlinkSync('/dev/null', join(folder, 'history', '2026-11.2.ndjson'));
    await store().save(T0 + HOUR, [down(T0 + HOUR)], () => [], 'health');
    const view = await store().load(T0 + HOUR);
    expect(view.recent).toEqual([down(T0), down(T0 + HOUR)]);
    expect(readFileSync(join(folder, 'history', '2026-11.9999.ndjson'), 'utf8')).toBe(CONTENTS.huge);
    expect(lstatSync(join(folder, 'history', '2026-11.2.ndjson')).isSymbolicLink()).toBe(true);
    expect(log.text('warning')).toMatch(/skipped 41 file\(s\) on 'history'/);
  });
});
