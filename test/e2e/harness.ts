// Runs the bundled action as the runner does: INPUT_* with action.yml's defaults, the
// GITHUB_OUTPUT / GITHUB_STEP_SUMMARY / GITHUB_STATE files, an event payload, and signals.
// Erasable TypeScript, so the demo and the benchmark run it with plain `node` too.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Node's compile cache for the bundle, shared by every run of every test: V8 compiles the 1.2 MB
 * dist/index.js once instead of in each child, a third of a short run's CPU. Keyed by the file's
 * contents, so a rebuilt dist/ is compiled afresh; the product never sees it.
 */
export const COMPILE_CACHE = { NODE_COMPILE_CACHE: join(tmpdir(), 'claw-deploy-test-compile-cache') };

/** What `${{ github.token }}` evaluates to in these runs. */
export const WORKFLOW_TOKEN = 'ghs_workflow-token-for-tests-0123456789';

interface ActionYml {
  inputs: Record<string, { default?: string; description: string; required?: boolean }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string; post?: string; 'post-if'?: string };
}

export function readActionYml(): ActionYml {
  return parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;
}

export interface RunOptions {
  /** `main` or `post`: the same dist/index.js, told apart by the state the main step saved. */
  entry?: 'main' | 'post';
  /** State the main step saved, handed to the post step as STATE_* variables. */
  state?: Record<string, string>;
  env?: Record<string, string>;
  /** Sees the log as it arrives; may signal the child. */
  onLine?: (line: string, child: ChildProcess) => void;
  /** Kill with SIGKILL if still running after this long (a guard, not a test of speed). */
  killAfterMs?: number;
  /** Report the process's peak memory (`peakRssKb`). */
  measureRss?: boolean;
  /**
   * Start the action's clock at this time (epoch ms): a hook loaded before it shifts `Date` by a
   * fixed offset, so time still passes at its real pace. The product reads the clock as ever.
   */
  clockAt?: number;
  /** The working folder (the runner's is the workspace); the caller's by default. */
  cwd?: string;
}

/** A fresh workspace holding `files` (name → text), as a checkout would; `prefix` names the folder. */
export function workspaceWith(files: Record<string, string>, prefix = 'claw-workspace-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A run in the workspace `dir` under `event`, whose payload is the workspace's `event.json`, with `env` besides. */
export function onEvent(dir: string, event: string, env: Record<string, string> = {}): RunOptions {
  return {
    env: { GITHUB_WORKSPACE: dir, GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: join(dir, 'event.json'), ...env },
    cwd: dir,
  };
}

/** A module, loaded with --import, that moves the process's `Date` to start at `at`. */
export function clockHook(at: number): string {
  const source = `const R=Date,o=${Math.round(at)}-R.now();class D extends R{constructor(...a){a.length?super(...a):super(R.now()+o)}static now(){return R.now()+o}}globalThis.Date=D;`;
  return `--import=data:text/javascript,${encodeURIComponent(source)}`;
}

export interface ActionRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  state: Record<string, string>;
  summary: string;
  /** Wall time from spawn to exit. */
  ms: number;
  /** Lines the runner would show as errors (`::error::`), unescaped. */
  errors: string[];
  warnings: string[];
  /** Every line of stdout the runner would obey as a command, as it would see them. */
  commands: string[];
  /** Peak resident memory of the action's process, with `measureRss`. */
  peakRssKb?: number;
}

/**
 * Lines of stdout the runner treats as workflow commands: it splits on `\n` and on a bare `\r`,
 * trims whitespace, and obeys `::name…` at the start or `##[` anywhere.
 */
export function runnerCommands(stdout: string): string[] {
  return stdout
    .split(/\r\n|\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('::') || line.includes('##['));
}

/** Parses a GITHUB_OUTPUT / GITHUB_STATE file (`name<<delimiter` blocks). */
export function parseFileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]);
    if (!match) continue;
    const [, name, delimiter] = match;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]);
    values[name] = value.join('\n');
  }
  return values;
}

function unescapeCommand(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

export async function runAction(inputs: Record<string, string>, options: RunOptions = {}): Promise<ActionRun> {
  const action = readActionYml();
  const dir = mkdtempSync(join(tmpdir(), 'claw-deploy-run-'));
  const files = {
    output: join(dir, 'output'),
    summary: join(dir, 'summary.md'),
    state: join(dir, 'state'),
    event: join(dir, 'event.json'),
    rss: join(dir, 'rss'),
  };
  for (const file of [files.output, files.summary, files.state]) writeFileSync(file, '');
  writeFileSync(
    files.event,
    JSON.stringify({ ref: 'refs/heads/main', after: 'a1b2c3d4e5f6a7b8c9d0', repository: { full_name: 'octo/claws' } }),
  );

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    // The bundled action is ESM; keep the caller's loader hooks out of it.
    NODE_OPTIONS: '',
    HOME: process.env.HOME ?? dir,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_STATE: files.state,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_REPOSITORY: 'octo/claws',
    GITHUB_SHA: 'a1b2c3d4e5f6a7b8c9d0',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '4242',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_WORKFLOW: 'deploy',
    GITHUB_ACTION: 'claw-deploy',
    RUNNER_TEMP: dir,
    ...COMPILE_CACHE,
  };
  // The runner sets every input declared in action.yml: the workflow's value or the default,
  // with the default's `${{ github.token }}` evaluated.
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = inputs[name] ?? spec.default ?? '';
    env[`INPUT_${name.toUpperCase()}`] = value.replace(/\$\{\{\s*github\.token\s*\}\}/g, WORKFLOW_TOKEN);
  }
  // The post step runs with the state the main step saved, which always begins with isPost.
  const state = options.entry === 'post' ? { isPost: 'true', ...options.state } : (options.state ?? {});
  for (const [name, value] of Object.entries(state)) env[`STATE_${name}`] = value;
  Object.assign(env, options.env);
  if (options.measureRss) {
    const hook = `import fs from 'node:fs';process.on('exit',()=>fs.writeFileSync(${JSON.stringify(files.rss)},String(process.resourceUsage().maxRSS)))`;
    env.NODE_OPTIONS = `--import=data:text/javascript,${encodeURIComponent(hook)}`;
  }
  if (options.clockAt !== undefined) env.NODE_OPTIONS = `${env.NODE_OPTIONS} ${clockHook(options.clockAt)}`.trim();

  const entry = options.entry === 'post' ? (action.runs.post ?? '') : action.runs.main;
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, entry)], {
    env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { stdout, stderr, exitCode, signal } = await collect(child, options);
  const ms = performance.now() - started;

  const read = (file: string): string => readFileSync(file, 'utf8');
  const commands = (prefix: string): string[] =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith(prefix))
      .map((l) => unescapeCommand(l.replace(/^::\w+[^:]*::/, '')));
  const run: ActionRun = {
    exitCode,
    signal,
    stdout,
    stderr,
    outputs: parseFileCommands(read(files.output)),
    state: parseFileCommands(read(files.state)),
    summary: read(files.summary),
    ms,
    errors: commands('::error'),
    warnings: commands('::warning'),
    commands: runnerCommands(stdout),
    peakRssKb: options.measureRss && existsSync(files.rss) ? Number(read(files.rss)) : undefined,
  };
  rmSync(dir, { recursive: true, force: true });
  return run;
}

/** A child's output, line by line to `onLine` as it arrives, and how it ended (killed after `killAfterMs`). */
export async function collect(
  child: ChildProcess,
  options: Pick<RunOptions, 'onLine' | 'killAfterMs'> = {},
): Promise<{ stdout: string; stderr: string; exitCode: number | null; signal: NodeJS.Signals | null }> {
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) options.onLine?.(line, child);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 60_000);
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, sig) => resolve([code, sig])),
  );
  clearTimeout(guard);
  return { stdout, stderr, exitCode, signal };
}
