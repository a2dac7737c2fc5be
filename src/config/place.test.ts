import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
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

  it("a '.git' file's folder (gitdir: ./.bare) is Git's folder, by identity, through links too", () => {
    const { dir } = workspace();
    const pointed = join(dir, 'wt');
    mkdirSync(join(pointed, '.bare'), { recursive: true });
    writeFileSync(join(pointed, '.git'), 'gitdir: ./.bare\n');
    writeFileSync(join(pointed, '.bare', 'config'), 'token');
    symlinkSync('wt/.bare', join(dir, 'meta2'));
    expect(placeProblem('wt/.bare/config', dir)).toMatch(/inside '\.git', Git's own folder/);
    expect(placeProblem('wt/.bare/not/yet.txt', dir)).toMatch(/inside '\.git'/);
    expect(placeProblem('meta2/config', dir)).toMatch(/links into '\.git'/);
    // The control: the worktree's own files.
    writeFileSync(join(pointed, 'notes.txt'), 'x');
    expect(placeProblem('wt/notes.txt', dir)).toBeUndefined();
  });
});

describe('an output file that is not a regular file', () => {
  it('a link the workspace holds to a FIFO outside is refused with one line, never written through nor replaced', async () => {
    const { dir, outside } = workspace();
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    symlinkSync(join(outside, 'pipe'), join(dir, 'checks.xml'));
    await expect(writeOutputFile('checks.xml', dir, '<x/>')).rejects.toThrow(
      'it is a link leading outside the workspace: a link is written through, never replaced',
    );
    expect(lstatSync(join(dir, 'checks.xml')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(outside, 'pipe')).isFIFO()).toBe(true);
  });

  it('a link to a file of the workspace is written through: the link stays, its target gets the text', async () => {
    const { dir } = workspace();
    writeFileSync(join(dir, 'real.xml'), 'old');
    symlinkSync('real.xml', join(dir, 'checks.xml'));
    await writeOutputFile('checks.xml', dir, '<x/>');
    expect(lstatSync(join(dir, 'checks.xml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.xml'), 'utf8')).toBe('<x/>');
  });

  it('/proc/self/fd/N: a file the process holds open is written through; its own standard output is refused; the link stays', async () => {
    const { dir, outside } = workspace();
    const target = join(outside, 'fd.json');
    writeFileSync(target, '');
    const fd = openSync(target, 'r+');
    try {
      await writeOutputFile(`/proc/self/fd/${fd}`, dir, '{"a":1}');
      expect(readFileSync(target, 'utf8')).toBe('{"a":1}');
    } finally {
      closeSync(fd);
    }
    symlinkSync('/proc/self/fd/1', join(outside, 'out.json'));
    const stdout = fstatSync(1);
    // The worker's standard output is a pipe or a file: either way it is this program's own.
    if (stdout.isFIFO() || stdout.isFile())
      await expect(writeOutputFile(join(outside, 'out.json'), dir, 'x')).rejects.toThrow(/standard output/);
    expect(lstatSync(join(outside, 'out.json')).isSymbolicLink()).toBe(true);
  });

  it('a socket is refused with one line, and stays a socket', async () => {
    const { dir } = workspace();
    const path = join(dir, 'report.sock');
    const server = createServer();
    await new Promise<void>((done) => server.listen(path, done));
    try {
      await expect(writeOutputFile('report.sock', dir, '<x/>')).rejects.toThrow(
        'it is a socket: expected a file, a device or a FIFO',
      );
      expect(lstatSync(path).isSocket()).toBe(true);
    } finally {
      server.close();
    }
  });
});
