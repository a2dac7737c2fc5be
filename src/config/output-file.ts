// A file the run writes for the user (the JUnit file, promptfoo's output, the judge cache). Its
// path is the workflow's, but what already sits there may be a pull request's: a link placed at
// the path, or at its folder, must not carry the write out of the workspace (over a runner's file,
// a later step's code). So the text goes to a new file beside it, which then replaces whatever was
// at the path (a link is replaced, never followed), in a folder that is really inside.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { placeProblem } from './place.js';

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
