// The build check decides by contents: a fresh clone (every file's time the clone's) whose dist/ was
// built from its src/ is left alone; a change to what the bundle is built from makes it stale.
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleBecause } from './build-dist.ts';
import { RECORD, inputsHash } from './dist-inputs.ts';

/** A tree with src/, the build files and a dist/ recorded as built from them. */
function builtTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'claw-dist-'));
  mkdirSync(join(root, 'src', 'checks'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src', 'checks', 'gate.ts'), 'export const b = 2;\n');
  writeFileSync(join(root, 'src', 'checks', 'gate.test.ts'), 'it();\n');
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json']) writeFileSync(join(root, f), '{}\n');
  writeFileSync(join(root, 'dist', 'index.js'), 'bundle\n');
  writeFileSync(join(root, RECORD), `${inputsHash(root)}\n`);
  return root;
}

describe('the build check', () => {
  it('leaves a dist/ built from the same sources alone, however new the sources are', () => {
    const root = builtTree();
    // A fresh clone: every source newer than the bundle, as checkout writes them after it.
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(join(root, 'src', 'index.ts'), later, later);
    utimesSync(join(root, 'package-lock.json'), later, later);
    utimesSync(join(root, 'dist', 'index.js'), new Date(0), new Date(0));
    expect(staleBecause(root)).toBeUndefined();
  });

  it('ignores unit tests, which are never bundled', () => {
    const root = builtTree();
    writeFileSync(join(root, 'src', 'checks', 'gate.test.ts'), 'it("changed");\n');
    writeFileSync(join(root, 'src', 'checks', 'new.test.ts'), 'it();\n');
    expect(staleBecause(root)).toBeUndefined();
  });

  it('rebuilds when a source, a new source or a build file changes, or nothing is recorded', () => {
    const changed = builtTree();
    writeFileSync(join(changed, 'src', 'checks', 'gate.ts'), 'export const b = 3;\n');
    expect(staleBecause(changed)).toMatch(/changed since dist\/ was built/);
    const added = builtTree();
    writeFileSync(join(added, 'src', 'extra.ts'), '\n');
    expect(staleBecause(added)).toMatch(/changed/);
    const lock = builtTree();
    writeFileSync(join(lock, 'package-lock.json'), '{"v":2}\n');
    expect(staleBecause(lock)).toMatch(/changed/);
    const unrecorded = builtTree();
    writeFileSync(join(unrecorded, RECORD), '');
    expect(staleBecause(unrecorded)).toMatch(/no record/);
  });

  it('hashes paths as well as contents: a file moved is a change', () => {
    const a = builtTree();
    const b = builtTree();
    writeFileSync(join(b, 'src', 'index.ts'), 'export const b = 2;\n');
    writeFileSync(join(b, 'src', 'checks', 'gate.ts'), 'export const a = 1;\n');
    expect(inputsHash(a)).not.toBe(inputsHash(b));
  });
});
