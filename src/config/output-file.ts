// A file the run writes for the user (the JUnit file, promptfoo's output, the judge cache). Its
// path is the workflow's, but what already sits there may be a pull request's: a link placed at
// the path, or at its folder, must not carry the write out of the workspace (over a runner's file,
// a later step's code). So a regular file goes to a new file beside it, which then replaces it, in
// a folder that is really inside. A link is never replaced (a rename over `out.json ->
// /proc/self/fd/1` left a file where the user's link was): it is written through to its target
// when that target is the workspace's (or the path was the user's own, outside it), else refused.
// What is not a regular file (a device such as /dev/null, a FIFO) is written through, never
// replaced: a rename over it would turn a device into a file for every later step.
import { randomUUID } from 'node:crypto';
import { type BigIntStats, constants, fstatSync, lstatSync, statSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { placeProblem, realPlace } from './place.js';

/** Writes `text` at `path` (relative to `workspace`); returns the absolute path. */
export async function writeOutputFile(path: string, workspace: string, text: string): Promise<string> {
  const full = isAbsolute(path) ? path : resolve(workspace, path);
  const folder = dirname(full);
  // The folder is judged by where it leads before any of it is made: a link on the way out of the
  // workspace must not get a tree of folders made at its far end.
  const where = (): string | undefined =>
    basename(full) === '.git' ? "it is inside '.git', Git's own folder" : placeProblem(folder, workspace);
  const refuse = (problem: string): never => {
    throw new Error(`its folder ${JSON.stringify(relative(workspace, folder) || '.')} ${problem.replace(/^it /, '')}`);
  };
  const before = where();
  if (before) refuse(before);
  if (isLink(full)) return writeThroughLink(full, workspace, text);
  const through = specialTarget(full, workspace);
  if (through) return writeThrough(through, full, text);
  await mkdir(folder, { recursive: true });
  // Looked at again once made: a link swapped in meanwhile is found here.
  const after = where();
  if (after) refuse(after);
  const temporary = join(folder, `.${basename(full)}.${randomUUID()}.tmp`);
  // 'wx': a new file, never one (or a link) already there.
  await writeFile(temporary, text, { encoding: 'utf8', flag: 'wx' });
  try {
    await rename(temporary, full);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return full;
}

/**
 * The real path of what `full` holds when it is there and not a regular file or folder (a device,
 * a FIFO, a socket, or a link to one), else undefined. A link the workspace holds is followed only
 * where it stays inside: one leading out (a pull request's `checks.xml -> /dev/sda`) is replaced.
 */
function specialTarget(full: string, workspace: string): string | undefined {
  const stats = statOf(full);
  if (!stats || stats.isFile() || stats.isDirectory()) return undefined;
  if (placeProblem(full, workspace)) return undefined;
  return realPlace(full);
}

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  } catch {
    return false;
  }
};

/**
 * Writes through the link at `full` to what it leads to, or refuses in one line: a link of the
 * workspace that leads out of it, to nothing, to a folder, or to this program's own output.
 */
async function writeThroughLink(full: string, workspace: string, text: string): Promise<string> {
  const problem = placeProblem(full, workspace);
  if (problem)
    throw new Error(
      `${problem.replace(/^it links/, 'it is a link leading')}: a link is written through, never replaced`,
    );
  // Followed as open() follows it: /proc/self/fd/N leads to a pipe no path names.
  const stats = statOf(full);
  if (!stats) throw new Error('it is a link to nothing: expected a file, or a link to one');
  if (stats.isDirectory()) throw new Error('it is a link to a folder: expected a file');
  if (!stats.isFile()) return writeThrough(full, full, text);
  if (ownStream(stats))
    throw new Error(
      "it is a link to this program's standard output or error: expected a file (the command line's --output - writes to standard output)",
    );
  // A regular file: written by rename where it really is, as any regular file is.
  await writeOutputFile(realPlace(full), workspace, text);
  return full;
}

const statOf = (path: string): BigIntStats | undefined => {
  try {
    return statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * Writes into an existing device or FIFO, as `>` in a shell does: opened for writing only, never
 * created or truncated. A FIFO no one reads is refused at once rather than waited on; this
 * process's own standard output or error (the step's log, the command line's one document) is
 * refused: a reply written there could pass for the runner's commands or break `--json`.
 */
async function writeThrough(real: string, full: string, text: string): Promise<string> {
  const stats = statOf(real);
  if (stats?.isSocket()) throw new Error('it is a socket: expected a file, a device or a FIFO');
  if (stats && ownStream(stats))
    throw new Error(
      "it is this program's standard output or error: expected a file (the command line's --output - writes to standard output)",
    );
  let probe;
  try {
    // O_NONBLOCK: a FIFO without a reader fails (ENXIO) at once instead of holding the run.
    probe = await open(real, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO')
      throw new Error('it is a FIFO that no one reads', { cause: err });
    throw err;
  }
  try {
    // Opened again, blocking, now that a reader is there: a full pipe waits rather than fails.
    const file = await open(real, constants.O_WRONLY | constants.O_NOCTTY);
    try {
      await file.writeFile(text, 'utf8');
    } finally {
      await file.close();
    }
  } finally {
    await probe.close();
  }
  return full;
}

/** Whether `stats` is this process's standard output or error (by identity), other than the null device. */
function ownStream(stats: BigIntStats): boolean {
  const id = (s: { dev: bigint; ino: bigint }): string => `${s.dev}:${s.ino}`;
  const target = id(stats);
  if (target === id(statOf('/dev/null') ?? { dev: -1n, ino: -1n })) return false;
  return [1, 2].some((fd) => {
    try {
      return id(fstatSync(fd, { bigint: true })) === target;
    } catch {
      return false;
    }
  });
}
