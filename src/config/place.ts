// Where a path of the run really leads. A file the workspace holds may be a pull request's, and so
// may any link on the way to it: a path is judged by where its links lead (the real path of its
// nearest existing folder, then the rest as written), never by how it is spelt. A path written
// inside the workspace must end inside it, and never in `.git` (where a checkout keeps its token);
// a path the workflow wrote outside the workspace (an absolute one) is the workflow's own choice.
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
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

/** Whether a path (relative to `root`) has `.git` as one of its folders or is `.git` itself. */
function inGit(path: string, root: string): boolean {
  return relative(root, path).split(sep).includes('.git');
}

/**
 * Why `path` (relative to `workspace`) may not be used, or undefined: `folder` names the
 * workspace in the message. Written inside the workspace, it must lead inside it and not into
 * `.git`, whatever links are on the way.
 */
export function placeProblem(path: string, workspace: string, folder = 'the workspace'): string | undefined {
  const root = resolve(workspace);
  const full = isAbsolute(path) ? resolve(path) : resolve(root, path);
  if (!inside(full, root)) return undefined;
  if (inGit(full, root)) return "it is inside '.git', Git's own folder (where a checkout keeps its token)";
  const realRoot = existsSync(root) ? realpathSync(root) : root;
  const real = realPlace(full);
  if (!inside(real, realRoot)) return `it links outside ${folder}`;
  if (inGit(real, realRoot)) return "it links into '.git', Git's own folder (where a checkout keeps its token)";
  return undefined;
}
