// Output files into the log, through dist/index.js and the command line: checks-junit or
// checks-output (--junit, --output) naming the step's own stdout or stderr, however spelled
// (/dev/stderr, /dev/fd/1, /proc/self/fd/2), on a runner's log or a real pipe, are refused with a
// warning: a Claw's reply never reaches the log raw.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import { CLI, base } from './cli-run.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe('output files into the log', () => {
  it("checks-junit or checks-output naming the step's stdout or stderr, however spelled, is refused: a reply never reaches the log raw", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'no\n::error::FORGED by the Claw\n::add-mask::c1' } });
    const dir = workspaceWith({
      'checks.yml': `checks:\n  - {name: q, send: hi, assert: [{type: equals, value: 'yes'}]}\n`,
    });
    for (const path of ['/dev/stderr', '/proc/self/fd/2', '/dev/fd/1', '/proc/self/fd/1', '/proc/thread-self/fd/2']) {
      for (const input of ['checks-junit', 'checks-output']) {
        const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml', [input]: path }), {
          env: { GITHUB_WORKSPACE: dir },
        });
        expect(run.warnings.join('\n')).toMatch(/Could not write the (JUnit file|checks output)/);
        expect(`${run.stdout}\n${run.stderr}`, `${input}: ${path}`).not.toMatch(/^::error::FORGED/m);
      }
    }
  });
});

/** The command line with its stdout and stderr one real pipe (as a runner's, or `2>&1 | cat`), not a socket. */
async function cliThroughPipe(args: string[], cwd: string): Promise<{ code: number | null; log: string }> {
  const child = spawn('sh', ['-c', 'exec "$0" "$@" 2>&1 | cat', process.execPath, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (log += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, log };
}

describe('output files into a real pipe', () => {
  it('--junit and --output naming the log (a pipe, as on a runner) by /dev/stderr, /dev/fd/1 or /proc/self/fd/2 are refused', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'no\n::error::FORGED by the Claw\n' } });
    const dir = workspaceWith({
      'checks.yml': `checks:\n  - {name: q, send: hi, assert: [{type: equals, value: 'yes'}]}\n`,
    });
    for (const path of ['/dev/stderr', '/dev/fd/1', '/proc/self/fd/2']) {
      for (const flag of ['--junit', '--output']) {
        const run = await cliThroughPipe(
          ['check', '--checks', 'checks.yml', '--claw-id', 'c1', flag, path, ...base(s)],
          dir,
        );
        expect(run.log).toMatch(/^warning: Could not write the (JUnit file|checks output) /m);
        expect(run.log, `${flag} ${path}`).not.toMatch(/^::error::FORGED/m);
        expect(run.log, `${flag} ${path}`).not.toMatch(/<testsuites|"results"/);
      }
    }
  });
});
