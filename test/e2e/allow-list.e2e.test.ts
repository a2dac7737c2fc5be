// Trust by construction, through dist/ as the runner and a shell user run it: events trusted by an
// allow-list (an event not known to carry the repository's own commit is a fork's, the command line
// inside GitHub Actions included), Git's folder told by identity (the folder a `.git` file points
// to, however it is named), and output files written through, never replaced, when they are a
// device or a FIFO. Each attack failed on the code before; each sits beside the run that must work.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { ROOT, collect, onEvent, runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const REPO_ID = 1001;
const FORK_ID = 2002;
const STEP_SECRETS = { GITHUB_TOKEN: 'ghs_step-env-token-0123456789', OPENAI_API_KEY: 'sk-step-openai-key-0123456789' };

/** A workspace with `files` and the runner's event payload (`event.json`) for this repository. */
function workspace(files: Record<string, string>, payload: Record<string, unknown> = {}): string {
  return workspaceWith(
    { ...files, 'event.json': JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...payload }) },
    'claw-allow-',
  );
}

const on = (dir: string, event: string, extra: Record<string, string> = {}) =>
  onEvent(dir, event, { ...STEP_SECRETS, ...extra });

const JS_CONFIG = `prompts: ['Hello {{q}}']
tests:
  - vars: {q: there}
    assert:
      - {type: javascript, value: "output.includes('Hello')"}
`;
const pullRequest = (head: number) => ({
  pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: head } } },
});

const refusal = (event: string, line = 5) =>
  new RegExp(
    `^promptfooconfig\\.yaml, line ${line}: .* refused under ${event}, where the file may come from a fork: .*set 'trusted-files: true'`,
  );

describe('events: only those known to carry the repository’s own commit run its code', () => {
  // Each carried a fork's commit and ran its code before: none was on the list of a fork's events.
  const OTHERS: [string, Record<string, unknown>][] = [
    ['check_suite', { check_suite: { head_sha: 'feedc0ffee', pull_requests: [] } }],
    ['check_run', { check_run: { head_sha: 'feedc0ffee' } }],
    ['status', { sha: 'feedc0ffee', state: 'success' }],
    ['repository_dispatch', { action: 'deploy', client_payload: { ref: 'refs/pull/7/head' } }],
    ['deployment_status', { deployment: { sha: 'feedc0ffee' } }],
    ['an_event_github_adds_tomorrow', {}],
  ];

  it.each(OTHERS)('under %s a javascript assertion is refused before any request', async (event, payload) => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, payload);
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(dir, event));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([expect.stringMatching(refusal(event))]);
    expect(s.requests).toEqual([]);
  });

  it("under check_run a judge reading GITHUB_TOKEN for the file's own address is refused; the judge hears nothing", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const dir = workspace({
      'checks.yml': `judge: {url: "http://127.0.0.1:9/v1", model: m, api-key-env: GITHUB_TOKEN}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), on(dir, 'check_run'));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /^checks\.yml, line 1: 'api-key-env' reads a secret from the environment: refused under check_run, where the file may come from a fork/,
      ),
    ]);
    expect(s.requests).toEqual([]);
  });

  it('a pull_request whose payload names no head repository is not shown to be this one: refused', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace(
      { 'promptfooconfig.yaml': JS_CONFIG },
      { pull_request: { number: 7, head: { sha: 'feedc0ffee' } } },
    );
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }),
      on(dir, 'pull_request'),
    );
    expect(run.errors).toEqual([expect.stringMatching(refusal('pull_request from a fork'))]);
    expect(s.requests).toEqual([]);
  });

  it.each<[string, string, Record<string, unknown>, Record<string, string>]>([
    ['a pull_request from this repository', 'pull_request', pullRequest(REPO_ID), {}],
    ['push', 'push', {}, {}],
    [
      'merge_group',
      'merge_group',
      { merge_group: { head_sha: 'feedc0ffee', head_ref: 'refs/heads/gh-readonly-queue/main/pr-7' } },
      {},
    ],
    ['workflow_dispatch', 'workflow_dispatch', {}, {}],
    ["check_suite with 'trusted-files: true'", 'check_suite', {}, { 'trusted-files': 'true' }],
  ])('the control: under %s the repository’s own javascript runs', async (_, event, payload, inputs) => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, payload);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', ...inputs }),
      on(dir, event),
    );
    expect(run.errors).toEqual([]);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toContain('All 1 check(s) passed.');
  });
});

const CLI = join(ROOT, 'bin', 'claw-deploy.cjs');

/** The command line in `cwd`, with the key and `env`; its output and how it ended. */
async function runCli(args: string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ended = await collect(child);
  return { code: ended.exitCode, stdout: ended.stdout, stderr: ended.stderr };
}

const cliBase = (s: Simulator) => ['--claw-id', 'c1', '--base-url', `${s.url}/v1`, '--poll-interval', '100ms'];

describe('the command line inside GitHub Actions applies the same rule, from the runner’s event file', () => {
  it('a pull_request_target workflow running claw-deploy: refused with --trusted-files named; the flag, or a shell outside Actions, runs the file', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, pullRequest(FORK_ID));
    const runner = {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request_target',
      GITHUB_EVENT_PATH: join(dir, 'event.json'),
    };
    const args = ['check', '--checks', 'promptfooconfig.yaml', ...cliBase(s)];
    const refused = await runCli(args, dir, runner);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: promptfooconfig\.yaml, line 5: a javascript runs the repository's JavaScript, refused under pull_request_target, where the file may come from a fork: .*set --trusted-files when the workflow checks out the repository's own code/,
    );
    expect(s.requests).toEqual([]);
    const trusted = await runCli([...args, '--trusted-files'], dir, runner);
    expect(trusted.code, trusted.stderr).toBe(0);
    const shell = await runCli(args, dir, { GITHUB_EVENT_NAME: 'pull_request_target' });
    expect(shell.code, shell.stderr).toBe(0);
  });
});

describe('Git’s folder, by identity', () => {
  const CANARY = 'ghp_checkout-token-in-git-config-7f3a';
  /** A checkout whose `.git` is a file pointing at `.bare` (a bare clone with worktrees, `--separate-git-dir`). */
  function pointedCheckout(files: Record<string, string>): string {
    const dir = workspace(files);
    mkdirSync(join(dir, '.bare'));
    writeFileSync(join(dir, '.bare', 'config'), `[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}\n`);
    writeFileSync(join(dir, '.git'), 'gitdir: ./.bare\n');
    writeFileSync(join(dir, 'notes.txt'), 'plain notes');
    return dir;
  }
  const varConfig = (value: string) =>
    `prompts: ['Repeat: {{cfg}}']\ntests:\n  - vars: {cfg: "${value}"}\n    assert: [{type: contains, value: R}]\n`;

  it.each([
    ['file://.bare/config', undefined],
    ['file://meta/config', 'meta'],
    ['file://notes-link.txt', 'notes-link.txt'],
  ])('%s (the folder the .git file points to) is refused before any request', async (value, link) => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Repeat' } });
    const dir = pointedCheckout({ 'promptfooconfig.yaml': varConfig(value) });
    if (link === 'meta') symlinkSync('.bare', join(dir, 'meta'));
    if (link === 'notes-link.txt') symlinkSync('.bare/config', join(dir, 'notes-link.txt'));
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(dir, 'push'));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /^promptfooconfig\.yaml, line 3: var 'cfg' is "file:\/\/.*", which cannot be used: it .*'\.git'/,
      ),
    ]);
    expect(JSON.stringify(s.requests)).not.toContain(CANARY);
    expect(s.requests).toEqual([]);
  });

  /**
   * Whether this machine lets a test give a folder a second name in a mount namespace of its own
   * (`unshare -Urm`, then a bind mount): `.GIT` the same folder as `.git`, as on a case-folding file
   * system (macOS, Windows). Nothing outside the namespace sees the mount.
   */
  const secondNames = (() => {
    try {
      execFileSync('unshare', ['-Urm', 'true'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!secondNames)(
    'file://.GIT/config where .GIT is .git (a case-folding file system, here a bind mount): refused; the command line sends nothing',
    async () => {
      const s = await start();
      s.addClaw('c1', { chat: { mode: 'sync', reply: 'Repeat' } });
      const dir = workspace({ 'promptfooconfig.yaml': varConfig('file://.GIT/config') });
      mkdirSync(join(dir, '.git'));
      writeFileSync(join(dir, '.git', 'config'), `[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}\n`);
      mkdirSync(join(dir, '.GIT'));
      const script = 'mount --bind "$1/.git" "$1/.GIT" && cd "$1" && shift && exec "$@"';
      const child = spawn(
        'unshare',
        [
          '-Urm',
          'sh',
          '-c',
          script,
          'sh',
          dir,
          process.execPath,
          CLI,
          'check',
          '--checks',
          'promptfooconfig.yaml',
          ...cliBase(s),
        ],
        {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const run = await collect(child);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toMatch(
        /^error: promptfooconfig\.yaml, line 3: var 'cfg' is "file:\/\/\.GIT\/config", which cannot be used: it .*'\.git'/,
      );
      expect(JSON.stringify(s.requests)).not.toContain(CANARY);
      expect(s.requests).toEqual([]);
    },
  );

  it('the control: a plain file:// var in the same checkout is read and sent', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Repeat' } });
    const dir = pointedCheckout({ 'promptfooconfig.yaml': varConfig('file://notes.txt') });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(dir, 'push'));
    expect(run.exitCode, run.stdout).toBe(0);
    expect(JSON.stringify(s.requests)).toContain('Repeat: plain notes');
  });
});

describe('output files: a device or a FIFO is written through, never replaced', () => {
  /** A FIFO at `path`, read by `cat` into `path.read` until its writer closes it. */
  function fifoWithReader(path: string): { reader: ChildProcess; done: Promise<string> } {
    execFileSync('mkfifo', [path]);
    const reader = spawn('sh', ['-c', 'cat "$1" > "$1.read"', 'sh', path], { stdio: 'ignore' });
    const done = new Promise<string>((resolve) =>
      reader.on('close', () => resolve(readFileSync(`${path}.read`, 'utf8'))),
    );
    return { reader, done };
  }
  const CHECKS = 'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: Hello}]}\n';

  it('--junit and --output naming a FIFO: the reader gets the reports and the FIFOs stay FIFOs; then --junit /dev/null stays a device', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'checks.yml': CHECKS });
    const junit = fifoWithReader(join(dir, 'junit.xml'));
    const output = fifoWithReader(join(dir, 'output.json'));
    const run = await runCli(
      ['check', '--checks', 'checks.yml', '--junit', 'junit.xml', '--output', 'output.json', ...cliBase(s)],
      dir,
    );
    // Before, the reports were renamed over the FIFOs: their readers waited on, the paths became files.
    junit.reader.kill();
    output.reader.kill();
    expect(run.code, run.stderr).toBe(0);
    expect(lstatSync(join(dir, 'junit.xml')).isFIFO()).toBe(true);
    expect(lstatSync(join(dir, 'output.json')).isFIFO()).toBe(true);
    expect(await junit.done).toContain('<testsuite name="Claw c1"');
    expect(JSON.parse(await output.done)).toHaveProperty('results');
    // Only now that the write-through is shown: the null device is written, and stays a device.
    const devNull = await runCli(['check', '--checks', 'checks.yml', '--junit', '/dev/null', ...cliBase(s)], dir);
    expect(devNull.code, devNull.stderr).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('a FIFO no one reads is one warning, never a run held open', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'checks.yml': CHECKS });
    execFileSync('mkfifo', [join(dir, 'junit.xml')]);
    const run = await runCli(['check', '--checks', 'checks.yml', '--junit', 'junit.xml', ...cliBase(s)], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Could not write the JUnit file 'junit.xml': it is a FIFO that no one reads");
    expect(lstatSync(join(dir, 'junit.xml')).isFIFO()).toBe(true);
  });

  it("the action's checks-junit at a FIFO is written through; checks-output: /dev/stdout is refused before any request", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'checks.yml': CHECKS });
    mkdirSync(join(dir, 'reports'));
    const junit = fifoWithReader(join(dir, 'reports', 'pipe.xml'));
    // A link in the workspace to the FIFO in the workspace is followed: it stays inside.
    symlinkSync('pipe.xml', join(dir, 'reports', 'checks.xml'));
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'checks-junit': 'reports/checks.xml' }),
      on(dir, 'push'),
    );
    junit.reader.kill();
    expect(run.exitCode, run.stdout).toBe(0);
    expect(await junit.done).toContain('<testsuite name="Claw c1"');
    expect(lstatSync(join(dir, 'reports', 'checks.xml')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'reports', 'pipe.xml')).isFIFO()).toBe(true);
    const stdout = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'checks-output': '/dev/stdout' }),
      on(dir, 'push'),
    );
    expect(stdout.exitCode).toBe(1);
    expect(stdout.errors).toEqual([
      expect.stringMatching(/^Input 'checks-output' is "\/dev\/stdout": expected a file/),
    ]);
  });

  it('the control: a regular file is still replaced atomically (a new file renamed over it); a link to one in the workspace is written through, the link kept', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspace({ 'checks.yml': CHECKS, 'junit.xml': 'old report\n', 'elsewhere.json': 'kept\n' });
    symlinkSync('elsewhere.json', join(dir, 'output.json'));
    const before = statSync(join(dir, 'junit.xml')).ino;
    const target = statSync(join(dir, 'elsewhere.json')).ino;
    const run = await runCli(
      ['check', '--checks', 'checks.yml', '--junit', 'junit.xml', '--output', 'output.json', ...cliBase(s)],
      dir,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<testsuite name="Claw c1"');
    expect(statSync(join(dir, 'junit.xml')).ino).not.toBe(before);
    // The link is never replaced: its target, a regular file inside the workspace, is replaced by rename.
    expect(lstatSync(join(dir, 'output.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'output.json'))).toBe('elsewhere.json');
    expect(statSync(join(dir, 'elsewhere.json')).ino).not.toBe(target);
    expect(JSON.parse(readFileSync(join(dir, 'elsewhere.json'), 'utf8'))).toHaveProperty('results');
    expect(run.stderr).not.toContain('Could not write');
  });
});
