// Vitest global setup: the end-to-end tests run dist/, so dist/ must be what src/ builds. Rebuilds
// the bundle when the hash of its inputs (src/ and the build's files, dist-inputs.ts) differs from
// the one `npm run package` recorded beside it; a current dist/ is left untouched, so a fresh clone
// whose dist/ matches its src/ runs the tests without a build.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../e2e/harness.ts';
import { inputsHash, recordedHash } from './dist-inputs.ts';

/** Why dist/ must be built, or undefined when it is what src/ builds. */
export function staleBecause(root = ROOT): string | undefined {
  if (!existsSync(join(root, 'dist', 'index.js'))) return 'there is no dist/index.js';
  const recorded = recordedHash(root);
  if (!recorded) return 'dist/ has no record of what it was built from';
  return recorded === inputsHash(root) ? undefined : 'src/ or the build files changed since dist/ was built';
}

export default function setup(): void {
  const why = staleBecause();
  if (!why) return;
  process.stderr.write(`dist/ is stale (${why}): building it (npm run package)…\n`);
  execFileSync('npm', ['run', '-s', 'package'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
