// Health's history and page kept in a local folder instead of a branch (the command line's
// `--history-dir`): the same HistoryBranch calls, so the same history, sealing and page code
// write it, and a user sees the status page before wiring GitHub. A commit writes every changed
// file, and finds a conflict when the folder changed since it was read (another run writing).
// Incidents stay GitHub's: the command line refuses them, so no issue call is ever made here.
import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { placeProblem } from '../config/place.js';
import { MAX_FILE_BYTES } from './history.js';
import type { BranchFile, BranchSnapshot, FileChange, HealthHost, IssueHost } from './host.js';

/** The most files a folder's listing takes: far past any history's (a file per month and Claw badge). */
const MAX_FILES = 10_000;

/**
 * A branch path as a local name: `\` (a separator on Windows, a plain character in a Claw id) and
 * `%` written as `%5C` and `%25`, so every id has its own file and none is read as a folder.
 */
const localName = (path: string): string => path.replace(/%/g, '%25').replace(/\\/g, '%5C');
const branchName = (name: string): string =>
  name.replace(/%(25|5C)/g, (_, code: string) => (code === '25' ? '%' : '\\'));

/**
 * The history in `folder`; `warn` is told once per listing of the files past the history's
 * per-file bound (MAX_FILE_BYTES), which are listed by their size and never read or hashed.
 */
export function folderHealthHost(folder: string, warn: (message: string) => void = () => {}): HealthHost {
  const root = resolve(folder);
  /** A path the history code named, inside the folder, or an error: never a write outside it. */
  const inside = (path: string): string => {
    const full = resolve(root, localName(path));
    if (!full.startsWith(root + sep)) throw new Error(`${path} is outside the history folder`);
    return full;
  };
  const list = async (): Promise<BranchSnapshot | undefined> => {
    const files: BranchFile[] = [];
    const oversized: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && files.length < MAX_FILES) {
          const path = branchName(relative(root, full).split(sep).join('/'));
          // Its size first: a file past the bound is never read (the history skips it by its
          // size); its identity for a conflict is its size and time, not its content.
          const found = await lstat(full);
          if (!found.isFile()) continue;
          if (found.size > MAX_FILE_BYTES) {
            oversized.push(path);
            const sha = createHash('sha256').update(`${found.size} ${found.mtimeMs} ${found.ino}`).digest('hex');
            files.push({ path, sha, size: found.size });
            continue;
          }
          const content = await readFile(full);
          files.push({ path, sha: createHash('sha256').update(content).digest('hex'), size: content.length });
        }
      }
    };
    await walk(root);
    if (oversized.length > 0) {
      const shown =
        oversized.slice(0, 3).join(', ') + (oversized.length > 3 ? `, and ${oversized.length - 3} more` : '');
      warn(
        `The history folder holds ${oversized.length} file(s) over ${MAX_FILE_BYTES / 1048576} MiB, skipped unread: ${shown}.`,
      );
    }
    if (files.length === 0) return undefined;
    // The folder's state in one hash: what a commit compares with to find another writer.
    const commit = createHash('sha256')
      .update(files.map((f) => `${f.path} ${f.sha}`).join('\n'))
      .digest('hex');
    return { commit, tree: commit, files };
  };
  return {
    runId: '',
    runUrl: () => undefined,
    branch: {
      snapshot: list,
      blobSha: (content) => createHash('sha256').update(content, 'utf8').digest('hex'),
      read: (file) => readFile(inside(file.path), 'utf8'),
      async commit(parent, changes: FileChange[]) {
        const now = await list();
        if (now?.commit !== parent?.commit) return 'conflict';
        // Every path judged before anything is written: a refused one leaves the folder as it was.
        // The listing holds regular files only: what else sits at a path (a link) was never read,
        // and is never replaced.
        const paths = changes.map((change) => inside(change.path));
        for (const path of paths) {
          // Judged by where it leads, not by its name: a link inside the folder (to a folder
          // outside it, into '.git') is never written through.
          const problem = placeProblem(path, root, 'the history folder');
          if (problem) throw new Error(`${relative(root, path)} is not written: ${problem}`);
          const found = await lstat(path).catch(() => undefined);
          if (found && !found.isFile())
            throw new Error(`${relative(root, path)} is not a regular file: it is not replaced`);
        }
        for (const [i, change] of changes.entries()) {
          const path = paths[i];
          if (change.content === null) {
            await rm(path, { force: true });
            continue;
          }
          await mkdir(dirname(path), { recursive: true });
          // Whole or not at all: a reader never meets half a file.
          // Created new ('wx'): a file or a link someone left at that name is never written through.
          const temporary = `${path}.${process.pid}.tmp`;
          await writeFile(temporary, change.content, { flag: 'wx' });
          await rename(temporary, path);
        }
        return 'written';
      },
    },
    issues: noIssues,
  };
}

const refuse = (): never => {
  throw new Error('incidents are GitHub issues: run health as the action for them');
};
const noIssues: IssueHost = { list: refuse, create: refuse, update: refuse, comment: refuse };

/** Whether `folder` may hold a history: absent, or a folder (never a file written over). */
export async function usableFolder(folder: string): Promise<boolean> {
  try {
    return (await stat(folder)).isDirectory();
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
