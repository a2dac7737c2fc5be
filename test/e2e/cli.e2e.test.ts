// The command line as a user runs it: `claw-deploy <command> --flags` (the package's bin, over dist/) against the
// simulator, with the key in the environment; exit codes, --json, --junit, Ctrl-C with a rollback,
// no ANSI when not a terminal, a hostile status shown as text, and --help naming every input.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { ROOT, collect, readActionYml } from './harness.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });
const CLI = join(ROOT, 'bin', 'claw-deploy.cjs');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; onLine?: (line: string, child: ChildProcess) => void } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'claw-cli-')),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ended = await collect(child, options);
  return { code: ended.exitCode, stdout: ended.stdout, stderr: ended.stderr };
}

const base = (sim: Simulator) => ['--base-url', `${sim.url}/v1`, '--poll-interval', '100ms', '--timeout', '20s'];
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

describe('claw-deploy, the command line', () => {
  it('a deploy that succeeds: exit 0, the status as it changes, the outputs as a table, no ANSI off a terminal', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 1000], ['live']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', ...base(s)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/deployment dep_0001: pending \(in progress\)/);
    expect(run.stdout).toMatch(/deployment dep_0001: live \(success\)/);
    expect(run.stdout).toMatch(/Outputs:\n {2}deployment-id +dep_0001\n {2}status +live\n {2}outcome +succeeded/);
    expect(run.stdout).not.toMatch(ANSI);
    expect(run.stdout + run.stderr).not.toContain(DEMO_KEY);
  });

  it('a deploy that fails and is rolled back: exit 1; --json is one parsable object', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 500], ['crashed']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', '--auto-rollback', '--json', ...base(s)]);
    expect(run.code).toBe(1);
    const outputs = JSON.parse(run.stdout) as Record<string, string>;
    expect(outputs).toMatchObject({
      outcome: 'failed',
      status: 'crashed',
      'rolled-back': 'true',
      'rollback-id': 'dep_0002',
    });
    expect(outputs.message).toContain('It was rolled back');
    // The log went to stderr, so stdout holds the JSON alone.
    expect(run.stderr).toContain('deployment dep_0001: crashed');
  });

  it("bad input: exit 2 with the action's own message, before any request", async () => {
    const s = await start();
    const run = await runCli(['deploy', '--claw-id', '../etc', ...base(s)]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`error: Input 'claw-id' is "../etc": expected an identifier without whitespace`);
    expect(s.requests).toHaveLength(0);
    const flagKey = await runCli(['deploy', '--api-key', 'x', ...base(s)]);
    expect(flagKey.code).toBe(2);
    expect(flagKey.stderr).toContain(
      'The API key is read only from the environment (CLAW_DEPLOY_API_KEY, or AMS_API_KEY)',
    );
    const unknown = await runCli(['deploy', '--claw', 'c1', ...base(s)]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--claw'/);
  });

  it('a refused key: exit 3 (could not act), said as the action says it; AMS_API_KEY is read too', async () => {
    const s = await start();
    s.addClaw('c1');
    const run = await runCli(['health', '--claw-id', 'c1', ...base(s)], {
      env: { CLAW_DEPLOY_API_KEY: '', AMS_API_KEY: 'not-the-key' },
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('The API key was refused (401 unauthorized)');
    expect(run.stdout).not.toContain('not-the-key');
  });

  it('check: a checks file against a staging Claw, no deployment, with --junit', async () => {
    const s = await start();
    s.addClaw('claw-staging', { chat: { mode: 'sync', reply: 'Hello! What is your order number?' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'claw-checks.yml'),
      'checks:\n  - name: greets\n    send: Hello\n    assert: [{type: icontains, value: hello}]\n  - name: refunds\n    send: I want a refund\n    assert: [{type: contains, value: refund}]\n',
    );
    const run = await runCli(
      [
        'check',
        '--claw-id',
        'claw-staging',
        '--checks',
        'claw-checks.yml',
        '--junit',
        'reports/checks.xml',
        ...base(s),
      ],
      { cwd },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Checks \(1 of 2 passed\):/);
    expect(run.stdout).toMatch(/claw-staging · refunds +✘ failed 0\/1 · contains "refund" did not hold/);
    const junit = readFileSync(join(cwd, 'reports', 'checks.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="Claw claw-staging" tests="2" failures="1" errors="0"');
    expect(s.requests.some((r) => r.path.startsWith('/v1/deployments'))).toBe(false);
  });

  it('Ctrl-C during a wait with auto-rollback covering cancelled: rolled back, exit 130', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    const run = await runCli(
      ['deploy', '--claw-id', 'c1', '--auto-rollback', '--rollback-on', 'failed,cancelled', ...base(s)],
      { onLine: (line, child) => void (line.includes('pending (in progress)') && child.kill('SIGINT')) },
    );
    expect(run.code).toBe(130);
    expect(
      s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/deployments/dep_0001/rollback'),
    ).toHaveLength(1);
    expect(run.stdout).toContain('Received SIGINT');
  });

  it('a hostile status with escape sequences is printed as text, never as a terminal control', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['\u001b[2J\u001b[31mdeploying\u001b]0;pwned\u0007', 500], ['live']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', ...base(s)]);
    expect(run.code).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(run.stdout).toContain('\\x1b[2J\\x1b[31mdeploying\\x1b]0;pwned\\x07');
  });

  it('--help for the tool and for each command names every input action.yml has, and the exit codes', async () => {
    const tool = await runCli(['--help']);
    expect(tool.code).toBe(0);
    expect(tool.stdout).toMatch(/Exit codes:\n {2}0 /);
    const commands = ['deploy', 'wait', 'rollback', 'health', 'check', 'plan', 'apply', 'drift', 'preview'];
    for (const command of commands) expect(tool.stdout).toContain(`  ${command} `);
    const inputs = Object.keys(readActionYml().inputs).filter((name) => !['command', 'api-key'].includes(name));
    for (const command of commands) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      for (const name of inputs) expect(help.stdout, `${command} --help names --${name}`).toContain(`--${name} `);
      expect(help.stdout).toContain('CLAW_DEPLOY_API_KEY');
    }
    const preview = await runCli(['preview', '--manifest', 'claws.yml']);
    expect(preview.code).toBe(2);
    expect(preview.stderr).toContain('preview follows a GitHub pull request');
    const version = await runCli(['--version']);
    expect(version.stdout).toMatch(/^claw-deploy \d+\.\d+\.\d+\n$/);
  });
});

describe('one table of inputs', () => {
  it('action.yml documents exactly the table the command line reads: names, order, descriptions, defaults', async () => {
    const { INPUTS } = await import('../../src/inputs.ts');
    const action = readActionYml();
    expect(Object.keys(action.inputs)).toEqual(INPUTS.map((i) => i.name));
    for (const input of INPUTS) {
      const spec = action.inputs[input.name];
      expect(spec.description, input.name).toBe(input.description);
      expect(spec.required ?? false, input.name).toBe(input.required ?? false);
      if (!input.required) expect(spec.default ?? '', input.name).toBe(input.default);
    }
  });

  it('--version is the package version', async () => {
    const { VERSION } = await import('../../src/version.ts');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
