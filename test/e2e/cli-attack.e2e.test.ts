// The command line under attack, one input at a time, as a user runs it (the package's bin over
// dist/): odd argv, a checks file that names the key's own variable for its judge, a cancel in the
// middle of a rollback. Each attack gets its one-line refusal (or the right outputs), and --json
// stays one object on stdout.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { ROOT, collect } from './harness.ts';
import { judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });
const CLI = join(ROOT, 'bin', 'claw-deploy.cjs');
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

async function runCli(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    onLog?: (log: string, kill: (s: NodeJS.Signals) => void) => void;
  } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'claw-cli-')),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
    options.onLog?.(log, (signal) => child.kill(signal));
  });
  const ended = await collect(child);
  return { code: ended.exitCode, stdout: ended.stdout, stderr: ended.stderr };
}

const base = (s: Simulator) => ['--base-url', `${s.url}/v1`, '--poll-interval', '100ms', '--timeout', '20s'];

describe('claw-deploy under attack', () => {
  it("a checks file naming CLAW_DEPLOY_API_KEY as its judge's key: exit 2, the key never leaves for the judge", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    judge = await startJudge({ answer: () => verdict({ reason: 'ok', pass: true, score: 1 }) });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'checks.yml'),
      `judge: {url: "${judge.url}", model: m, api-key-env: CLAW_DEPLOY_API_KEY}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
    );
    const run = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', '--json', ...base(s)], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: The checks file "checks\.yml": its judge m at http:\/\/127\.0\.0\.1:\d+\/v1 would be sent the service's API key \(read from CLAW_DEPLOY_API_KEY\): expected the judge's own key; the service's key is never sent to a judge\.\n$/,
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'error', 'exit-code': 2 });
    expect(judge.requests).toEqual([]);
    expect(s.requests).toEqual([]);
  });

  it('SIGTERM while following the rollback: exit 143, and rollback-id names the rollback that was started, not the failed deployment', async () => {
    const s = await start({ speed: 1 });
    s.addClaw('c1', { plan: [['pending', 300], ['crashed']], rollbackPlan: [['rolling_back', 60_000], ['live']] });
    let sent = false;
    const run = await runCli(['deploy', '--claw-id', 'c1', '--auto-rollback', '--json', ...base(s)], {
      onLog: (log, kill) => {
        if (!sent && log.includes('Rollback started as deployment dep_0002')) {
          sent = true;
          kill('SIGTERM');
        }
      },
    });
    expect(sent).toBe(true);
    expect(run.code).toBe(143);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ 'exit-code': 143, 'deployment-id': 'dep_0001', 'rollback-id': 'dep_0002' });
    expect(result.message).toContain('the run was cancelled while waiting for rollback dep_0002');
  });

  it('--output onto the checks file or onto --junit: exit 2 before any request, the checks file kept', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'hello' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    const checks = 'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: hello}]}\n';
    writeFileSync(join(cwd, 'checks.yml'), checks);
    const cases: [string[], RegExp][] = [
      [['--output', './checks.yml'], /^error: --output is "\.\/checks\.yml": expected a file other than --checks /],
      [
        ['--output', 'r.json', '--junit', 'r.json'],
        /^error: --output is "r\.json": expected a file other than --junit/,
      ],
      [['--junit', 'checks.yml'], /^error: --junit is "checks\.yml": expected a file other than --checks /],
    ];
    for (const [flags, refusal] of cases) {
      const run = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', ...flags, '--json', ...base(s)], {
        cwd,
      });
      expect({ flags, code: run.code, stderr: run.stderr }).toEqual({
        flags,
        code: 2,
        stderr: expect.stringMatching(refusal),
      });
      expect((JSON.parse(run.stdout) as { outcome: string }).outcome).toBe('error');
    }
    expect(readFileSync(join(cwd, 'checks.yml'), 'utf8')).toBe(checks);
    expect(s.requests.filter((r) => r.path.startsWith('/chat'))).toEqual([]);
  });

  it('--output= or --output "" (an unset variable in a script) is refused, not a run that writes no file', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'hello' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'checks.yml'),
      'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: hello}]}\n',
    );
    for (const flags of [['--output='], ['--output', ''], ['--checks-output=']]) {
      const run = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', ...flags, '--json', ...base(s)], {
        cwd,
      });
      const name = flags[0].replace(/=$/, '');
      expect({ flags, code: run.code, stderr: run.stderr }).toEqual({
        flags,
        code: 2,
        stderr: `error: ${name} is empty: give it a value (${name} VALUE, or ${name}=VALUE), or leave the flag out.\n`,
      });
      expect((JSON.parse(run.stdout) as { outcome: string }).outcome).toBe('error');
    }
  });

  it('--json=true is refused (the switch takes no value) with its one JSON object all the same', async () => {
    const run = await runCli(['deploy', '--claw-id', 'c1', '--json=true']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: --json takes no value (given "true").\n');
    expect(JSON.parse(run.stdout)).toEqual({
      outcome: 'error',
      'exit-code': 2,
      message: '--json takes no value (given "true").',
    });
  });

  it('TERM=dumb in a real terminal: no live line, no colour, no escape sequence at all', async () => {
    let now = Date.now();
    const s = await start({ now: () => now, speed: 1 });
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    const child = spawn(
      'python3',
      [
        join(ROOT, 'test', 'support', 'pseudo-terminal.py'),
        '80',
        '50',
        '--',
        process.execPath,
        CLI,
        'deploy',
        '--claw-id',
        'c1',
        ...base(s),
      ],
      {
        cwd: mkdtempSync(join(tmpdir(), 'claw-tty-')),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          TERM: 'dumb',
          CLAW_DEPLOY_API_KEY: DEMO_KEY,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let bytes = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      bytes += chunk;
      // Once it waits, the minute passes at once.
      if (bytes.includes('pending (in progress)')) now += 60_000;
    });
    const ended = await collect(child);
    expect(ended.stderr.trim().split('\n').pop()).toBe('exit 0');
    expect(bytes).toContain('deployment dep_0001: live (success)');
    // eslint-disable-next-line no-control-regex
    expect(bytes).not.toMatch(/\u001b|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  it("--json and --output -: a reply's C1 controls, DEL, U+2028 and bidi controls reach stdout as \\uXXXX, and parse back the same", async () => {
    const s = await start();
    // Input controlled by: anyone who talks to the Claw. U+009B is a one-byte CSI to an xterm.
    const hostile = 'ok\u009b2J\u009bH FORGED: all checks passed\u007f\u2028\u2029\u202e\u2066\u200f\u061c\u0085.';
    const plain = 'café — ✅ 日本語 «quoted»';
    s.addClaw('c1', { chat: { mode: 'sync', reply: `${hostile} ${plain}` } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'checks.yml'),
      'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: nope}]}\n',
    );
    const acted = /[\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    for (const flags of [['--json'], ['--output', '-']]) {
      const run = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', ...flags, ...base(s)], { cwd });
      expect({ flags, code: run.code }).toEqual({ flags, code: 1 });
      expect(run.stdout, flags[0]).not.toMatch(acted);
      expect(run.stdout).toContain('ok\\u009b2J\\u009bH FORGED');
      expect(run.stdout).toContain('\\u202e\\u2066\\u200f\\u061c\\u0085');
      // The same value once parsed; what a terminal only draws (accents, emoji, CJK) stays as it is.
      expect(JSON.stringify(JSON.parse(run.stdout))).toContain(`${hostile} ${plain}`);
      expect(run.stdout).toContain(plain);
    }
  });

  it('SIGINT or SIGTERM while the bundle is still loading: --json still ends with its one object and the cancel exit code', async () => {
    // The bundle's load is held (a module hook) until the signal: the moment a slow disk gives a user.
    const dir = mkdtempSync(join(tmpdir(), 'claw-hold-'));
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { writeSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.endsWith('/dist/index.js')) {\n    writeSync(2, 'holding the bundle\\n');\n    await new Promise(() => {});\n  }\n  return next(url, context);\n}\n`,
    );
    writeFileSync(
      join(dir, 'hold.mjs'),
      `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\nsetInterval(() => {}, 1 << 30);\n`,
    );
    const env = { NODE_OPTIONS: `--import ${pathToFileURL(join(dir, 'hold.mjs')).href}` };
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      let sent = false;
      const run = await runCli(['deploy', '--claw-id', 'c1', '--json'], {
        env,
        onLog: (log, kill) => {
          if (!sent && log.includes('holding the bundle')) {
            sent = true;
            kill(signal);
          }
        },
      });
      expect(sent).toBe(true);
      expect({ signal, code: run.code }).toEqual({ signal, code });
      expect(JSON.parse(run.stdout)).toEqual({
        outcome: 'cancelled',
        'exit-code': code,
        message: `Interrupted (${signal}) before the command started: nothing was done.`,
      });
      expect(run.stderr).toContain(`error: Interrupted (${signal}) before the command started`);
    }
    // A benign control: with no signal, --json ends with the command's own object.
    const version = await runCli(['--version', '--json']);
    expect(version.code).toBe(0);
    expect(JSON.parse(version.stdout)).toMatchObject({ outcome: 'succeeded', 'exit-code': 0 });
  });
});
