// One bundle for both entries. The runner starts this file for the action's main and post steps:
// the main step saves a state first thing, so when the runner starts it again for `post:`, that
// state says which step this is (as actions/checkout does). The command line's bin
// (bin/claw-deploy.cjs) imports it instead and calls `cli`, whose own code is a chunk loaded only
// then: the action starts exactly as it did, and dist/ holds the program once.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isPostStep, run } from './main.js';
import { run as runPost } from './post.js';

/** The command line: runs one command, resolves to its exit code. */
export async function cli(argv: string[]): Promise<number> {
  const { run: runCli } = await import('./cli.js');
  return runCli(argv);
}

/** Started as a file (the runner's `node dist/index.js`), not imported by the bin. */
function startedAsFile(): boolean {
  const started = process.argv[1];
  if (!started) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (startedAsFile()) void (isPostStep() ? runPost() : run());
