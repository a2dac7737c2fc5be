// The command line's exit codes: one table, which the code ends with, `--help` prints and
// docs/cli.md publishes (a test holds the page to it, and runs every command through the packed
// command line for each row).

export const EXIT = { ok: 0, failed: 1, badInput: 2, error: 3, SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/** The exit codes the command line ends with. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Each code (or pair of codes) and what it means, as docs/cli.md's table has it (Markdown). */
export const EXIT_TABLE: readonly (readonly [codes: string, meaning: string])[] = [
  ['0', 'succeeded (with `--fail-on-unhealthy false`, `health` exits 0 whatever the verdict)'],
  [
    '1',
    'the outcome failed: `failed`, `timed-out`, `paused`, `cancelled`, checks that did not pass, drift, or a Claw not healthy (under `health`, a Claw not found is down)',
  ],
  ['2', 'bad input: a flag, the checks file or the manifest; nothing was sent'],
  [
    '3',
    'could not act (outcome `error`): a refused key, a missing scope, an unknown Claw, an unusable answer, a Node.js too old',
  ],
  ['129', 'the terminal closed (SIGHUP): handled as Ctrl-C is'],
  ['130 / 143', 'interrupted by SIGINT (Ctrl-C) / SIGTERM'],
];
