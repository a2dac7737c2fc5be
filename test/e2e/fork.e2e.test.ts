// A checks file written by a pull request's author, run through dist/index.js as the runner runs it
// (the working folder is the workspace). Under pull_request_target the file may come from a fork
// while the step holds the repository's secrets: it must not reach a file outside the repository,
// choose where a secret of the step goes, or hold the run past its timeout. In any event the
// service's API key never leaves for a judge. Each attack is refused before any request, with the
// file and the line; the genuine flows around it keep working.
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { WORKFLOW_TOKEN, runAction, workspaceWith } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startFakeJudge = judgePerTest();
let judge: FakeJudge | undefined;

/** A judge that finds every reply polite. */
async function startJudge(): Promise<FakeJudge> {
  judge = await startFakeJudge({ answer: () => verdict({ reason: 'Polite.', pass: true, score: 1 }) });
  return judge;
}

const workspace = (files: Record<string, string>): string => workspaceWith(files, 'claw-fork-');

/** What the step's environment holds besides the inputs: a judge's key, a token, the runner's own. */
const STEP_SECRETS = {
  OPENAI_API_KEY: 'sk-step-openai-key-0123456789',
  GITHUB_TOKEN: 'ghs_step-env-token-0123456789',
  ACTIONS_RUNTIME_TOKEN: 'runner-runtime-token-0123456789',
};
const fork = (dir: string) => ({
  env: { GITHUB_WORKSPACE: dir, GITHUB_EVENT_NAME: 'pull_request_target', ...STEP_SECRETS },
  cwd: dir,
});

describe('a checks file from a fork (pull_request_target)', () => {
  it('a template that includes a file (a link in views/ to a file outside the repository) reads nothing: refused before any request', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const outside = mkdtempSync(join(tmpdir(), 'claw-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'outside-the-repository-7f3a');
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['Hello {{q}} {% include "leak" %}']
tests:
  - vars: {q: there}
    assert: [{type: contains, value: Hello}]
`,
    });
    // Nunjucks' default loader reads views/ under the working folder and follows its links:
    // /proc/self/environ (the step's INPUT_API-KEY) as easily as this file.
    mkdirSync(join(dir, 'views'));
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'views', 'leak'));
    for (const event of ['pull_request_target', 'push']) {
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
        ...fork(dir),
        env: { ...fork(dir).env, GITHUB_EVENT_NAME: event },
      });
      expect(run.exitCode, event).toBe(1);
      expect(run.errors, event).toEqual([
        expect.stringMatching(
          /^promptfooconfig\.yaml, line 3: the prompt .* cannot be rendered for this test: it includes, imports or extends another template, which would read a file/,
        ),
      ]);
    }
    expect(s.requests.filter((r) => r.path.startsWith('/v1/chat/'))).toEqual([]);
    expect(JSON.stringify(s.requests)).not.toContain('outside-the-repository');
  });

  it('a var read from file://.git/config (where a checkout keeps its token) is refused before any request', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['Repeat exactly: {{cfg}}']
tests:
  - vars: {cfg: file://.git/config}
    assert: [{type: equals, value: no}]
`,
    });
    mkdirSync(join(dir, '.git'));
    writeFileSync(
      join(dir, '.git', 'config'),
      '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hwX3BhdA==\n',
    );
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), fork(dir));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /^promptfooconfig\.yaml, line 3: var 'cfg' is "file:\/\/\.git\/config", which cannot be used: it points into '\.git'/,
      ),
    ]);
    expect(s.requests).toEqual([]);
  });

  it('the checks file itself a link out of the workspace (/proc/self/environ, a runner file) or to a device is never read', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const outside = mkdtempSync(join(tmpdir(), 'claw-outside-'));
    writeFileSync(join(outside, 'credentials.yml'), 'aws_secret_access_key: outside-7f3a\n');
    const cases: [string, string][] = [
      [join(outside, 'credentials.yml'), 'it links outside the workspace'],
      ['/dev/zero', 'it links outside the workspace'],
    ];
    for (const [target, why] of cases) {
      const dir = workspace({});
      symlinkSync(target, join(dir, 'checks.yml'));
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), fork(dir));
      expect(run.exitCode, target).toBe(1);
      expect(run.errors, target).toEqual([
        `The checks file "checks.yml" could not be read (${why}): expected a YAML file, relative to the workspace (did the job check out the repository?).`,
      ]);
    }
    expect(s.requests).toEqual([]);
  });

  it('a tests file:// that is a FIFO is refused at once, never waited on', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const dir = workspace({ 'promptfooconfig.yaml': `prompts: ['{{q}}']\ntests: file://tests.yaml\n` });
    execFileSync('mkfifo', [join(dir, 'tests.yaml')]);
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      ...fork(dir),
      killAfterMs: 20_000,
    });
    expect(run.signal).toBeNull();
    expect(run.errors).toEqual([
      expect.stringMatching(
        /^promptfooconfig\.yaml, line 2: "file:\/\/tests\.yaml" cannot be read: it is not a regular file/,
      ),
    ]);
    expect(s.requests).toEqual([]);
  });

  it('links a pull request placed at the JUnit, output and judge-cache paths, leading out of the workspace, are refused in one line each: never written through, never replaced', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const j = await startJudge();
    const outside = mkdtempSync(join(tmpdir(), 'claw-outside-'));
    const victims = ['checks.xml', 'results.json', 'cache.json'].map((name) => join(outside, name));
    for (const victim of victims) writeFileSync(victim, 'a runner file\n');
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: polite}]\n`,
    });
    mkdirSync(join(dir, 'reports'));
    symlinkSync(victims[0], join(dir, 'reports', 'checks.xml'));
    symlinkSync(victims[1], join(dir, 'reports', 'results.json'));
    symlinkSync(victims[2], join(dir, '.claw-judge-cache.json'));
    // And a folder that is a link: nothing is written into it.
    symlinkSync(outside, join(dir, 'elsewhere'));
    const inputs = {
      command: 'check',
      checks: 'promptfooconfig.yaml',
      'checks-junit': 'reports/checks.xml',
      'checks-output': 'reports/results.json',
      'judge-cache': '.claw-judge-cache.json',
    };
    const run = await runAction(inputsFor(s, inputs), {
      ...fork(dir),
      env: { ...fork(dir).env, OPENAI_BASE_URL: j.url },
    });
    expect(run.exitCode, run.stdout).toBe(0);
    for (const victim of victims) expect(readFileSync(victim, 'utf8')).toBe('a runner file\n');
    // The links stay as the pull request placed them: a rename over one would have hidden where it led.
    for (const [link, victim] of [
      [join(dir, 'reports', 'checks.xml'), victims[0]],
      [join(dir, 'reports', 'results.json'), victims[1]],
      [join(dir, '.claw-judge-cache.json'), victims[2]],
    ]) {
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(victim);
    }
    const refusal = ': it is a link leading outside the workspace: a link is written through, never replaced';
    expect(run.warnings.filter((w) => w.startsWith('Could not write')).sort()).toEqual(
      [
        `Could not write the JUnit file 'reports/checks.xml'${refusal}`,
        `Could not write the checks output 'reports/results.json'${refusal}`,
        `Could not write the judge cache${refusal}`,
      ].sort(),
    );
    const intoLink = await runAction(inputsFor(s, { ...inputs, 'checks-junit': 'elsewhere/checks.xml' }), {
      ...fork(dir),
      env: { ...fork(dir).env, OPENAI_BASE_URL: j.url },
    });
    expect(intoLink.warnings).toContainEqual(
      expect.stringContaining(
        `Could not write the JUnit file 'elsewhere/checks.xml': its folder "elsewhere" links outside the workspace`,
      ),
    );
    expect(readFileSync(victims[0], 'utf8')).toBe('a runner file\n');
  });

  it('a judge cache whose verdicts a pull request wrote or edited is never read: the judge is asked', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Whatever.' } });
    judge = await startFakeJudge({ answer: () => verdict({ reason: 'Rude.', pass: false, score: 0 }) });
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: polite}]\n`,
    });
    const inputs = inputsFor(s, {
      command: 'check',
      checks: 'promptfooconfig.yaml',
      'judge-cache': '.claw-judge-cache.json',
    });
    const env = { ...fork(dir), env: { ...fork(dir).env, OPENAI_BASE_URL: judge.url } };
    const first = await runAction(inputs, env);
    expect(first.exitCode).toBe(1);
    // The pull request's edit: every verdict a pass (the keys are a SHA-256 anyone can compute).
    const path = join(dir, '.claw-judge-cache.json');
    const cache = JSON.parse(readFileSync(path, 'utf8')) as { verdicts: Record<string, { answer: object }> };
    expect(Object.keys(cache.verdicts)).toHaveLength(1);
    for (const entry of Object.values(cache.verdicts)) entry.answer = { reason: 'Polite.', pass: true, score: 1 };
    writeFileSync(path, JSON.stringify(cache));
    const second = await runAction(inputs, env);
    expect(second.exitCode).toBe(1);
    expect(judge.completions()).toHaveLength(2);
  });

  it('a judge block naming a variable of the step (api-key-env, an {env} header) is refused: the file would choose the secret and its address', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const j = await startJudge();
    const cases: [string, RegExp][] = [
      [
        `judge: {url: "${j.url}", model: m, api-key-env: ACTIONS_RUNTIME_TOKEN}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
        /^checks\.yml, line 1: 'api-key-env' reads a secret from the environment: refused under pull_request_target/,
      ],
      [
        `judge:\n  url: "${j.url}"\n  model: m\n  headers:\n    X-Token: {env: GITHUB_TOKEN}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
        /^checks\.yml, line 5: header 'X-Token' reads a secret from the environment: refused under pull_request_target/,
      ],
    ];
    for (const [text, error] of cases) {
      const dir = workspace({ 'checks.yml': text });
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), fork(dir));
      expect(run.exitCode).toBe(1);
      expect(run.errors).toEqual([expect.stringMatching(error)]);
    }
    expect(j.requests).toEqual([]);
    expect(s.requests).toEqual([]);
  });

  it("a promptfoo grader sending the step's secrets to its own apiBaseUrl (apiKeyEnvar: INPUT_GITHUB-TOKEN, or OPENAI_API_KEY) is refused", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const j = await startJudge();
    const config = (providerConfig: string) => `prompts: ['{{q}}']
tests:
  - vars: {q: hi}
    assert:
      - type: llm-rubric
        value: polite
        provider:
          id: openai:chat:m
          config: ${providerConfig}
`;
    const cases: [string, RegExp][] = [
      [
        `{apiBaseUrl: "${j.url}", apiKeyEnvar: "INPUT_GITHUB-TOKEN"}`,
        /^promptfooconfig\.yaml, line 7: the grader's 'apiKeyEnvar' reads a secret from the environment: refused under pull_request_target/,
      ],
      [
        `{apiBaseUrl: "${j.url}"}`,
        /^promptfooconfig\.yaml, line 7: the grader's 'apiBaseUrl' would be sent OPENAI_API_KEY from the environment: refused under pull_request_target/,
      ],
    ];
    for (const [providerConfig, error] of cases) {
      const dir = workspace({ 'promptfooconfig.yaml': config(providerConfig) });
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), fork(dir));
      expect(run.exitCode).toBe(1);
      expect(run.errors).toEqual([expect.stringMatching(error)]);
    }
    expect(j.requests).toEqual([]);
    expect(s.requests).toEqual([]);
  });

  it('the genuine flow: the default grader at the address the environment names (OPENAI_BASE_URL) grades with OPENAI_API_KEY', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const j = await startJudge();
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
tests:
  - vars: {q: hi}
    assert: [{type: llm-rubric, value: polite}]
`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      ...fork(dir),
      env: { ...fork(dir).env, OPENAI_BASE_URL: j.url },
    });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(j.completions()).toHaveLength(1);
    expect(j.completions()[0].headers.authorization).toBe(`Bearer ${STEP_SECRETS.OPENAI_API_KEY}`);
  });

  it(
    'nested loops in a template (no function call needed) end with one error within the read bound, never past the step',
    { timeout: 90_000 },
    async () => {
      const s = await start();
      s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
      const loops = 'abcdefghi'.split('');
      const template =
        '{% set x = [1,2,3,4,5,6,7,8,9,10] %}' +
        loops.map((v) => `{% for ${v} in x %}`).join('') +
        '{{q}}' +
        loops.map(() => '{% endfor %}').join('');
      const dir = workspace({
        'promptfooconfig.yaml': `prompts: ['${template}']
tests:
  - vars: {q: a}
    assert: [{type: contains, value: a}]
`,
      });
      // Before, the render ran on (10^9 iterations) past the step's timeout and past SIGTERM; then a
      // 5 s read bound cut it; now the evaluator's work bound refuses it at the template's line.
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
        ...fork(dir),
        killAfterMs: 60_000,
      });
      expect(run.signal).toBeNull();
      expect(run.exitCode).toBe(1);
      expect(run.errors).toEqual([
        expect.stringMatching(
          /^promptfooconfig\.yaml, line 3: the prompt .* it handles more than 32 Mi characters and items/,
        ),
      ]);
      expect(s.requests).toEqual([]);
    },
  );
});

describe("the service's API key never leaves for a judge", () => {
  it('a promptfoo grader reading the step input INPUT_API-KEY, on a push, is refused before the deployment', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 200], ['live']], chat: { mode: 'sync', reply: 'Hello' } });
    const j = await startJudge();
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
tests:
  - vars: {q: hi}
    assert:
      - type: llm-rubric
        value: polite
        provider: {id: 'openai:chat:m', config: {apiBaseUrl: "${j.url}", apiKeyEnvar: INPUT_API-KEY}}
`,
    });
    const run = await runAction(inputsFor(s, { checks: 'promptfooconfig.yaml', 'auto-rollback': 'true' }), {
      env: { GITHUB_WORKSPACE: dir },
      cwd: dir,
    });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringContaining(
        "would be sent the service's API key (read from INPUT_API-KEY): expected the judge's own key",
      ),
    ]);
    expect(run.errors.join('\n') + run.summary).not.toContain(DEMO_KEY);
    expect(j.requests).toEqual([]);
    expect(s.requests).toEqual([]);
  });

  it('the GitHub token may still be a judge key (GitHub Models) outside pull_request_target', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
    const j = await startJudge();
    const dir = workspace({
      'checks.yml': `judge: {url: "${j.url}", model: openai/gpt-4.1, api-key-env: GITHUB_TOKEN}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
      // A pull request from this repository: its head repository is the repository, by id.
      'event.json': JSON.stringify({ repository: { id: 1 }, pull_request: { number: 7, head: { repo: { id: 1 } } } }),
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), {
      env: {
        GITHUB_WORKSPACE: dir,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: join(dir, 'event.json'),
        GITHUB_TOKEN: WORKFLOW_TOKEN,
      },
      cwd: dir,
    });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(j.completions()[0].headers.authorization).toBe(`Bearer ${WORKFLOW_TOKEN}`);
  });
});

describe('a promptfoo grader, checked before the first write', () => {
  it('a grader header no request can carry (a line break) is bad input before the deployment, never a rollback after it', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 200], ['live']], chat: { mode: 'sync', reply: 'Hello' } });
    const j = await startJudge();
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
tests:
  - vars: {q: hi}
    assert:
      - type: llm-rubric
        value: polite
        provider: {id: 'openai:chat:m', config: {apiBaseUrl: "${j.url}", apiKey: sk-file-key-1234, headers: {X-Team: "a\\nb"}}}
`,
    });
    const run = await runAction(inputsFor(s, { checks: 'promptfooconfig.yaml', 'auto-rollback': 'true' }), {
      env: { GITHUB_WORKSPACE: dir },
      cwd: dir,
    });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(/^promptfooconfig\.yaml, line 7: the grader's header "X-Team" holds a line break/),
    ]);
    expect(s.requests).toEqual([]);
  });

  it("a rubricPrompt looping over a long reply is the grading's error within seconds, never a run held past its timeout", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'x'.repeat(3000) } });
    const j = await startJudge();
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
defaultTest:
  options:
    provider: {id: 'openai:chat:m', config: {apiBaseUrl: "${j.url}", apiKey: sk-file-key-1234}}
    rubricPrompt: '{% for a in output %}{% for b in output %}{% for c in output %}.{% endfor %}{% endfor %}{% endfor %} {{rubric}}'
tests:
  - vars: {q: hi}
    assert: [{type: llm-rubric, value: polite}]
`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', timeout: '20s' }), {
      env: { GITHUB_WORKSPACE: dir },
      cwd: dir,
    });
    expect(run.signal).toBeNull();
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      "judge unavailable: its grading prompt: promptfooconfig.yaml, line 5: 'rubricPrompt': the template did not render: it handles more than 32 Mi characters and items",
    );
    expect(j.requests).toEqual([]);
  });
});

describe("a javascript assertion (the repository's own code, on pull_request or after the merge)", () => {
  it(
    'one that eats memory ends at its bound as an error; one that returns a 50 MB reason leaves a JUnit file of a few KiB',
    { timeout: 60_000 },
    async () => {
      const s = await start();
      s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
      const dir = workspace({
        'promptfooconfig.yaml': `prompts: ['{{q}}']
evaluateOptions: {timeoutMs: 30000}
tests:
  - vars: {q: a}
    assert:
      - type: javascript
        value: |
          const kept = [];
          for (;;) kept.push(new Array(1e6).fill(1));
  - vars: {q: b}
    assert:
      - type: javascript
        value: |
          const reason = 'y'.repeat(50 * 1024 * 1024);
          return { pass: false, score: 0, reason };
`,
      });
      const run = await runAction(
        inputsFor(s, {
          command: 'check',
          checks: 'promptfooconfig.yaml',
          'checks-junit': 'checks.xml',
          timeout: '60s',
        }),
        { env: { GITHUB_WORKSPACE: dir }, cwd: dir, measureRss: true },
      );
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toMatch(/q=a: error .*used more than 512 MB of memory/);
      expect(run.stdout).toMatch(/q=b: failed/);
      expect(statSync(join(dir, 'checks.xml')).size).toBeLessThan(64 * 1024);
      // Not the 1.7 GB the unbounded worker reached.
      expect(run.peakRssKb).toBeLessThan(1_200_000);
    },
  );
});
