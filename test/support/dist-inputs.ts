// What dist/ is built from, as one hash: the bundled sources (src/ without its tests) and the build's
// own inputs. `npm run package` records it in dist/inputs.sha256 before it builds; the tests' global setup rebuilds
// dist/ only when the hash of the tree differs. Contents, never file times: a fresh clone's files
// all have the clone's time, and a touched file that did not change needs no build.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The files besides src/ whose contents change the bundle. */
const BUILD_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];

/** Where the hash of the inputs of the bundle in dist/ is kept. */
export const RECORD = join('dist', 'inputs.sha256');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    // Unit tests sit beside their modules; ncc never bundles them.
    return entry.isFile() && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The hash of every input of the bundle under `root`: each file's path (with /) and contents, in path order. */
export function inputsHash(root = ROOT): string {
  const files = [...sources(join(root, 'src')), ...BUILD_FILES.map((f) => join(root, f))]
    .map((path) => relative(root, path).split(sep).join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const contents = readFileSync(join(root, file));
    hash.update(`${file}\u0000${contents.length}\u0000`).update(contents);
  }
  return hash.digest('hex');
}

/** The hash recorded beside the bundle, or undefined when there is none. */
export function recordedHash(root = ROOT): string | undefined {
  try {
    return readFileSync(join(root, RECORD), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

// `node test/support/dist-inputs.ts --write`, run by `npm run package` before ncc: the hash of what
// the build starts from, so a source changed while it runs leaves dist/ stale, never falsely current.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes('--write')) {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  writeFileSync(join(ROOT, RECORD), `${inputsHash()}\n`);
}
