// Installs promptfoo for the opt-in test (npm run test:promptfoo) into a folder of its own,
// test/promptfoo/.install, never into the project's node_modules: it is a large install, kept out
// of the default `npm ci`. The version is pinned so its verdicts stay the ones recorded.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PROMPTFOO_VERSION = '0.123.1';
const folder = join(import.meta.dirname, '.install');
const installed = join(folder, 'node_modules', 'promptfoo', 'package.json');

if (
  existsSync(installed) &&
  (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version === PROMPTFOO_VERSION
) {
  console.log(`promptfoo ${PROMPTFOO_VERSION} is installed in ${folder}`);
} else {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), '{ "name": "promptfoo-for-tests", "private": true }\n');
  console.log(`installing promptfoo ${PROMPTFOO_VERSION} into ${folder} (a few minutes)…`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `promptfoo@${PROMPTFOO_VERSION}`], {
    cwd: folder,
    stdio: 'inherit',
  });
}
