// Reads a checks file: a promptfoo config goes to its own reader, any other file to the native one.
// The one place that knows both readers; each builds the same CheckSuite (check.ts).
import { YamlFile } from '../config/yaml-file.js';
import { ACTION_WORDS, type Words } from '../shared/words.js';
import { type CheckSuite, MAX_CHECKS } from './check.js';
import { isPromptfooConfig, readPromptfooConfig } from './promptfoo/config.js';
import { readChecks } from './suite.js';

/**
 * Reads the checks file at `path` (relative to `workspace`); `env` holds the judge's key. A promptfoo
 * config is read by its own reader (promptfoo/config.ts); `forkEvent` is the event when the file may
 * be a fork's (github/run.ts), which refuses what would run code or choose where a secret goes.
 */
export async function loadChecks(
  path: string,
  workspace: string,
  env: NodeJS.ProcessEnv = {},
  forkEvent?: string,
  words: Words = ACTION_WORDS,
): Promise<CheckSuite> {
  const file = await YamlFile.read(path, workspace, 'checks file', words);
  if (isPromptfooConfig(file)) {
    return bounded(file, readPromptfooConfig(file, { workspace, env, forkEvent, folder: words.folder }));
  }
  return readChecks(file, env, forkEvent);
}

/** Parses a checks file's text (the file name is for messages; `workspace` for a promptfoo config's files). */
export function parseChecks(
  name: string,
  text: string,
  env: NodeJS.ProcessEnv = {},
  { workspace = process.cwd(), forkEvent }: { workspace?: string; forkEvent?: string } = {},
): CheckSuite {
  const file = YamlFile.parse(name, text, 'checks file');
  if (isPromptfooConfig(file)) return bounded(file, readPromptfooConfig(file, { workspace, env, forkEvent }));
  return readChecks(file, env, forkEvent);
}

/** A promptfoo config's checks (tests × prompts) under the same ceiling as a native file's. */
function bounded(file: YamlFile, suite: CheckSuite): CheckSuite {
  if (suite.checks.length > MAX_CHECKS) {
    file.fail(
      file.doc.contents,
      `the config makes ${suite.checks.length} checks (its tests, each with each prompt): expected at most ${MAX_CHECKS}`,
    );
  }
  return suite;
}
