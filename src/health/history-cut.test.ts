// The history store reads its own month files by its sealed index, which counts each part's sealed
// lines. A pusher who cuts a part back to its first lines (each still valid) once made records
// vanish without a word: now the reader says which file lost how many, in one warning, uses what
// is left, and the next commit indexes the part as it is (the lost records are never counted).
// Input controlled by: anyone who can push to the history branch (here a history folder).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import { sealKey } from '../shared/seal.js';
import type { DeploymentRecord } from './deployment-records.js';
import { appendDeploymentRecords } from './deployment-log.js';
import { folderHealthHost } from './folder-host.js';
import { HealthHistory } from './history.js';
import type { ClawRecord } from './records.js';
import { INDEX_PATH, parseIndex } from './store-index.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const MINUTE = 60_000;
const SEAL = sealKey('sim-key', 'octo/claws');
const MONTH = 'history/2026-11.ndjson';
const DEPLOYMENTS = 'history/deployments/2026-11.ndjson';

function world() {
  const folder = mkdtempSync(join(tmpdir(), 'claw-cut-'));
  const host = folderHealthHost(folder);
  const clock = new FakeClock(T0);
  const log = new RecordingLogger();
  const store = () => new HealthHistory(host.branch, { clock, log, name: 'hist', seal: SEAL });
  const file = (path: string) => readFileSync(join(folder, path), 'utf8');
  /** The part cut to its first `keep` lines, and `padding` appended (lines not sealed by the action). */
  const cut = (path: string, keep: number, padding: string[] = []) => {
    const lines = file(path).split('\n').filter(Boolean);
    writeFileSync(join(folder, path), [...lines.slice(0, keep), ...padding].map((l) => `${l}\n`).join(''));
  };
  const indexed = (path: string) => {
    const read = parseIndex(file(INDEX_PATH), SEAL);
    if (read.state !== 'sealed') throw new Error(`index ${read.state}`);
    return Object.values(read.index)
      .flat()
      .find((e) => e.path === path)?.lines;
  };
  return { host, clock, log, store, file, cut, indexed };
}

const claw = (at: number, name: string): ClawRecord => ({
  at,
  run: '7',
  claw: name,
  status: 'healthy',
  latencyMs: 400,
});
/** One run's records: the service's and two Claws'. */
const run = (at: number) => [{ at, run: '7', service: 'up' as const }, claw(at, 'bot-a'), claw(at, 'bot-b')];
const none = (): [] => [];
const cutWarnings = (log: RecordingLogger) => log.lines.filter((l) => / was cut /.test(l.message));

async function threeRuns(w: ReturnType<typeof world>): Promise<void> {
  for (let i = 0; i < 3; i++) await w.store().save(T0 + i * MINUTE, run(T0 + i * MINUTE), none, `health ${i}`);
  expect(w.indexed(MONTH)).toBe(9);
}

describe('a month file of the action cut back by a pusher', () => {
  it('is said in one warning naming the file, the records expected and read; what is left is used', async () => {
    const w = world();
    await threeRuns(w);
    w.cut(MONTH, 4);
    const store = w.store();
    const view = await store.load(T0 + 3 * MINUTE);
    expect(view.recent).toHaveLength(4);
    const warned = cutWarnings(w.log);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toEqual({
      level: 'warning',
      message: `History: ${MONTH} on 'hist' was cut since this action wrote it: 9 record(s) expected, 4 read; the 5 lost are not counted. The records still there are used; the next commit indexes the file as it is now.`,
    });
    expect(store.cuts).toEqual([warned[0].message]);
  });

  it('the next write repairs forward: the index counts what is there, the lost records are not pretended', async () => {
    const w = world();
    await threeRuns(w);
    w.cut(MONTH, 4);
    await w.store().save(T0 + 3 * MINUTE, run(T0 + 3 * MINUTE), none, 'health 3');
    expect(w.file(MONTH).split('\n').filter(Boolean)).toHaveLength(7);
    expect(w.indexed(MONTH)).toBe(7);
    // Said once: the run after it reads the file as the index says, with no warning.
    w.log.lines.length = 0;
    const view = await w.store().load(T0 + 4 * MINUTE);
    expect(view.recent).toHaveLength(7);
    expect(w.log.text('warning')).toBe('');
  });

  it('padded back to its length with lines the action did not seal: still a cut (only sealed lines count)', async () => {
    const w = world();
    await threeRuns(w);
    w.cut(
      MONTH,
      4,
      Array.from({ length: 5 }, (_, i) => `{"at":${T0},"claw":"bot-${i}","status":"healthy"}`),
    );
    await w.store().load(T0 + 3 * MINUTE);
    expect(cutWarnings(w.log).map((l) => l.message)).toEqual([expect.stringContaining('9 record(s) expected, 4 read')]);
  });

  it('control: a file that only gained lines is no cut (its foreign lines are said as ignored)', async () => {
    const w = world();
    await threeRuns(w);
    w.cut(MONTH, 9, ['not a record']);
    const view = await w.store().load(T0 + 3 * MINUTE);
    expect(view.recent).toHaveLength(9);
    expect(cutWarnings(w.log)).toEqual([]);
    expect(w.log.text('warning')).toMatch(/ignored 1 line\(s\) on 'hist': 1 not sealed by this action/);
  });

  it("a deployments file cut back: the deploy that appends says so before it indexes the file anew, and health's read after it holds what is left", async () => {
    const w = world();
    const deps = { clock: w.clock, log: w.log, name: 'hist', seal: SEAL };
    const record = (i: number): DeploymentRecord => ({
      at: T0 + i * MINUTE,
      claw: `bot-${i}`,
      deployment: `dep_${i}`,
      outcome: 'succeeded',
      run: '7',
      strategy: 'rolling',
      durationMs: 1000,
    });
    for (let i = 0; i < 4; i++) await appendDeploymentRecords(w.host.branch, [record(i)], deps, `deploy ${i}`);
    expect(w.indexed(DEPLOYMENTS)).toBe(4);
    w.cut(DEPLOYMENTS, 1);
    await appendDeploymentRecords(w.host.branch, [record(4)], deps, 'deploy 4');
    expect(cutWarnings(w.log).map((l) => l.message)).toEqual([
      `History: ${DEPLOYMENTS} on 'hist' was cut since this action wrote it: 4 record(s) expected, 1 read; the 3 lost are not counted. The records still there are used; the next commit indexes the file as it is now.`,
    ]);
    expect(w.indexed(DEPLOYMENTS)).toBe(2);
    const view = await w.store().load(T0 + 5 * MINUTE);
    expect(view.deployments.map((d) => d.claw)).toEqual(['bot-0', 'bot-4']);
    expect(cutWarnings(w.log)).toHaveLength(1);
  });
});
