// The gate's saved runs in a history folder: what one run seals is read back by the next; a file
// without this action's seal for this Claw, one moved from another Claw, or one past the size the
// action writes is refused, never compared.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEntry } from '../../test/support/check-entry.ts';
import { MAX_SAVED_RUN_BYTES, type SavedGateRun } from '../checks/saved-run.js';
import { systemClock, silentLogger } from '../shared/clock.js';
import { sealKey } from '../shared/seal.js';
import { folderHealthHost } from './folder-host.js';
import { keepSavedRun, readSavedRun, savedRunPath } from './saved-runs.js';

const SEAL = sealKey('key-of-the-run', 'octo/claws');
const HASH = 'a'.repeat(64);
const run = (claw = 'c1'): SavedGateRun => ({
  claw,
  deployment: 'dep_2',
  at: Date.parse('2026-12-02T10:00:00Z'),
  checks: HASH,
  judges: HASH,
  config: HASH,
  entries: [checkEntry({ clawId: claw, samples: [{ outcome: 'pass', latencyMs: 800 }] })],
});

function folder() {
  const dir = mkdtempSync(join(tmpdir(), 'claw-saved-'));
  return { dir, branch: folderHealthHost(dir).branch };
}
const keep = (branch: ReturnType<typeof folder>['branch'], r: SavedGateRun, seal = SEAL) =>
  keepSavedRun({ clock: systemClock, log: silentLogger }, { branch, name: 'hist', seal }, r);

describe("the gate's saved runs in the history store", () => {
  it('reads back the run the last gate sealed for the Claw', async () => {
    const { branch } = folder();
    expect(await readSavedRun(branch, 'c1', SEAL)).toEqual({ state: 'absent' });
    expect(await keep(branch, run())).toBe(true);
    const read = await readSavedRun(branch, 'c1', SEAL);
    expect(read.state).toBe('found');
    expect(read.state === 'found' && read.run.entries[0].samples).toEqual([{ outcome: 'pass', latencyMs: 800 }]);
  });

  it('refuses a run sealed by another key, or moved from another Claw', async () => {
    const { dir, branch } = folder();
    await keep(branch, run(), sealKey('another-key', 'octo/claws'));
    expect(await readSavedRun(branch, 'c1', SEAL)).toEqual({
      state: 'refused',
      problem: 'it does not carry this action’s seal for this Claw',
    });
    await keep(branch, run('c2'));
    writeFileSync(join(dir, savedRunPath('c1')), readFileSync(join(dir, savedRunPath('c2')), 'utf8'));
    expect(await readSavedRun(branch, 'c1', SEAL)).toMatchObject({ state: 'refused' });
  });

  it('never reads a file past the size the action writes', async () => {
    const { dir, branch } = folder();
    await keep(branch, run());
    writeFileSync(join(dir, savedRunPath('c1')), 'x'.repeat(MAX_SAVED_RUN_BYTES + 100));
    expect(await readSavedRun(branch, 'c1', SEAL)).toEqual({
      state: 'refused',
      problem: 'it is larger than the action writes',
    });
  });
});
