import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOutputFile } from './output-file.js';
import { placeProblem, realPlace } from './place.js';

function workspace(): { dir: string; outside: string } {
  const dir = mkdtempSync(join(tmpdir(), 'claw-place-'));
  const outside = mkdtempSync(join(tmpdir(), 'claw-outside-'));
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.git', 'config'), 'extraheader = AUTHORIZATION: basic c2VjcmV0');
  writeFileSync(join(dir, 'plain.txt'), 'hello');
  return { dir, outside };
}

describe('a path, by where it leads', () => {
  it('a link into .git is refused, as is .git written out; a plain file is fine', () => {
    const { dir } = workspace();
    symlinkSync('.git/config', join(dir, 'notes.txt'));
    symlinkSync('.git', join(dir, 'meta'));
    expect(placeProblem('notes.txt', dir)).toMatch(/links into '\.git'/);
    expect(placeProblem('meta/config', dir)).toMatch(/links into '\.git'/);
    expect(placeProblem('.git/config', dir)).toMatch(/inside '\.git'/);
    expect(placeProblem('sub/../.git/config', dir)).toMatch(/inside '\.git'/);
    expect(placeProblem('plain.txt', dir)).toBeUndefined();
    expect(placeProblem('not/yet/made.xml', dir)).toBeUndefined();
  });

  it('a link out of the workspace is refused, through folders not made yet and through dangling links', () => {
    const { dir, outside } = workspace();
    symlinkSync(outside, join(dir, 'reports'));
    symlinkSync(join(outside, 'gone', 'deeper'), join(dir, 'dangling'));
    expect(placeProblem('reports/a/b/c/x.xml', dir)).toMatch(/links outside the workspace/);
    expect(realPlace(join(dir, 'dangling', 'a'))).toBe(join(outside, 'gone', 'deeper', 'a'));
    expect(placeProblem('dangling/a/x.xml', dir)).toMatch(/links outside/);
  });

  it('a report under a link out makes no folder at its far end', async () => {
    const { dir, outside } = workspace();
    symlinkSync(outside, join(dir, 'reports'));
    await expect(writeOutputFile('reports/a/b/c/x.xml', dir, '<x/>')).rejects.toThrow(
      'its folder "reports/a/b/c" links outside the workspace',
    );
    expect(existsSync(join(outside, 'a'))).toBe(false);
    await expect(writeOutputFile('.git/hooks/pre-commit', dir, 'x')).rejects.toThrow(/inside '\.git'/);
    // The control: a report in a folder not made yet, really inside.
    await writeOutputFile('out/a/b/x.xml', dir, '<x/>');
    expect(readFileSync(join(dir, 'out', 'a', 'b', 'x.xml'), 'utf8')).toBe('<x/>');
  });
});
