// Trust, round two, through dist/ as the runner and a shell user run it: every event a fork
// controls (not only pull_request_target), templates as data under any event, paths by where
// their links lead, the key hidden by invisible characters, documents a strict parser opens,
// real judges' answers, failures that name what failed, a long check that says where it is, and
// the command line's SIGHUP and `--output -`. Each attack beside the benign run that must still work.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { FakeGitHub } from '../sim/github.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { FakeJudge, type JudgeReply, verdict } from '../sim/judge.ts';
import { ROOT, collect, onEvent, runAction } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

const REPO_ID = 1001;
const FORK_ID = 2002;

/** A workspace with `files`, and the event payload `event` beside them. */
function workspace(files: Record<string, string>, event: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-trust-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, 'event.json'),
    JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...event }),
  );
  return dir;
}

/** The step's environment besides the inputs: a judge's key and the runner's own token. */
const STEP_SECRETS = { OPENAI_API_KEY: 'sk-step-openai-key-0123456789', GITHUB_TOKEN: 'ghs_step-env-token-0123456789' };
const on = (dir: string, event: string, extra: Record<string, string> = {}) =>
  onEvent(dir, event, { ...STEP_SECRETS, ...extra });

/** Every event under which the files are a fork's, with its payload, and how the refusal names it. */
const FORK_EVENTS: [string, Record<string, unknown>, string][] = [
  [
    'pull_request_target',
    { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } },
    'pull_request_target',
  ],
  [
    'workflow_run',
    { workflow_run: { event: 'pull_request', head_repository: { id: FORK_ID } } },
    'workflow_run from a fork',
  ],
  [
    'issue_comment',
    { issue: { number: 7, pull_request: { url: 'https://api.github.com/repos/octo/claws/pulls/7' } } },
    'issue_comment on a pull request',
  ],
  [
    'pull_request',
    { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } },
    'pull_request from a fork',
  ],
];

const JS_CONFIG = `prompts: ['Hello {{q}}']
tests:
  - vars: {q: there}
    assert:
      - {type: javascript, value: "output.includes('Hello')"}
`;

/** What a person sees of a text: its invisible characters dropped. */
const seen = (text: string): string => text.replace(/\p{Default_Ignorable_Code_Point}/gu, '');

describe('who controls the files, by event', () => {
  it.each(FORK_EVENTS)(
    "under %s a fork's javascript is refused before any request, naming the event and trusted-files",
    async (event, payload, named) => {
      const s = await start();
      s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
      const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, payload);
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(dir, event));
      expect(run.exitCode).toBe(1);
      expect(run.errors).toEqual([
        expect.stringMatching(
          new RegExp(
            `^promptfooconfig\\.yaml, line 5: a javascript runs the repository's JavaScript, refused under ${named}, where the file may come from a fork: .*set 'trusted-files: true'`,
          ),
        ),
      ]);
      expect(s.requests).toEqual([]);
    },
  );

  it("a fork's file never chooses the judge's address or headers, even without a key; trusted-files lets the repository's own do so", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    judge = await startJudge({ answer: () => verdict({ reason: 'ok', pass: true, score: 1 }) });
    const [event, payload, named] = FORK_EVENTS[2];
    const dir = workspace(
      {
        'checks.yml': `judge: {url: "${judge.url}", model: m}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
        'promptfooconfig.yaml': `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: polite}]\ndefaultTest:\n  options:\n    provider: {id: 'openai:chat:m', config: {apiBaseUrl: '${judge.url}', apiKey: k}}\n`,
      },
      payload,
    );
    const quiet = { OPENAI_API_KEY: '' };
    const native = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), on(dir, event, quiet));
    expect(native.errors).toEqual([
      expect.stringMatching(
        new RegExp(`^checks\\.yml, line 1: 'url' chooses where the replies go: refused under ${named}`),
      ),
    ]);
    const promptfoo = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }),
      on(dir, event, quiet),
    );
    expect(promptfoo.errors).toEqual([
      expect.stringMatching(new RegExp(`'apiBaseUrl' chooses where the replies go: refused under ${named}`)),
    ]);
    expect(s.requests).toEqual([]);
    expect(judge.requests).toHaveLength(0);
    // The benign control: the workflow vouches for its checkout, and the judge is asked.
    const trusted = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'trusted-files': 'true' }),
      on(dir, event, quiet),
    );
    expect(trusted.exitCode).toBe(0);
    expect(judge.requests.length).toBeGreaterThan(0);
  });

  it("a fork's judge with a key from the environment, and a manifest's { env }, are refused under workflow_run from a fork", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    judge = await startJudge({ answer: () => verdict({ reason: 'ok', pass: true, score: 1 }) });
    const [event, payload] = FORK_EVENTS[1];
    const dir = workspace(
      {
        'checks.yml': `judge: {url: "${judge.url}", model: m, api-key-env: OPENAI_API_KEY}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
        'promptfooconfig.yaml': `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: polite}]\ndefaultTest:\n  options:\n    provider: {id: 'openai:chat:m', config: {apiBaseUrl: '${judge.url}'}}\n`,
        'claws.yml': 'claws:\n  c1:\n    config:\n      token: {env: GITHUB_TOKEN}\n',
      },
      payload,
    );
    const native = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), on(dir, event));
    expect(native.errors).toEqual([
      expect.stringMatching(
        /^checks\.yml, line 1: 'api-key-env' reads a secret from the environment: refused under workflow_run from a fork/,
      ),
    ]);
    const promptfoo = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }),
      on(dir, event),
    );
    expect(promptfoo.errors).toEqual([
      expect.stringMatching(
        /would be sent OPENAI_API_KEY from the environment: refused under workflow_run from a fork/,
      ),
    ]);
    const plan = await runAction(
      inputsFor(s, { command: 'plan', manifest: 'claws.yml', 'claw-id': '' }),
      on(dir, event),
    );
    expect(plan.errors).toEqual([
      expect.stringMatching(
        /^claws\.yml, line 4: \{ env: GITHUB_TOKEN \} chooses which of the step's secrets goes into a Claw, refused under workflow_run from a fork/,
      ),
    ]);
    expect(s.requests).toEqual([]);
    expect(judge.requests).toEqual([]);
  });

  it("controls: the repository's own javascript runs on push, on a workflow_run of its own branch, and with trusted-files: true", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const runs: [string, Record<string, unknown>, Record<string, string>][] = [
      ['push', {}, {}],
      ['workflow_run', { workflow_run: { event: 'push', head_repository: { id: REPO_ID } } }, {}],
      ['pull_request', { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: REPO_ID } } } }, {}],
      ['workflow_run', FORK_EVENTS[1][1], { 'trusted-files': 'true' }],
    ];
    for (const [event, payload, extra] of runs) {
      const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, payload);
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', ...extra }),
        on(dir, event),
      );
      expect(run.exitCode, `${event} ${run.stdout}`).toBe(0);
      expect(run.outputs['checks-passed']).toBe('true');
    }
  });
});

describe('templates are data, under any event', () => {
  it('a template that calls a constructor is refused with its line on push; the key never reaches the Claw', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'ok' } });
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['Say {{q}}']\ntests:\n  - vars: {q: "{{ range.constructor('return process.env[\\"INPUT_API-KEY\\"]')() }}"}\n    assert: [{type: contains, value: ok}]\n`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(dir, 'push'));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /^promptfooconfig\.yaml, line 3: .*it holds a function call: expected variables and filters only/,
      ),
    ]);
    expect(s.requests).toEqual([]);
    // The control: variables and filters render as ever.
    const plain = workspace({
      'promptfooconfig.yaml': `prompts: ['Say {{q | upper}}']\ntests:\n  - vars: {q: ok}\n    assert: [{type: contains, value: ok}]\n`,
    });
    const good = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(plain, 'push'));
    expect(good.exitCode, good.stdout).toBe(0);
    expect(JSON.stringify(s.requests)).toContain('Say OK');
  });
});

describe('every path by where it leads', () => {
  it('notes.txt -> .git/config as a file:// var is refused under pull_request_target and on push; a normal file:// var works', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['Repeat exactly: {{cfg}}']\ntests:\n  - vars: {cfg: file://notes.txt}\n    assert: [{type: contains, value: Hello}]\n`,
      'ok.yaml': `prompts: ['Repeat exactly: {{cfg}}']\ntests:\n  - vars: {cfg: file://plain.txt}\n    assert: [{type: contains, value: Hello}]\n`,
      'plain.txt': 'a plain note',
    });
    mkdirSync(join(dir, '.git'));
    writeFileSync(
      join(dir, '.git', 'config'),
      '[http]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hwX3BhdA==\n',
    );
    symlinkSync('.git/config', join(dir, 'notes.txt'));
    for (const event of ['pull_request_target', 'push']) {
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), on(dir, event));
      expect(run.exitCode, event).toBe(1);
      expect(run.errors, event).toEqual([
        expect.stringMatching(
          /^promptfooconfig\.yaml, line 3: var 'cfg' is "file:\/\/notes\.txt", which cannot be used: it links into '\.git'/,
        ),
      ]);
    }
    expect(s.requests).toEqual([]);
    const good = await runAction(inputsFor(s, { command: 'check', checks: 'ok.yaml' }), on(dir, 'pull_request_target'));
    expect(good.exitCode, good.stdout).toBe(0);
    expect(JSON.stringify(s.requests)).toContain('a plain note');
    expect(JSON.stringify(s.requests)).not.toContain('extraheader');
  });

  it('reports -> a folder outside: checks-junit reports/a/b/c/x.xml makes nothing there; a report inside is written', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const outside = mkdtempSync(join(tmpdir(), 'claw-outside-'));
    const dir = workspace({
      'checks.yml': 'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: Hello}]}\n',
    });
    symlinkSync(outside, join(dir, 'reports'));
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'checks-junit': 'reports/a/b/c/x.xml' }),
      on(dir, 'pull_request_target'),
    );
    expect(run.warnings).toContainEqual(
      expect.stringContaining(`its folder "reports/a/b/c" links outside the workspace`),
    );
    expect(existsSync(join(outside, 'a'))).toBe(false);
    const good = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'checks-junit': 'out/a/x.xml' }),
      on(dir, 'pull_request_target'),
    );
    expect(good.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'out', 'a', 'x.xml'), 'utf8')).toContain('<testsuite');
  });
});

describe('one redactor that sees what a reader sees', () => {
  const hidden = (between: string): string => [...DEMO_KEY].join(between);
  it.each([
    ['a soft hyphen', '\u00ad'],
    ['U+034F', '\u034f'],
    ['U+180E', '\u180e'],
    ['U+FE0F', '\ufe0f'],
    ['the Hangul filler', '\u3164'],
  ])('a reply holding the key with %s between its characters reaches no sink', async (_name, between) => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: `here it is: ${hidden(between)} !` } });
    const dir = workspace({
      'checks.yml': 'checks:\n  - {name: leak, send: key please, assert: [{type: contains, value: never}]}\n',
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'checks-junit': 'checks.xml' }),
      on(dir, 'push'),
    );
    expect(run.exitCode).toBe(1);
    const log = run.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    const sinks = [log, run.summary, JSON.stringify(run.outputs), readFileSync(join(dir, 'checks.xml'), 'utf8')];
    for (const sink of sinks) expect(seen(sink)).not.toContain(DEMO_KEY);
    // What is not the key stays: the reply around it is still reported.
    expect(run.stdout).toContain('here it is: *** !');
  });
});

describe('every document well formed', () => {
  it('a reply with U+FFFF, U+FFFE, a lone surrogate and controls: the JUnit file parses strictly; a plain reply is shown as it is', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'bad \uffff \ufffe \ud800 \u0001 \u001b[31m end' } });
    s.addClaw('c2', { chat: { mode: 'sync', reply: 'plain reply' } });
    const dir = workspace({
      'checks.yml': 'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: never}]}\n',
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', 'claw-id': 'c1,c2', checks: 'checks.yml', 'checks-junit': 'checks.xml' }),
      on(dir, 'push'),
    );
    expect(run.exitCode).toBe(1);
    const xml = readFileSync(join(dir, 'checks.xml'), 'utf8');
    const parser = new SaxesParser({ xmlns: true });
    parser.on('error', (err) => {
      throw err;
    });
    expect(() => parser.write(xml).close()).not.toThrow();
    expect(xml).toContain('plain reply');
  });
});

describe('health over time: the page, the badges and the issues', () => {
  it('a Claw id with U+FFFF, and one that is the key with soft hyphens: every badge parses, no sink shows the key; a plain id is on the page', async () => {
    const sim = new Simulator();
    await sim.start();
    const github = new FakeGitHub();
    await github.start();
    try {
      const hiddenKey = [...DEMO_KEY].join('\u00ad');
      for (const id of ['claw-\uffff', hiddenKey, 'claw-plain']) sim.addClaw(id, { status: 'offline' });
      const done = await runAction(
        {
          command: 'health',
          'api-key': DEMO_KEY,
          'base-url': `${sim.url}/v1`,
          'claw-id': '*',
          'poll-interval': '100ms',
          timeout: '20s',
          incidents: 'true',
          'status-page': 'true',
          confirm: '1',
        },
        { env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: '501' } },
      );
      expect(done.exitCode).toBe(1);
      const paths = github.repo.files('claw-health');
      const badges = paths.filter((p) => p.endsWith('.svg'));
      expect(badges.length).toBeGreaterThanOrEqual(3);
      for (const path of badges) {
        const parser = new SaxesParser({ xmlns: true });
        parser.on('error', (err) => {
          throw new Error(`${path}: ${err.message}`);
        });
        parser.write(github.repo.file('claw-health', path)!).close();
      }
      const log = done.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::'));
      const everything = JSON.stringify([
        github.repo.issues,
        paths,
        paths.map((p) => github.repo.file('claw-health', p)),
        log,
        done.summary,
        done.outputs,
      ]);
      expect(seen(everything)).not.toContain(DEMO_KEY);
      expect(github.repo.file('claw-health', 'index.html')).toContain('claw-plain');
      expect(paths).toContain('badges/claw-plain.svg');
    } finally {
      await sim.stop();
      await github.stop();
    }
  });
});

describe("real judges' answers", () => {
  const CHECKS = (url: string) =>
    `judge: {url: "${url}", model: m, api-key-env: JUDGE_KEY}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`;
  const body = '{"reason": "Polite.", "pass": true, "score": 1}';
  it.each<[string, string, boolean]>([
    ['bare JSON (the control)', body, true],
    ['a ```json fence', `\`\`\`json\n${body}\n\`\`\``, true],
    ['a <think> block first', `<think>Is {"pass": false} right? No.</think>\n${body}`, true],
    ['two objects', `${body}\n{"reason": "no", "pass": false, "score": 0}`, false],
  ])('under a JSON schema, %s', async (_name, content, passes) => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    judge = await startJudge({ answer: (): JudgeReply => ({ content }) });
    const dir = workspace({ 'checks.yml': CHECKS(judge.url) });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml' }),
      on(dir, 'push', { JUDGE_KEY: 'judge-key-0123456789' }),
    );
    expect(run.exitCode, run.stdout).toBe(passes ? 0 : 1);
    if (!passes)
      expect(run.stdout).toMatch(
        /judge unavailable: its answer held more or less than the one JSON object its schema asked for: /,
      );
    await judge.stop();
    judge = undefined;
  });
});

describe('failures say what failed; a long check says where it is', () => {
  it('an llm-rubric listed before a failing contains: the failure names the contains', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Please share your order number.' } });
    judge = await startJudge({ answer: () => verdict({ reason: 'ok', pass: true, score: 1 }) });
    const dir = workspace({
      'checks.yml': `judge: {url: "${judge.url}", model: m, api-key-env: JUDGE_KEY}\nchecks:\n  - name: order\n    send: refund\n    assert:\n      - {type: llm-rubric, value: polite}\n      - {type: contains, value: refund}\n`,
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml' }),
      on(dir, 'push', { JUDGE_KEY: 'judge-key-0123456789' }),
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/❌ c1 · order: failed .*: contains "refund" did not hold/);
    expect(judge.requests).toEqual([]);
  });

  it('a check running past 10 s prints a progress line while it runs', async () => {
    const s = await start({ speed: 1 });
    // One reply takes 12 s of real time (a task the Claw finishes slowly).
    s.addClaw('c1', { chat: { mode: 'task', reply: 'Hello, how can I help?', taskMs: 12_000 } });
    const dir = workspace({
      'checks.yml': 'checks:\n  - {name: slow, send: hi, timeout: 60s, assert: [{type: contains, value: Hello}]}\n',
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'checks.yml', 'poll-interval': '500ms', timeout: '60s' }),
      on(dir, 'push'),
    );
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/⏳ c1 · slow: attempt 1 of 1 under way, 0 passed so far \(10s\)/);
  }, 40_000);
});

describe('the command line', () => {
  const CLI = join(ROOT, 'bin', 'claw-deploy.cjs');
  async function runCli(args: string[], cwd: string, onLog?: (log: string, kill: (s: NodeJS.Signals) => void) => void) {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      onLog?.(log, (signal) => child.kill(signal));
    });
    const ended = await collect(child);
    return { code: ended.exitCode, stdout: ended.stdout, stderr: ended.stderr };
  }

  it('SIGHUP (the terminal closed) takes the cancel path: rolled back when the policy covers it, exit 129', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    const run = await runCli(
      [
        'deploy',
        '--claw-id',
        'c1',
        '--auto-rollback',
        '--rollback-on',
        'failed,cancelled',
        '--json',
        '--base-url',
        `${s.url}/v1`,
        '--poll-interval',
        '100ms',
        '--timeout',
        '20s',
      ],
      cwd,
      (log, kill) => void (log.includes('pending (in progress)') && kill('SIGHUP')),
    );
    expect(run.code).toBe(129);
    expect(
      s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/deployments/dep_0001/rollback'),
    ).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'cancelled', 'exit-code': 129 });
  });

  it("--output - writes promptfoo's JSON to stdout alone; with --json it is refused before any request", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'checks.yml'),
      'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: Hello}]}\n',
    );
    const args = ['check', '--claw-id', 'c1', '--checks', 'checks.yml', '--output', '-', '--base-url', `${s.url}/v1`];
    const run = await runCli(args, cwd);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as { results: { results: unknown[] } };
    expect(output.results.results).toHaveLength(1);
    expect(run.stderr).toContain('✔');
    expect(existsSync(join(cwd, '-'))).toBe(false);
    const before = s.requests.length;
    const both = await runCli([...args, '--json'], cwd);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /^error: --output - writes promptfoo's output to stdout, where --json writes its object/,
    );
    expect(JSON.parse(both.stdout)).toMatchObject({ 'exit-code': 2 });
    expect(s.requests.length).toBe(before);
  });
});
