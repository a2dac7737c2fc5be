// `--help`, for the tool and for each command, generated from the commands' definitions and the
// input rows that action.yml is generated from: a command's help lists the flags its definition
// reads, in their rows' groups, each with its row's words (the command's own, where the row has
// them) and default.
import type { CommandDefinition } from '../contract/command.js';
import { COMMON_INPUTS, GROUPS, INPUTS, type InputSpec } from '../contract/inputs.js';
import { COMMANDS } from '../core/run.js';
import { ACTION_ONLY, BASE_URL_VARIABLE, KEY_VARIABLES } from './args.js';
import { EXIT_TABLE } from './exit-codes.js';
import { wrapColumns } from './terminal.js';

const TOOL_FLAGS: [string, string][] = [
  ['--json', 'print one JSON object with the outcome and the outputs, whatever the exit (the log goes to stderr)'],
  ['--junit FILE', "write the checks' results as JUnit XML (the same as --checks-junit)"],
  ['--output FILE', "write the checks' results in promptfoo's format (the same as --checks-output)"],
  [
    '--history-dir DIR',
    "deploy, rollback, health: keep the history in a local folder (deployment records, health's runs), and with health --status-page render the status page there (index.html, status.json, badges), as the action does on its branch",
  ],
  ['--no-progress', 'no live line while waiting (there is none when stderr is not a terminal, or with NO_COLOR)'],
  ['--verbose', 'debug lines too'],
  ['-h, --help', 'this help; after a command, its flags'],
  ['--version', 'the version'],
];

/** The inputs that are flags: not the key or the command; the action's own only where the command line has a switch for them. */
const FLAG_INPUTS = INPUTS.filter(
  (i) => i.name !== 'command' && i.name !== 'api-key' && (!(i.name in ACTION_ONLY) || i.commandLine),
);
const INPUT_NAMES = new Set(INPUTS.map((i) => i.name));

/**
 * The table's words for a shell: files are in the current folder, and another input named in a
 * description is the flag (`rollback-on` → `--rollback-on`), never an output of the same name.
 */
function forShell(text: string): string {
  return text
    .replace(/relative to the workspace/g, 'relative to the current folder')
    .replace(/(^|[\s(])([a-z]+(?:-[a-z]+)+)(?=[\s.,;:)]|$)(?! output)/g, (all, before: string, name: string) =>
      INPUT_NAMES.has(name) ? `${before}--${name}` : all,
    );
}

/** A default a shell user reads: a switch's on or off, the token's variable, or the value. */
function shownDefault(input: InputSpec): string {
  const value = input.default ?? '';
  if (value === '') return '';
  if (value === '${{ github.token }}') return ' Default: the GITHUB_TOKEN environment variable.';
  return ` Default: ${value}.`;
}

/** Rows of a name and its words, the words wrapped under their column to `width`. */
function rows(entries: [string, string][], width: number): string[] {
  const nameWidth = Math.min(24, Math.max(...entries.map(([name]) => name.length)));
  const textWidth = Math.max(30, width - nameWidth - 5);
  return entries.flatMap(([name, text]) => {
    const lines = wrapColumns(text, textWidth);
    const first = name.length > nameWidth ? [`  ${name}`, `  ${' '.repeat(nameWidth)}  ${lines[0]}`] : [];
    const head = first.length ? first : [`  ${name.padEnd(nameWidth)}  ${lines[0]}`];
    return [...head, ...lines.slice(1).map((l) => `  ${' '.repeat(nameWidth)}  ${l}`)];
  });
}

/** What every help ends with: the tool's own flags and the exit codes. */
function footer(width: number): string[] {
  return [
    'Output:',
    ...rows(TOOL_FLAGS, width),
    '',
    'Exit codes:',
    ...rows(
      // The table docs/cli.md publishes, its Markdown backticks left out.
      EXIT_TABLE.map(([codes, meaning]) => [codes.replaceAll(' ', ''), meaning.replaceAll('`', '')]),
      width,
    ),
    '',
  ];
}

function environment(width: number): string[] {
  return [
    'Environment:',
    ...rows(
      [
        [KEY_VARIABLES[0], `the service's API key (or ${KEY_VARIABLES[1]}); never taken from a flag`],
        [BASE_URL_VARIABLE, 'the service address, when --base-url is not given'],
        ['NO_COLOR', 'no colour and no live line'],
      ],
      width,
    ),
    '',
  ];
}

export function toolHelp(width = 80, commands: readonly CommandDefinition[] = COMMANDS): string {
  return [
    'Usage: claw-deploy <command> [flags]',
    '',
    ...wrapColumns(
      "Deploy Claws on the Agent Management Service, wait for a final status, roll back when told to, run conversation checks, and keep Claws' config in Git: the Claw Deploy action, outside GitHub.",
      width - 1,
    ),
    '',
    'Commands:',
    ...rows(
      commands.map((c) => [c.name, c.summary]),
      width,
    ),
    '',
    ...environment(width),
    ...footer(width),
    'Run claw-deploy <command> --help for its flags.',
    '',
  ].join('\n');
}

/**
 * The flags `command` reads, in their groups (each row's, or the one its help picks for the
 * command), each in the command's own words where its row has them.
 */
export function commandFlags(
  command: string,
  commands: readonly CommandDefinition[] = COMMANDS,
): { title: string; inputs: InputSpec[] }[] {
  const definition = commands.find((c) => c.name === command);
  const reads = (input: string): boolean =>
    COMMON_INPUTS.includes(input) || ((definition?.inputs as readonly string[] | undefined)?.includes(input) ?? false);
  const groups: { title: string; inputs: InputSpec[] }[] = [];
  for (const input of FLAG_INPUTS) {
    const title = input.helpGroup ? input.helpGroup(reads) : input.group;
    if (!reads(input.name) || title === undefined) continue;
    const description = input.help?.[command] ?? input.commandLine ?? input.description;
    const group = groups.find((g) => g.title === title);
    if (group) group.inputs.push({ ...input, description });
    else groups.push({ title, inputs: [{ ...input, description }] });
  }
  const order = (title: string): number => GROUPS.indexOf(title as (typeof GROUPS)[number]);
  return groups.sort((a, b) => order(a.title) - order(b.title));
}

export function commandHelp(command: string, width = 80, commands: readonly CommandDefinition[] = COMMANDS): string {
  const groups = commandFlags(command, commands).flatMap(({ title, inputs }) => [
    `${title}:`,
    ...rows(
      inputs.map((i) => [`--${i.name}`, `${forShell(i.description)}${shownDefault(i)}`]),
      width,
    ),
    '',
  ]);
  return [
    `Usage: claw-deploy ${command} [flags]`,
    '',
    ...wrapColumns(`${command}: ${commands.find((c) => c.name === command)?.summary ?? ''}.`, width - 1),
    '',
    ...groups,
    ...wrapColumns('A true/false flag alone means true; give false as --flag=false. Give each flag once.', width - 1),
    '',
    ...environment(width),
    ...footer(width),
  ].join('\n');
}
