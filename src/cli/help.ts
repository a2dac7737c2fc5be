// `--help`, for the tool and for each command, generated from the one table of inputs that
// action.yml documents: a flag the action has is a flag the command line lists.
import { COMMAND_SUMMARIES, INPUTS } from '../inputs.js';
import { KEY_VARIABLES } from './args.js';

export const EXIT_CODES: [number | string, string][] = [
  [0, 'succeeded (for health with --fail-on-unhealthy false: whatever the verdict)'],
  [1, 'the outcome failed: failed, timed-out, paused, cancelled, checks that did not pass, or drift'],
  [2, 'bad input: a flag, the checks file or the manifest (nothing was sent)'],
  [3, 'could not act (outcome error): a refused key, a missing scope, an unknown Claw, an unusable answer'],
  ['130/143', 'interrupted by SIGINT/SIGTERM, after rolling back when --auto-rollback covers cancelled'],
];

const TOOL_FLAGS: [string, string][] = [
  ['--json', 'print one JSON object with the outputs the action would set (the log goes to stderr)'],
  ['--junit FILE', "write the checks' results as JUnit XML (the same as --checks-junit)"],
  ['--no-progress', 'no live line while waiting (there is none when stdout is not a terminal, or with NO_COLOR)'],
  ['--verbose', 'debug lines too'],
  ['--help', 'this help; after a command, its flags'],
  ['--version', 'the version'],
];

const pad = (rows: [string | number, string][]): string[] => {
  const width = Math.max(...rows.map(([a]) => String(a).length));
  return rows.map(([a, b]) => `  ${String(a).padEnd(width)}  ${b}`);
};

/** What every help ends with: the tool's own flags and the exit codes. */
function footer(): string[] {
  return ['Output:', ...pad(TOOL_FLAGS), '', 'Exit codes:', ...pad(EXIT_CODES), ''];
}

export function toolHelp(): string {
  return [
    'Usage: claw-deploy <command> [flags]',
    '',
    "Deploy Claws on the Agent Management Service, wait for a final status, roll back when told to, run conversation checks, and keep Claws' config in Git: the Claw Deploy action, outside GitHub.",
    '',
    'Commands:',
    ...pad(Object.entries(COMMAND_SUMMARIES)),
    '',
    'Environment:',
    ...pad([
      [KEY_VARIABLES[0], `the service's API key (or ${KEY_VARIABLES[1]}); never taken from a flag`],
      ['CLAW_DEPLOY_BASE_URL', 'the service address, when --base-url is not given'],
      ['NO_COLOR', 'no colour and no live line'],
    ]),
    '',
    ...footer(),
    'Run claw-deploy <command> --help for its flags: the action inputs, as long flags.',
    '',
  ].join('\n');
}

export function commandHelp(command: string): string {
  const flags: [string, string][] = INPUTS.filter((i) => i.name !== 'command').map((i) => {
    if (i.name === 'api-key') return [`(${KEY_VARIABLES[0]})`, `${i.description} Read from the environment only.`];
    const fallback =
      i.default === undefined || i.default === ''
        ? ''
        : ` (default: ${i.default.replace('${{ github.token }}', '$GITHUB_TOKEN')})`;
    return [`--${i.name}`, `${i.description}${fallback}`];
  });
  return [
    `Usage: claw-deploy ${command} [flags]`,
    '',
    `${command}: ${COMMAND_SUMMARIES[command] ?? ''}.`,
    '',
    'Flags (the action inputs of the same names):',
    ...pad(flags),
    '',
    ...footer(),
  ].join('\n');
}
