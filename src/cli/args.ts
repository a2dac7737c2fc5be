// The command line's arguments: the action's inputs as long flags (`--claw-id c1`, `--claw-id=c1`),
// read with node:util's parseArgs, plus the tool's own (`--json`, `--junit`, `--no-progress`,
// `--verbose`, `--help`, `--version`). Settings are then read from them exactly as the action
// reads its inputs: one reader, two sources. The key never comes from a flag.
import { parseArgs } from 'node:util';
import { InputError } from '../errors.js';
import { INPUTS, inputDefault } from '../inputs.js';
import type { InputReader } from '../settings.js';

/** Inputs that are not flags: the key only from the environment; the command is the first word. */
const NOT_FLAGS = new Set(['api-key', 'command']);
/** Inputs whose values are true or false: a bare `--auto-rollback` means true. */
const BOOLEAN_INPUTS = new Set(INPUTS.filter((i) => i.default === 'true' || i.default === 'false').map((i) => i.name));

export interface CliArgs {
  command?: string;
  /** Flags given, by input name. */
  flags: Record<string, string>;
  json: boolean;
  junit?: string;
  progress: boolean;
  verbose: boolean;
  help: boolean;
  version: boolean;
}

/** The environment variables the key is read from, in order. */
export const KEY_VARIABLES = ['CLAW_DEPLOY_API_KEY', 'AMS_API_KEY'] as const;

export function parseCli(argv: string[]): CliArgs {
  if (argv.some((a) => a === '--api-key' || a.startsWith('--api-key='))) {
    throw new InputError(
      `The API key is read only from the environment (${KEY_VARIABLES.join(', or ')}), never from a flag: a flag would land in the shell's history and in ps.`,
    );
  }
  const options: Record<string, { type: 'string' | 'boolean' }> = {
    json: { type: 'boolean' },
    junit: { type: 'string' },
    'no-progress': { type: 'boolean' },
    verbose: { type: 'boolean' },
    help: { type: 'boolean' },
    version: { type: 'boolean' },
  };
  for (const input of INPUTS) if (!NOT_FLAGS.has(input.name)) options[input.name] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: withBooleanValues(argv), options, allowPositionals: true, strict: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new InputError(
      `${reason.replace(/\.$/, '')}: expected the action's inputs as long flags (see claw-deploy --help).`,
    );
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw new InputError(
      `Unexpected argument ${JSON.stringify(positionals[1])}: expected one command, then flags (see claw-deploy --help).`,
    );
  }
  const flags: Record<string, string> = {};
  for (const input of INPUTS) {
    const value = values[input.name];
    if (typeof value === 'string') flags[input.name] = value;
  }
  return {
    command: positionals[0],
    flags,
    json: values.json === true,
    junit: typeof values.junit === 'string' ? values.junit : undefined,
    progress: values['no-progress'] !== true,
    verbose: values.verbose === true,
    help: values.help === true,
    version: values.version === true,
  };
}

/** A bare boolean flag (`--auto-rollback` with no value after it) reads as `--auto-rollback=true`. */
function withBooleanValues(argv: string[]): string[] {
  return argv.map((arg, i) => {
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : '';
    if (!BOOLEAN_INPUTS.has(name)) return arg;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('--') ? `${arg}=true` : arg;
  });
}

/**
 * The settings' source: flags, else the environment for the key, the address and the GitHub token,
 * else the table's defaults (as the runner fills in action.yml's).
 */
export function cliReader(args: CliArgs, env: NodeJS.ProcessEnv): InputReader {
  return (name) => {
    if (name === 'command') return args.command ?? '';
    if (name === 'api-key') return KEY_VARIABLES.map((v) => env[v]).find((v) => v && v.trim()) ?? '';
    if (name === 'checks-junit' && args.junit !== undefined) return args.junit;
    const flag = args.flags[name];
    if (flag !== undefined) return flag;
    if (name === 'base-url') return env.CLAW_DEPLOY_BASE_URL ?? '';
    if (name === 'github-token') return env.GITHUB_TOKEN ?? '';
    return inputDefault(name);
  };
}
