// The command line as a user runs it: the package's bin (`bin/claw-deploy.cjs`, over dist/) in a
// child process of its own, the key in the environment, the log read line by line as it comes.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { COMPILE_CACHE, ROOT, collect } from './harness.ts';

export const CLI = join(ROOT, 'bin', 'claw-deploy.cjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    onLine?: (line: string, child: ChildProcess) => void;
    onLog?: (line: string, child: ChildProcess) => void;
  } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'claw-cli-')),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CLAW_DEPLOY_API_KEY: DEMO_KEY,
      ...COMPILE_CACHE,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The log is on stderr: `onLog` sees it line by line.
  let pending = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) options.onLog?.(line, child);
  });
  const ended = await collect(child, options);
  return { code: ended.exitCode, stdout: ended.stdout, stderr: ended.stderr };
}

/** The flags of a quick run against `sim`: its address, short polls, a 20 s deadline. */
export const base = (sim: Simulator): string[] => [
  '--base-url',
  `${sim.url}/v1`,
  '--poll-interval',
  '100ms',
  '--timeout',
  '20s',
];

/** The JSON Schema of --json, as docs/cli.md publishes it. */
function jsonSchema(): object {
  const doc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### `--json`'));
  return JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]) as object;
}
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(jsonSchema());

/** stdout of a --json run: exactly one JSON object, valid against the schema, with the exit code it says. */
export function oneJsonObject(run: CliRun): Record<string, unknown> {
  expect(run.stdout.endsWith('\n') && run.stdout.trim().split('\n')).toHaveLength(1);
  const value = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  expect(value['exit-code']).toBe(run.code);
  return value;
}
