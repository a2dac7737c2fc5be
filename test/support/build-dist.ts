// Vitest global setup: the end-to-end tests run dist/, so dist/ must be what src/ builds. Rebuilds
// the bundle whenever a source file is newer than it; a current dist/ is left untouched, so a
// fresh clone stays clean.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../e2e/harness.ts';

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export default function setup(): void {
  // One bundle for both entries: the action's dist/index.js, which the command line's bin imports.
  let built = 0; // no bundle yet
  try {
    built = statSync(join(ROOT, 'dist', 'index.js')).mtimeMs;
  } catch {
    // built stays 0
  }
  const sources = ['src', 'package.json', 'package-lock.json', 'tsconfig.json'].map((p) => newest(join(ROOT, p)));
  if (Math.max(...sources) <= built) return;
  process.stderr.write('dist/ is older than src/: building it (npm run package)…\n');
  execFileSync('npm', ['run', '-s', 'package'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
