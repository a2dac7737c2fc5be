// The command line's arguments: the action's inputs as long flags (`--claw-id c1`, `--claw-id=c1`),
// plus the tool's own (`--json`, `--no-progress`, `--verbose`, `-h`/`--help`, `--version`) and two
// short names a shell user reaches for (`--junit`, `--output`). Settings are then read from them
// exactly as the action reads its inputs: one reader, two sources. The key never comes from a flag; a flag is given once; a flag the command
// line cannot honour (it needs the GitHub run around it) is refused, never ignored. Every refusal
// is one line naming the flag, and the nearest real one when it looks like a typo.
import { nearest } from '../shared/nearest.js';
import { InputError } from '../shared/errors.js';
import { INPUTS, inputDefault } from '../contract/inputs.js';
import { COMMANDS } from '../core/run.js';
import type { InputReader } from '../contract/settings.js';
import type { Words } from '../shared/words.js';

/** The environment variables the key is read from, in order. */
export const KEY_VARIABLES = ['CLAW_DEPLOY_API_KEY', 'AMS_API_KEY'] as const;
export const BASE_URL_VARIABLE = 'CLAW_DEPLOY_BASE_URL';

/** Inputs that are not flags: the key only from the environment; the command is the first word. */
const NOT_FLAGS = new Set(['api-key', 'command']);

/**
 * Inputs only the action can honour, with why (each row's `actionOnly`): each needs the GitHub run
 * around it. The command line refuses them rather than take them and do nothing.
 */
export const ACTION_ONLY: Record<string, string> = Object.fromEntries(
  INPUTS.flatMap((i) => (i.actionOnly ? [[i.name, i.actionOnly]] : [])),
);

/** Inputs whose values are true or false: a bare `--auto-rollback` means true. */
const BOOLEAN_INPUTS = new Set(INPUTS.filter((i) => i.default === 'true' || i.default === 'false').map((i) => i.name));
/** The tool's own switches, which take no value. */
const SWITCHES = ['json', 'no-progress', 'verbose', 'help', 'version'] as const;
/** The tool's own flags that take a value: health's history in a local folder. */
const TOOL_VALUES = ['history-dir'] as const;
/** Short names for inputs, as other eval and test tools spell them: the same flag, given once. */
export const ALIASES: Record<string, string> = { junit: 'checks-junit', output: 'checks-output' };
/** Every long flag there is, for the nearest-name hint. */
const FLAGS = [
  ...INPUTS.map((i) => i.name).filter((n) => !NOT_FLAGS.has(n) && !(n in ACTION_ONLY)),
  ...Object.keys(ALIASES),
  ...SWITCHES,
  ...TOOL_VALUES,
];

export interface CliArgs {
  command?: string;
  /** Flags given, by input name (an alias under the input it stands for). */
  flags: Record<string, string>;
  /** The aliases given, by the input they stand for, so messages name the flag as typed. */
  aliased: Record<string, string>;
  json: boolean;
  progress: boolean;
  verbose: boolean;
  help: boolean;
  version: boolean;
  /** health: the folder to keep the history in (and the status page, with `statusPage`). */
  historyDir?: string;
  statusPage: boolean;
}

export { nearest };

/**
 * Whether argv asks for --json, read before anything else so even a refusal of argv is JSON: also
 * `--json=true`, which is refused (the switch takes no value) with its one object all the same.
 */
export const wantsJson = (argv: string[]): boolean => argv.some((a) => a === '--json' || a.startsWith('--json='));

/** Whether argv asks for help anywhere (`-h`, `--help`), which wins over every other mistake in it. */
export const wantsHelp = (argv: string[]): boolean =>
  argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).some((a) => a === '-h' || a === '--help');

/** The names of the run's commands (a test may give others). */
const NAMES = COMMANDS.map((c) => c.name);

export function parseCli(argv: string[], commands: readonly string[] = NAMES): CliArgs {
  const given = new Map<string, string>();
  // --status-page beside --history-dir: the tool's switch, never the action's input (a branch).
  let pageSwitch = false;
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h') {
      given.set('help', 'true');
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    // A bare true/false flag may be followed by the command: only before the first positional.
    const flag = readFlag(argv, i, positionals.length === 0 ? commands : [], given);
    i = flag.last;
    if (flag.name === PAGE_SWITCH) {
      if (pageSwitch) throw new InputError('--status-page is given twice: give each flag once.');
      pageSwitch = true;
      continue;
    }
    given.set(flag.name, flag.value);
  }
  if (positionals.length > 1) {
    throw new InputError(
      `Unexpected argument ${JSON.stringify(positionals[1])}: expected one command, then flags (several Claws: --claw-id c1,c2).`,
    );
  }
  return { ...flagsOf(given), ...toolFlagsOf(given), command: positionals[0], statusPage: pageSwitch };
}

/** What readFlag returns for --status-page beside --history-dir: the tool's switch. */
const PAGE_SWITCH = ' status-page';

/** The hint after an unknown flag: the nearest real one, or where the flags are listed. */
function hint(typed: string): string {
  const near = nearest(typed, FLAGS);
  return near ? `; did you mean --${near}?` : ' (claw-deploy <command> --help lists the flags)';
}

/**
 * The flag at `argv[i]` and its value (`--name=value`, `--name value`, a bare switch or boolean),
 * and the index of the last word it took. `commands` may follow a bare boolean flag; a flag in
 * `given` already is refused.
 */
function readFlag(
  argv: string[],
  i: number,
  commands: readonly string[],
  given: ReadonlyMap<string, string>,
): { name: string; value: string; last: number } {
  const arg = argv[i];
  if (!arg.startsWith('--')) throw new InputError(`Unknown flag ${arg}${hint(arg.replace(/^-+/, ''))}`);
  const eq = arg.indexOf('=');
  const name = arg.slice(2, eq < 0 ? undefined : eq);
  let value = eq < 0 ? undefined : arg.slice(eq + 1);
  if (name === 'api-key') {
    throw new InputError(
      `The API key is read only from the environment (${KEY_VARIABLES.join(', or ')}), never from a flag: a flag would land in the shell's history and in ps.`,
    );
  }
  // The page renders into a folder with --history-dir: then --status-page is a switch of the tool.
  if (name === 'status-page' && argv.some((a) => a === '--history-dir' || a.startsWith('--history-dir='))) {
    if (value !== undefined) throw new InputError(`--status-page takes no value (given ${JSON.stringify(value)}).`);
    return { name: PAGE_SWITCH, value: 'true', last: i };
  }
  if (Object.hasOwn(ACTION_ONLY, name))
    throw new InputError(`--${name} is not for the command line: it ${ACTION_ONLY[name]}.`);
  if (!FLAGS.includes(name)) throw new InputError(`Unknown flag --${name}${hint(name)}`);
  if (given.has(name)) {
    throw new InputError(
      `--${name} is given twice: give each flag once${name === 'claw-id' ? ' (several Claws: --claw-id c1,c2)' : ''}.`,
    );
  }
  let last = i;
  if ((SWITCHES as readonly string[]).includes(name)) {
    if (value !== undefined) throw new InputError(`--${name} takes no value (given ${JSON.stringify(value)}).`);
    value = 'true';
  } else if (value === undefined) {
    const next = argv[i + 1];
    if (BOOLEAN_INPUTS.has(name)) {
      // A bare switch is true; `--auto-rollback false` reads the word after it. Any other word
      // there, when it cannot be the command, was meant as the value (`--wait no`).
      const command = next !== undefined && commands.includes(next);
      if (next !== undefined && next !== 'true' && next !== 'false' && !next.startsWith('-') && !command) {
        throw new InputError(
          `--${name} is ${JSON.stringify(next)}: expected true or false (--${name} alone is true; --${name} false, or --${name}=false).`,
        );
      }
      value = next === 'true' || next === 'false' ? (last++, next) : 'true';
    } else if (next === undefined || next.startsWith('--')) {
      throw new InputError(`--${name} needs a value: --${name} VALUE, or --${name}=VALUE.`);
    } else {
      value = next;
      last += 1;
    }
  }
  // An empty value reads as the flag left out (`--output=$OUT` with OUT unset): a run that then
  // writes no file, or uses a default, and says nothing. Given, a flag has a value.
  if (value.trim() === '') {
    throw new InputError(
      `--${name} is empty: give it a value (--${name} VALUE, or --${name}=VALUE), or leave the flag out.`,
    );
  }
  return { name, value, last };
}

/** The inputs given as flags, an alias under the input it stands for. */
function flagsOf(given: Map<string, string>): Pick<CliArgs, 'flags' | 'aliased'> {
  const flags: Record<string, string> = {};
  for (const input of INPUTS) {
    const value = given.get(input.name);
    if (value !== undefined) flags[input.name] = value;
  }
  const aliased: Record<string, string> = {};
  for (const [alias, name] of Object.entries(ALIASES)) {
    const value = given.get(alias);
    if (value === undefined) continue;
    if (flags[name] !== undefined)
      throw new InputError(`--${alias} and --${name} are the same flag: give one of them.`);
    flags[name] = value;
    aliased[name] = `--${alias}`;
  }
  return { flags, aliased };
}

/** The tool's own flags. */
function toolFlagsOf(given: Map<string, string>): Omit<CliArgs, 'flags' | 'aliased' | 'command' | 'statusPage'> {
  return {
    json: given.has('json'),
    progress: !given.has('no-progress'),
    verbose: given.has('verbose'),
    help: given.has('help'),
    version: given.has('version'),
    historyDir: given.get('history-dir'),
  };
}

/** The command named, or the one-line refusal naming the nearest real one. */
export function checkCommand(command: string, commands: readonly string[] = NAMES): void {
  if (commands.includes(command)) return;
  const near = nearest(command, commands);
  throw new InputError(
    `Unknown command ${JSON.stringify(command)}${near ? `; did you mean ${near}?` : `: expected one of ${commands.join(', ')}.`}`,
  );
}

/**
 * The settings' source: flags, else the environment for the key, the address and the GitHub token,
 * else the table's defaults (as the runner fills in action.yml's).
 */
export function cliReader(args: CliArgs, env: NodeJS.ProcessEnv): InputReader {
  return (name) => {
    if (name === 'command') return args.command ?? '';
    if (name === 'api-key') return KEY_VARIABLES.map((v) => env[v]).find((v) => v && v.trim()) ?? '';
    const flag = args.flags[name];
    if (flag !== undefined) return flag;
    if (name === 'base-url') return env[BASE_URL_VARIABLE] ?? '';
    if (name === 'github-token') return env.GITHUB_TOKEN ?? '';
    return inputDefault(name);
  };
}

/**
 * The command line's words: a flag as typed, or the environment variable the value came from;
 * the current folder; the variables to export.
 */
export function cliWords(args: CliArgs, env: NodeJS.ProcessEnv): Words {
  const keyVariable = KEY_VARIABLES.find((v) => env[v]?.trim()) ?? KEY_VARIABLES[0];
  const input = (name: string): string => {
    if (name === 'api-key') return keyVariable;
    if (args.aliased[name]) return args.aliased[name];
    if (args.flags[name] !== undefined) return `--${name}`;
    if (name === 'base-url') return env[BASE_URL_VARIABLE] ? BASE_URL_VARIABLE : `--base-url (or ${BASE_URL_VARIABLE})`;
    if (name === 'github-token') return env.GITHUB_TOKEN ? 'GITHUB_TOKEN' : '--github-token (or GITHUB_TOKEN)';
    return `--${name}`;
  };
  return {
    input,
    subject: input,
    setting: (name, value) => (value === 'true' ? `--${name}` : `--${name} ${value}`),
    output: (name) => `${name} output`,
    folder: 'the current folder',
    missingFile: '',
    environment: 'the environment (export it before running claw-deploy)',
    keyAdvice: `Check ${keyVariable} and --auth-scheme.`,
  };
}
