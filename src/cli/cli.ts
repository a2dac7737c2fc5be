// The command line's entry: argv and the environment → the same Settings as the action (one
// reader, two sources, the command line's own words) → the shared core (run.ts) → results on
// stdout (a summary, or one JSON object with --json, on every exit), diagnostics on stderr, and
// an exit code: 0 succeeded, 1 the outcome failed, 2 bad input, 3 could not act, 129/130/143
// interrupted. Every byte written passes through the run's redactor; a closed stdout or stderr
// stops the writes, never the run.
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { Redactor } from '../api/redact.js';
import {
  type CliArgs,
  KEY_VARIABLES,
  checkCommand,
  cliReader,
  cliWords,
  parseCli,
  wantsHelp,
  wantsJson,
} from './args.js';
import { cancelNotice } from './cancel.js';
import { EXIT } from './exit-codes.js';
import { commandHelp, toolHelp } from './help.js';
import { comparisonText } from './comparison-text.js';
import { terminalSafeJson } from './json-text.js';
import {
  type ExitCode,
  Output,
  type Stream,
  checksTable,
  jsonResult,
  outputsTable,
  planText,
  unhealthyText,
} from './output.js';
import { tableText } from './table-text.js';
import { Terminal, columnsFor, terminalLine } from './terminal.js';
import { CancelledError, InputError, errorMessage } from '../shared/errors.js';
import { TRUSTED_FILES } from '../config/fork.js';
import { clip } from '../shared/format.js';
import { forkEventOfShell, githubRun } from '../shared/workflow-run.js';
import { folderHealthHost, usableFolder } from '../health/folder-host.js';
import { placeProblem } from '../config/place.js';
import {
  COMMANDS,
  type CommandResult,
  type InputFiles,
  definitionOf,
  execute,
  outputsOf,
  readInputFiles,
  readSettings,
} from '../core/run.js';
import type { CommandDefinition, ResultView } from '../contract/command.js';
import type { Settings } from '../contract/settings.js';
import { VERSION } from '../shared/version.js';
import { describeFailure } from '../core/wiring.js';
import type { Words } from '../shared/words.js';

/** What stops a run the way Ctrl-C does: a closed terminal (SIGHUP) too, so a rollback still happens. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

export interface CliIo {
  stdout: Stream;
  stderr: Stream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const defaultIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});

/** The run's streams and how it ends: what every step below writes through. */
interface Entry {
  io: CliIo;
  commands: readonly CommandDefinition[];
  secrets: Redactor;
  stdout: Output;
  stderr: Output;
  /** stdout for JSON text (`--output -`): escaped for a terminal. */
  jsonStdout: Output;
  json: boolean;
  end: Reporting['end'];
  /** A refusal before anything was sent: one line on stderr, exit 2 (or `exitCode`). */
  refuse: (message: string, exitCode?: ExitCode) => ExitCode;
}

/** Runs one command of `commands` (the run's table, or another a test gives); resolves to the exit code. */
export async function run(
  argv: string[] = process.argv.slice(2),
  io: CliIo = defaultIo(),
  commands: readonly CommandDefinition[] = COMMANDS,
): Promise<number> {
  const entry = entryOf(argv, io, commands);
  const { end, stderr } = entry;
  // Until the command's own handlers take over (runCommand), a signal ends the run as a cancel
  // does, before anything was sent: one line, --json's object, the signal's exit code.
  const early = (signal: StopSignal): void => {
    const message = `Interrupted (${signal}) before the command started: nothing was done.`;
    stderr.write(`error: ${message}\n`);
    process.exit(end(EXIT[signal], 'cancelled', message));
  };
  const endEarly = (): void => STOP_SIGNALS.forEach((signal) => process.off(signal, early));
  STOP_SIGNALS.forEach((signal) => process.on(signal, early));
  try {
    // Help wins over every other mistake on the line; it is what the user asked for.
    if (wantsHelp(argv)) return help(argv, entry);
    const ready = await prepare(argv, entry);
    if (typeof ready === 'number') return ready;
    const { args, settings, files, words } = ready;
    const { env } = io;
    // A dumb terminal (Emacs' shell, some editors' consoles) draws escape sequences as text.
    const color = !env.NO_COLOR && env.TERM !== 'dumb';
    const terminal = new Terminal({
      out: stderr,
      color: color && stderr.isTTY,
      progress: color && stderr.isTTY && args.progress && !env.CI,
      verbose: args.verbose,
      redact: entry.secrets.redact,
    });
    endEarly();
    return await runCommand(settings, files, {
      ...entry,
      color: color && entry.stdout.isTTY,
      terminal,
      words,
      historyFolder: args.historyDir === undefined ? undefined : resolve(io.cwd, args.historyDir),
      definition: definitionOf(settings.command, commands),
    });
  } catch (err) {
    // A fault of this program: still one line, still one JSON object.
    return entry.refuse(`claw-deploy stopped on an unexpected error: ${errorMessage(err)}`, EXIT.error);
  } finally {
    endEarly();
  }
}

function entryOf(argv: string[], io: CliIo, commands: readonly CommandDefinition[]): Entry {
  const { env } = io;
  const secrets = new Redactor([...KEY_VARIABLES.map((v) => env[v]), env.GITHUB_TOKEN]);
  const stdout = new Output(io.stdout, secrets.redact);
  const stderr = new Output(io.stderr, secrets.redact);
  // JSON on stdout (--json, `--output -`): redacted, then escaped of what a terminal would act on.
  const jsonStdout = new Output(io.stdout, (text) => terminalSafeJson(secrets.redact(text)));
  const json = wantsJson(argv);
  /** Ends the run: with --json, its one JSON object on stdout; the exit code. */
  const end = (
    exitCode: ExitCode,
    outcome: string,
    message: string,
    outputs: Record<string, string> = {},
    extra?: Record<string, unknown>,
  ) => {
    if (json) {
      const result = jsonResult(outputs, { outcome, exitCode, message: clip(message, 4000) });
      jsonStdout.write(`${JSON.stringify(extra ? { ...result, ...extra } : result)}\n`);
    }
    return exitCode;
  };
  const refuse = (message: string, exitCode: ExitCode = EXIT.badInput) => {
    stderr.write(`error: ${terminalLine(message)}\n`);
    return end(exitCode, 'error', message);
  };
  return { io, commands, secrets, stdout, stderr, jsonStdout, json, end, refuse };
}

/** The help asked for: of the command named on the line, or of the tool. */
function help(argv: string[], { io, commands, stdout, json, end }: Entry): ExitCode {
  const command = argv.find((a) => commands.some((c) => c.name === a));
  const width = columnsFor(io.stdout);
  const text = command ? commandHelp(command, width, commands) : toolHelp(width, commands);
  // With --json the help is the object's `help`, so stdout is still one object to parse.
  if (!json) stdout.write(text);
  return end(EXIT.ok, 'succeeded', `the help of claw-deploy${command ? ` ${command}` : ''}`, { help: text });
}

/**
 * argv and the environment into Settings and the user's files, every refusal before any request:
 * or the exit code of a run that ends here (a refusal, --version).
 */
async function prepare(
  argv: string[],
  { io, commands, secrets, stdout, stderr, json, end, refuse }: Entry,
): Promise<ExitCode | { args: CliArgs; settings: Settings; files: InputFiles; words: Words }> {
  const { env } = io;
  const names = commands.map((c) => c.name);
  let args;
  try {
    args = parseCli(argv, names);
    if (args.command) checkCommand(args.command, names);
  } catch (err) {
    return refuse(errorMessage(err));
  }
  if (args.version) {
    if (!json) stdout.write(`claw-deploy ${VERSION}\n`);
    return end(EXIT.ok, 'succeeded', `claw-deploy ${VERSION}`, { version: VERSION });
  }
  if (!args.command) {
    if (!json) stderr.write(toolHelp(columnsFor(io.stderr), commands));
    return refuse(`No command: expected one of ${names.join(', ')}.`);
  }
  const definition = definitionOf(args.command, commands);
  const pullRequest = definition.action?.pullRequest;
  if (pullRequest) return refuse(pullRequest.commandLine);
  if (!KEY_VARIABLES.some((v) => env[v]?.trim())) {
    return refuse(
      `No API key: set ${KEY_VARIABLES.join(' (or ')}) in the environment. The key is never taken from a flag.`,
    );
  }
  const words = cliWords(args, env);
  let settings: Settings;
  let files: InputFiles;
  try {
    settings = readSettings(cliReader(args, env), words, commands);
    // `/dev/stdout` is standard output as `-` is: written by the program, never renamed over.
    if (settings.checksOutput === '/dev/stdout') settings = { ...settings, checksOutput: '-' };
    files = await readInputFiles(settings, io.cwd, env, words, forkEventOfShell(env), commands);
    secrets.add(...files.secrets, `${settings.authScheme} ${settings.apiKey}`.trim());
  } catch (err) {
    // A fork's event inside GitHub Actions: the opt-in is a flag here.
    return refuse(errorMessage(err).replaceAll(TRUSTED_FILES, words.setting('trusted-files', 'true')));
  }
  // The history in a local folder, as the action keeps it on a branch: the records of deploy and
  // rollback, and health's runs and page. A command keeps history when it reads `history`.
  if (args.historyDir !== undefined) {
    const refusal = await historyFolderRefusal(definition, args, io.cwd, commands);
    if (refusal) return refuse(refusal);
    settings = { ...settings, history: args.historyDir, statusPage: args.statusPage };
  }
  // `--output -`: promptfoo's JSON is stdout's one document; --json would be a second.
  if (settings.checksOutput === '-' && json) {
    return refuse(
      "--output - writes promptfoo's output to stdout, where --json writes its object: expected one of them (or --output FILE beside --json)",
    );
  }
  return { args, settings, files, words };
}

interface Reporting {
  json: boolean;
  /** Colour in the results on stdout (a TTY without NO_COLOR). */
  color: boolean;
  io: CliIo;
  commands: readonly CommandDefinition[];
  stdout: Output;
  /** stdout for JSON text (`--output -`): escaped for a terminal. */
  jsonStdout: Output;
  stderr: Output;
  terminal: Terminal;
  secrets: Redactor;
  words: Words;
  end: (
    exitCode: ExitCode,
    outcome: string,
    message: string,
    outputs?: Record<string, string>,
    extra?: Record<string, unknown>,
  ) => ExitCode;
  /** health: the folder its history and page are kept in (--history-dir). */
  historyFolder?: string;
  /** The command that runs. */
  definition: CommandDefinition;
}

/** Why --history-dir (or --status-page beside it) cannot be used as given, or undefined. */
async function historyFolderRefusal(
  definition: CommandDefinition,
  args: CliArgs,
  cwd: string,
  commands: readonly CommandDefinition[],
): Promise<string | undefined> {
  const dir = args.historyDir ?? '';
  // The commands that keep or read it, as the table declares them.
  const keeping = commands.filter((c) => c.commandLine?.historyFolder).map((c) => c.name);
  if (definition.commandLine?.historyFolder !== true)
    return `--history-dir keeps the history of deploy, rollback and health (their records, runs and status page), which deployments reads; not of ${definition.name}: expected claw-deploy ${keeping.join('|')} … --history-dir ${dir}.`;
  if (args.statusPage && !(definition.inputs as readonly string[]).includes('status-page'))
    return `--status-page renders health's status page: expected claw-deploy health … --history-dir ${dir} --status-page (${definition.name} keeps its records there, and the next health run shows them).`;
  const place = placeProblem(dir, cwd, 'the current folder');
  if (place) return `--history-dir is ${JSON.stringify(dir)}: ${place}; expected a folder of its own.`;
  if (!(await usableFolder(resolve(cwd, dir))))
    return `--history-dir is ${JSON.stringify(dir)}, which is not a folder: expected a folder (created when missing) to keep the history in.`;
  return undefined;
}

/** Runs the command with Ctrl-C handling, then reports: a summary for a person, or the JSON object. */
async function runCommand(settings: Settings, files: InputFiles, r: Reporting): Promise<number> {
  const { terminal, end } = r;
  // Ctrl-C: stop waiting, report what is known, roll back per --rollback-on; a second one ends it at once.
  const cancel = new AbortController();
  let interrupted: StopSignal | undefined;
  /** The deployments this run triggered or follows, for what Ctrl-C says happens next. */
  const deployments = new Set<string>();
  const onSignal = (signal: StopSignal): void => {
    if (interrupted) {
      terminal.stopLive();
      terminal.error(`Received ${signal} again: stopped at once, without waiting for what was under way.`);
      process.exit(end(EXIT[signal], 'cancelled', `Interrupted twice (${signal}): stopped at once.`));
    }
    interrupted = signal;
    terminal.warning(cancelNotice(signal, r.definition, settings, [...deployments]));
    cancel.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    const work = execute(
      settings,
      files,
      {
        log: terminal,
        signal: cancel.signal,
        workspace: r.io.cwd,
        tempDir: tmpdir(),
        github: githubRun(r.io.env),
        userAgent: `claw-deploy-cli/${VERSION}`,
        redact: r.secrets,
        words: r.words,
        stdout: settings.checksOutput === '-' ? (text) => r.jsonStdout.write(text) : undefined,
        health: r.historyFolder ? { host: folderHealthHost(r.historyFolder, terminal.warning) } : undefined,
        onProgress: ({ deploymentId, final }) =>
          void (final ? deployments.delete(deploymentId) : deployments.add(deploymentId)),
        onFleetProgress: (inFlight) => {
          deployments.clear();
          inFlight.forEach((id) => deployments.add(id));
        },
      },
      r.commands,
    );
    const result = await terminal.whileWaiting(
      `${settings.command} ${settings.clawId || settings.targets.ids.join(',')}`,
      work,
    );
    const { values, warnings } = outputsOf(result, files);
    warnings.forEach(terminal.warning);
    const outputs = { ...values, outcome: values.outcome || (result.ok ? 'succeeded' : 'failed') };
    const exitCode: ExitCode = interrupted
      ? EXIT[interrupted]
      : result.ok || !result.failStep
        ? EXIT.ok
        : outputs.outcome === 'error'
          ? EXIT.error
          : EXIT.failed;
    if (r.json) return end(exitCode, outputs.outcome, result.message, outputs, result.json);
    // With `--output -` stdout holds promptfoo's JSON alone: the summary goes to stderr.
    (settings.checksOutput === '-' ? r.stderr : r.stdout).write(`${summary(result, outputs, r)}\n`);
    return exitCode;
  } catch (err) {
    if (err instanceof CancelledError || interrupted) {
      const message = `Cancelled before the ${settings.command} finished.`;
      terminal.error(message);
      return end(EXIT[interrupted ?? 'SIGINT'], 'cancelled', message);
    }
    const message = describeFailure(settings, err);
    terminal.error(message);
    return end(err instanceof InputError ? EXIT.badInput : EXIT.error, 'error', message);
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}

/** The outcome for a person: its line, the plan (plan, drift, apply), the outputs, the checks. */
function summary(result: CommandResult, outputs: Record<string, string>, r: Reporting): string {
  const paint = (code: string, text: string) => (r.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const width = columnsFor(r.io.stdout);
  const parts = [
    result.ok
      ? `${paint('32', '✔')} ${terminalLine(result.message)}`
      : `${paint('31', '✘')} ${terminalLine(result.message)}`,
  ];
  const views = result.views ?? [];
  // A plan heads the outputs; the other views follow the checks.
  for (const view of views.filter((v) => v.kind === 'plan')) parts.push('', drawn(view, width, r.color));
  const table = outputsTable(outputs);
  if (table) parts.push('', table);
  if (result.checks) parts.push('', checksTable(result.checks, width, r.color));
  for (const view of views.filter((v) => v.kind !== 'plan')) {
    const text = drawn(view, width, r.color);
    if (text) parts.push('', text);
  }
  if (result.comparisons?.length) parts.push('', comparisonText(result.comparisons, r.color, width));
  return parts.join('\n');
}

/** A command's view, drawn for the terminal (an unreadable health report draws nothing). */
function drawn(view: ResultView, width: number, color: boolean): string {
  if (view.kind === 'plan') return planText(view.result, view.title, color);
  if (view.kind === 'unhealthy') return unhealthyText(view.report, width, color) ?? '';
  if (view.kind === 'table') return tableText(view);
  return view.text;
}
