// Where a path of the run really leads. A file the workspace holds may be a pull request's, and so
// may any link on the way to it: a path is judged by where its links lead (the real path of its
// nearest existing folder, then the rest as written), never by how it is spelt. A path written
// inside the workspace must end inside it, and never in Git's own folder (where a checkout keeps
// its token). That folder is told by identity (device and inode), not by name: on a file system
// that folds case or Unicode forms, or drops a trailing dot (macOS, Windows), `.GIT`, `.git.` and
// `.g\u200Cit` are the same folder, and a `.git` file (`gitdir: …`, a worktree or submodule) names
// another. A path the workflow wrote outside the workspace (an absolute one) is its own choice.
import {
  type BigIntStats,
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Whether `path` is `root` or inside it. */
export function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The real path `full` leads to: links resolved through its nearest existing ancestor (the part
 * that does not exist yet cannot be a link). A link that leads nowhere (dangling) is followed as
 * written, so a write through it is judged by its target.
 */
export function realPlace(full: string): string {
  let rest: string[] = [];
  let at = resolve(full);
  // A chain of links longer than the system follows (40 on Linux) resolves nowhere.
  for (let links = 0; links <= 40;) {
    try {
      return join(realpathSync(at), ...rest);
    } catch {
      const target = linkTarget(at);
      if (target !== undefined) {
        // A dangling link: where a write (a mkdir) through it would land.
        links++;
        at = resolve(dirname(at), target);
        continue;
      }
      const parent = dirname(at);
      if (parent === at) return join(at, ...rest);
      rest = [basename(at), ...rest];
      at = parent;
    }
  }
  return join(at, ...rest);
}

/** A symbolic link's target as written, or undefined when `path` is not one. */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a path (relative to `root`) names `.git`, Git's reserved name, as one of its parts. */
function namesGit(path: string, root: string): boolean {
  return relative(root, path).split(sep).includes('.git');
}

const identity = (stats: BigIntStats): string => `${stats.dev}:${stats.ino}`;
const statOf = (path: string): BigIntStats | undefined => statSync(path, { bigint: true, throwIfNoEntry: false });

/**
 * The identities of the Git folders that `dir` holds: its `.git` folder, or the folder its `.git`
 * file points to (`gitdir: <path>`, relative to `dir`). None when it has neither.
 */
function gitFoldersOf(dir: string): string[] {
  let entry: BigIntStats | undefined;
  try {
    entry = statOf(join(dir, '.git'));
  } catch {
    return []; // `dir` is a file, or unreadable: it holds no `.git`.
  }
  if (entry?.isDirectory()) return [identity(entry)];
  if (!entry?.isFile()) return [];
  const pointer = /^gitdir: *(.+?)\s*$/m.exec(readHead(join(dir, '.git'), 4096));
  const target = pointer && statOf(resolve(dir, pointer[1]));
  return target?.isDirectory() ? [identity(target)] : [];
}

/** The first `bytes` of a file, as text ('' when it cannot be read). */
function readHead(path: string, bytes: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(bytes);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, bytes, 0));
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Whether the real path `real` (inside `realRoot`) lies in a Git folder: one of the folders on its
 * way down from the root is, by device and inode, the `.git` of the folder above it (or the folder
 * that folder's `.git` file points to). Only the part that exists is compared; what does not exist
 * yet is made inside the last folder that does.
 */
function inGitFolder(real: string, realRoot: string): boolean {
  const gits = new Set<string>();
  let at = realRoot;
  for (const part of ['', ...relative(realRoot, real).split(sep).filter(Boolean)]) {
    at = join(at, part);
    let stats: BigIntStats | undefined;
    try {
      stats = statOf(at);
    } catch {
      return false; // Under a file: nothing further exists.
    }
    if (!stats) return false;
    if (gits.has(identity(stats))) return true;
    if (stats.isDirectory()) for (const git of gitFoldersOf(at)) gits.add(git);
  }
  return false;
}

const IN_GIT = "Git's own folder (where a checkout keeps its token)";

/**
 * Why `path` (relative to `workspace`) may not be used, or undefined: `folder` names the
 * workspace in the message. Written inside the workspace, it must lead inside it and not into
 * Git's folder, whatever links are on the way and however it is spelt.
 */
export function placeProblem(path: string, workspace: string, folder = 'the workspace'): string | undefined {
  const root = resolve(workspace);
  const full = isAbsolute(path) ? resolve(path) : resolve(root, path);
  if (!inside(full, root)) return undefined;
  if (namesGit(full, root)) return `it is inside '.git', ${IN_GIT}`;
  const realRoot = existsSync(root) ? realpathSync(root) : root;
  const real = realPlace(full);
  if (!inside(real, realRoot)) return `it links outside ${folder}`;
  if (!namesGit(real, realRoot) && !inGitFolder(real, realRoot)) return undefined;
  // The same path once links are followed: another spelling of the folder, not a link.
  const linked = relative(realRoot, real) !== relative(root, full);
  return linked ? `it links into '.git', ${IN_GIT}` : `it is inside '.git', ${IN_GIT}`;
}
