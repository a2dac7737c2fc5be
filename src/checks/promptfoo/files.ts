// `file://` references in a promptfoo config: resolved as promptfoo resolves them, relative to the
// config's folder, and kept inside the workspace: a path that climbs out of it (`../`), names an
// absolute place outside it or goes into `.git` is refused, as is a glob (name each file). Files
// are read once, as text.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { placeProblem } from '../../config/place.js';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** The most text one referenced file may hold. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface FileRef {
  /** The absolute path, inside the workspace. */
  path: string;
  /** As the config wrote it, for messages. */
  written: string;
  /** `file://x.js:name`: the function's name. */
  functionName?: string;
}

export class ConfigFiles {
  /** The config's folder: where relative references start. */
  readonly base: string;

  constructor(
    readonly workspace: string,
    configPath: string,
    /** How messages name the workspace (the entry's words). */
    private readonly folder = 'the workspace',
  ) {
    this.base = dirname(isAbsolute(configPath) ? configPath : resolve(workspace, configPath));
  }

  /** Whether a value is a `file://` reference. */
  static isRef(value: unknown): value is `file://${string}` {
    return typeof value === 'string' && value.startsWith('file://');
  }

  /**
   * Resolves `file://…` (relative to `from`, a referencing file's folder, or the config's); with
   * `functions`, a trailing `:name` names a function. Returns why it cannot, in words for the error.
   */
  resolve(
    ref: string,
    { from, functions = false }: { from?: string; functions?: boolean } = {},
  ): FileRef | { problem: string } {
    let path = ref.slice('file://'.length);
    let functionName: string | undefined;
    if (functions) {
      const colon = path.lastIndexOf(':');
      if (colon > 1) {
        functionName = path.slice(colon + 1);
        path = path.slice(0, colon);
      }
    }
    if (path === '') return { problem: 'it names no file' };
    if (/[*?[\]{}]/.test(path)) return { problem: 'it is a glob: name each file' };
    const full = isAbsolute(path) ? resolve(path) : resolve(from ?? this.base, path);
    if (!this.inside(full)) return { problem: `it points outside ${this.folder}: keep the files in the repository` };
    // Git's own folder is no test's material, and it may hold a token (a checkout's extraheader).
    if (relative(resolve(this.workspace), full).split(sep).includes('.git'))
      return { problem: "it points into '.git', Git's own folder: keep the test files in the repository's tree" };
    if (!existsSync(full)) return { problem: `no such file in ${this.folder}` };
    // Judged by where its links lead: out of the workspace, or into .git (notes.txt -> .git/config).
    const problem = placeProblem(full, this.workspace, this.folder);
    if (problem) return { problem };
    return { path: full, written: ref, functionName };
  }

  /** The text of a resolved file, or why it cannot be read. */
  read(file: FileRef): { text: string } | { problem: string } {
    try {
      // Looked at before it is read: a FIFO would wait forever, a huge file would fill the memory.
      const found = statSync(file.path);
      if (found.isFile() && found.size > MAX_FILE_BYTES)
        return { problem: `it is over ${MAX_FILE_BYTES / 1048576} MiB` };
      if (!found.isFile() && !found.isDirectory()) return { problem: 'it is not a regular file' };
      const bytes = readFileSync(file.path);
      if (bytes.length > MAX_FILE_BYTES) return { problem: `it is over ${MAX_FILE_BYTES / 1048576} MiB` };
      return { text: bytes.toString('utf8') };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { problem: code === 'EISDIR' ? 'it is a folder' : code === 'ENOENT' ? 'no such file' : String(code) };
    }
  }

  /** The path as the user would write it from the workspace, for messages and the output. */
  display(file: FileRef): string {
    return relative(this.workspace, file.path).split(sep).join('/');
  }

  private inside(path: string, root = resolve(this.workspace)): boolean {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  }
}
