// The command line's history folder writes by where a path leads, not by its name: a link inside
// the folder (to a folder outside it, into '.git', at a temporary file's name) is never followed.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { folderHealthHost } from './folder-host.js';
import { MAX_FILE_BYTES } from './history.js';

/** Every path the folder host reads, recorded by a wrapper around the real readFile. */
const reads = vi.hoisted(() => [] as string[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    readFile: (path: string, ...rest: unknown[]) => {
      reads.push(String(path));
      return (real.readFile as (...args: unknown[]) => unknown)(path, ...rest);
    },
  };
});

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

describe('the history folder listing', () => {
  it('lists a file past the per-file bound by its size, never reading it, and says so once', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'claw-folder-'));
    writeFileSync(join(folder, 'small.jsonl'), 'a\n');
    // Sparse: 64 MiB listed, no disk used.
    const huge = join(folder, 'huge.jsonl');
    writeFileSync(huge, '');
    truncateSync(huge, 64 * MAX_FILE_BYTES);
    const warnings: string[] = [];
    const host = folderHealthHost(folder, (message) => warnings.push(message));
    reads.length = 0;
    const snapshot = await host.branch.snapshot();
    expect(reads).toEqual([join(folder, 'small.jsonl')]);
    expect(snapshot?.files.map((f) => [f.path, f.size])).toEqual([
      ['huge.jsonl', 64 * MAX_FILE_BYTES],
      ['small.jsonl', 2],
    ]);
    expect(warnings).toEqual(['The history folder holds 1 file(s) over 1 MiB, skipped unread: huge.jsonl.']);
    // The listing is still a state a commit compares with: unchanged, it is written.
    const change = { path: 'new.jsonl', content: 'b\n' };
    expect(await host.branch.commit(snapshot, [change], 'test')).toBe('written');
  });
});
