// How a message names what the user gave. The action's user writes inputs (`claw-id:` under
// `with:`), a secret and a workspace; the command line's user types flags (`--claw-id`), sets
// environment variables and runs in a folder. The names come from the one table of inputs
// (inputs.ts); each entry picks its Words and hands them down to whatever builds a message about
// an input, a file or the key (readSettings, readInputFiles, the transport's advice, the
// commands), so one core speaks to both users in their own words.

export interface Words {
  /** An input inside a sentence: `'claw-id'` in the action, `--claw-id` on the command line. */
  input(name: string): string;
  /** An input as the subject of a bad value's message: `Input 'claw-id'`, `--claw-id`. */
  subject(name: string): string;
  /** An input given a value: `'auto-approve: true'`, `--auto-approve`. */
  setting(name: string, value: string): string;
  /** An output of a run: `'plan-id' output`, `plan-id output` (the command line's Outputs and --json). */
  output(name: string): string;
  /** Where relative paths are read from and written to: the workspace, the current folder. */
  folder: string;
  /** Added after a file that is not there: why it may be missing. */
  missingFile: string;
  /** Where a variable that a file names (`{env: NAME}`, `api-key-env`) must be set. */
  environment: string;
  /** What to check when the service refuses the key. */
  keyAdvice: string;
}

/** The action's words: inputs of the step, its secret, the runner's workspace. */
export const ACTION_WORDS: Words = {
  input: (name) => `'${name}'`,
  subject: (name) => `Input '${name}'`,
  setting: (name, value) => `'${name}: ${value}'`,
  output: (name) => `'${name}' output`,
  folder: 'the workspace',
  missingFile: ' (did the job check out the repository?)',
  environment: "the step's environment (env: on the step, from a secret)",
  keyAdvice: "Check the secret passed as 'api-key' and 'auth-scheme'.",
};

/** The words a run was given (its context's), else the action's. */
export function wordsOf(context: { words?: Words }): Words {
  return context.words ?? ACTION_WORDS;
}
