// The command line's history folder writes by where a path leads, not by its name: a link inside
// the folder (to a folder outside it, into '.git', at a temporary file's name) is never followed.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderHealthHost } from './folder-host.js';

function world() {
  const top = mkdtempSync(join(tmpdir(), 'claw-folder-'));
  const folder = join(top, 'hist');
  const outside = join(top, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
  writeFileSync(join(outside, 'victim'), 'ORIG');
  return { folder, outside, host: folderHealthHost(folder) };
}

describe('the history folder', () => {
  it('writes a new part as a regular file (the control)', async () => {
    const { folder, host } = world();
    const change = { path: 'history/deployments/2026-12.ndjson', content: 'line\n' };
    expect(await host.branch.commit(await host.branch.snapshot(), [change], 'test')).toBe('written');
    expect(readFileSync(join(folder, change.path), 'utf8')).toBe('line\n');
  });

  it('never writes through a link inside it to a folder outside it', async () => {
    const { folder, outside, host } = world();
    symlinkSync(outside, join(folder, 'history'));
    const change = { path: 'history/victim', content: 'sealed index' };
    await expect(host.branch.commit(await host.branch.snapshot(), [change], 'test')).rejects.toThrow(
      /history\/victim is not written: it links outside the history folder/,
    );
    expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('ORIG');
  });

  it("never writes through a link left at the temporary file's name", async () => {
    const { folder, outside, host } = world();
    mkdirSync(join(folder, 'history'));
    symlinkSync(join(outside, 'victim'), join(folder, 'history', `index.json.${process.pid}.tmp`));
    const change = { path: 'history/index.json', content: 'sealed index' };
    await expect(host.branch.commit(await host.branch.snapshot(), [change], 'test')).rejects.toThrow(/EEXIST/);
    expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('ORIG');
  });
});
