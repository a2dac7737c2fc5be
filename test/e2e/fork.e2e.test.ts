// A checks file written by a pull request's author, run through dist/index.js as the runner runs it
// (the working folder is the workspace). Under pull_request_target the file may come from a fork
// while the step holds the repository's secrets: it must not reach a file outside the repository,
// choose where a secret of the step goes, or hold the run past its timeout. In any event the
// service's API key never leaves for a judge. Each attack is refused before any request, with the
// file and the line; the genuine flows around it keep working.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
let judge: FakeJudge | undefined;
afterEach(async () => {
  await judge?.stop();
  judge = undefined;
});

async function startJudge(): Promise<FakeJudge> {
  judge = new FakeJudge({ answer: () => verdict({ reason: 'Polite.', pass: true, score: 1 }) });
  await judge.start();
  return judge;
}

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-fork-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

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
      // Before, the render ran on (10^9 iterations) past the step's timeout and past SIGTERM.
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
        ...fork(dir),
        killAfterMs: 60_000,
      });
      expect(run.signal).toBeNull();
      expect(run.exitCode).toBe(1);
      expect(run.errors).toEqual([
        expect.stringMatching(/^promptfooconfig\.yaml, line 1: reading the promptfoo config took more than 5s/),
      ]);
      expect(s.requests).toEqual([]);
    },
  );
});

describe('a rubricPrompt at grading time', () => {
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
      'judge unavailable: its grading prompt: the template did not render: it took more than 2s',
    );
    expect(j.requests).toEqual([]);
  });
});
