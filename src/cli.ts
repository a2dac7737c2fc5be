// The command line's entry: argv and the environment → the same Settings as the action (one
// reader, two sources) → the shared core (run.ts) → the terminal, `--json`, and an exit code:
// 0 succeeded, 1 the outcome failed, 2 bad input, 3 could not act, 130/143 interrupted.
import { tmpdir } from 'node:os';
import { type ChecksResult, verdictOf } from './checks/result.js';
import { type CliArgs, KEY_VARIABLES, cliReader, parseCli } from './cli/args.js';
import { commandHelp, toolHelp } from './cli/help.js';
import { Terminal, table, terminalLine } from './cli/terminal.js';
import { CancelledError, InputError, errorMessage } from './errors.js';
import { clip } from './format.js';
import { githubRun } from './github/run.js';
import { COMMAND_SUMMARIES } from './inputs.js';
import { type CommandResult, type InputFiles, execute, outputsOf, readInputFiles } from './run.js';
import { type Settings, readSettings } from './settings.js';
import { VERSION } from './version.js';
import { describeFailure } from './wiring.js';
import { Redactor } from './api/redact.js';

/** stdout with every write redacted: results go there, and a result may quote the service. */
function redacting(out: CliIo['stdout'], secrets: Redactor): CliIo['stdout'] {
  return Object.assign(Object.create(out) as CliIo['stdout'], {
    write: (chunk: string) => out.write(secrets.redact(String(chunk))),
  });
}

export const EXIT = { ok: 0, failed: 1, badInput: 2, error: 3, SIGINT: 130, SIGTERM: 143 } as const;

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const defaultIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});

/** Runs one command; resolves to the exit code. */
export async function run(argv: string[] = process.argv.slice(2), io: CliIo = defaultIo()): Promise<number> {
  const say = (text: string): void => void io.stderr.write(`${text}\n`);
  let args: CliArgs;
  try {
    args = parseCli(argv);
  } catch (err) {
    say(`error: ${terminalLine(errorMessage(err))}`);
    return EXIT.badInput;
  }
  if (args.version) return (void io.stdout.write(`claw-deploy ${VERSION}\n`), EXIT.ok);
  if (!args.command || (args.help && !args.command)) {
    io.stdout.write(toolHelp());
    return args.help ? EXIT.ok : EXIT.badInput;
  }
  if (!(args.command in COMMAND_SUMMARIES)) {
    say(
      `error: ${terminalLine(`Unknown command ${JSON.stringify(args.command)}: expected one of ${Object.keys(COMMAND_SUMMARIES).join(', ')}.`)}`,
    );
    return EXIT.badInput;
  }
  if (args.help) return (void io.stdout.write(commandHelp(args.command)), EXIT.ok);
  if (args.command === 'preview') {
    say(
      'error: preview follows a GitHub pull request (opened, pushed, closed) and keeps its comment there: run it as the action, with command: preview, in a pull_request workflow.',
    );
    return EXIT.badInput;
  }

  const { env } = io;
  const secrets = new Redactor([...KEY_VARIABLES.map((v) => env[v]), env.GITHUB_TOKEN]);
  const color = io.stdout.isTTY === true && !env.NO_COLOR;
  const terminal = new Terminal({
    out: args.json ? io.stderr : io.stdout,
    color,
    progress: color && args.progress && !env.CI,
    verbose: args.verbose,
    redact: secrets.redact,
  });
  if (!KEY_VARIABLES.some((v) => env[v]?.trim())) {
    terminal.error(
      `No API key: set ${KEY_VARIABLES.join(' (or ')}) in the environment. The key is never taken from a flag.`,
    );
    return EXIT.badInput;
  }
  let settings: Settings;
  let files: InputFiles;
  try {
    settings = readSettings(cliReader(args, env));
    files = await readInputFiles(settings, io.cwd, env);
    secrets.add(...files.secrets, `${settings.authScheme} ${settings.apiKey}`.trim());
  } catch (err) {
    terminal.error(errorMessage(err));
    return EXIT.badInput;
  }

  // Ctrl-C: stop waiting, report what is known, roll back per --rollback-on; a second one ends it at once.
  const cancel = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) process.exit(EXIT[signal as 'SIGINT' | 'SIGTERM'] ?? EXIT.SIGINT);
    interrupted = signal;
    terminal.warning(`Received ${signal}: stopping, and rolling back if --auto-rollback covers cancelled.`);
    cancel.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const work = execute(settings, files, {
      log: terminal,
      signal: cancel.signal,
      workspace: io.cwd,
      tempDir: tmpdir(),
      github: githubRun(env),
      userAgent: `claw-deploy-cli/${VERSION}`,
      redact: secrets,
    });
    const result = await terminal.whileWaiting(
      `${settings.command} ${settings.clawId || settings.targets.ids.join(',')}`,
      work,
    );
    const outputs = report(result, files, args, { ...io, stdout: redacting(io.stdout, secrets) }, terminal);
    if (interrupted) return EXIT[interrupted as 'SIGINT' | 'SIGTERM'] ?? EXIT.SIGINT;
    if (result.ok || !result.failStep) return EXIT.ok;
    return outputs.outcome === 'error' ? EXIT.error : EXIT.failed;
  } catch (err) {
    if (err instanceof CancelledError || interrupted) {
      terminal.error(`Cancelled before the ${settings.command} finished.`);
      if (args.json) io.stdout.write(`${JSON.stringify({ outcome: 'cancelled' })}\n`);
      return EXIT[(interrupted ?? 'SIGINT') as 'SIGINT' | 'SIGTERM'];
    }
    const message = describeFailure(settings, err);
    terminal.error(message);
    if (args.json)
      io.stdout.write(secrets.redact(`${JSON.stringify({ outcome: 'error', message: clip(message, 2000) })}\n`));
    return err instanceof InputError ? EXIT.badInput : EXIT.error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The outcome for a person (a line, a table of outputs, the checks) or a machine (one JSON object). */
function report(
  result: CommandResult,
  files: InputFiles,
  args: CliArgs,
  io: CliIo,
  terminal: Terminal,
): Record<string, string> {
  const { values, warnings } = outputsOf(result, files);
  warnings.forEach(terminal.warning);
  const outputs = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
  outputs.outcome ??= result.ok ? 'succeeded' : 'failed';
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ...outputs, message: result.message })}\n`);
    return outputs;
  }
  if (result.ok) terminal.info(`✔ ${result.message}`);
  else terminal.error(result.message);
  // JSON outputs are long: the table shows the short ones; --json has them all.
  const rows: [string, string][] = Object.entries(outputs)
    .filter(([name]) => !['report', 'checks-report', 'plan'].includes(name))
    .map(([name, value]) => [name, terminalLine(value, 120)]);
  if (rows.length) terminal.raw(`\nOutputs:\n${table(rows)}`);
  if (result.checks) terminal.raw(`\n${checksTable(result.checks)}`);
  return outputs;
}

function checksTable(result: ChecksResult): string {
  const rows: [string, string][] = result.entries.map((e) => [
    terminalLine(`${e.clawId} · ${e.check}`, 80),
    `${{ passed: '✔ passed', failed: '✘ failed', error: '! error' }[verdictOf(e)]} ${e.passes}/${e.attempts}${e.failure ? ` · ${terminalLine(e.failure, 160)}` : ''}`,
  ]);
  return `Checks (${result.entries.filter((e) => e.passed).length} of ${result.entries.length} passed):\n${table(rows)}`;
}
