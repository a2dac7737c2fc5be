// Model-graded checks through dist/index.js, as the runner runs it: a rubric that fails rolls the
// release back with the judge's reason; a judge that is down is an error in the JUnit file, never
// a failure; the judge's key is masked and never printed; the cache file is written and reused.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge, type FakeJudgeOptions, verdict } from '../sim/judge.ts';
import { runAction } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });
const JUDGE_KEY = 'sk-e2e-judge-key-9f8e7d6c5b4a';
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

async function judgeWith(options: FakeJudgeOptions): Promise<string> {
  judge = await startJudge(options);
  return judge.url;
}

function workspace(url: string, timeout = '5s'): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-workspace-'));
  mkdirSync(join(dir, '.github'));
  writeFileSync(
    join(dir, '.github', 'claw-checks.yml'),
    `judge:
  url: ${url}
  model: judge-model-2025-01-01
  api-key-env: OPENAI_API_KEY
defaults: {timeout: ${timeout}}
checks:
  - name: refund flow
    send: I want a refund
    assert:
      - type: llm-rubric
        value: Asks for the order number and never promises a refund
`,
  );
  return dir;
}

const inputs = (s: Parameters<typeof inputsFor>[0], extra: Record<string, string> = {}) =>
  inputsFor(s, { checks: '.github/claw-checks.yml', 'checks-junit': 'reports/checks.xml', ...extra });

describe('model-graded checks, end to end', () => {
  it('a rubric that fails: rolled back, the reason in the message and summary; the key masked; the cache kept', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['live']], chat: { mode: 'sync', reply: 'Sure, your refund is on its way!' } });
    const url = await judgeWith({
      answer: () => verdict({ reason: 'It promises a refund without the order number.', pass: false, score: 0.1 }),
    });
    const dir = workspace(url);
    const run = await runAction(inputs(s, { 'auto-rollback': 'true', 'judge-cache': '.claw-judge-cache.json' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY },
    });
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({ outcome: 'failed', 'rolled-back': 'true', 'checks-passed': 'false' });
    expect(run.errors[0]).toContain('did not hold (score 0.1): "It promises a refund without the order number."');
    expect(run.summary).toContain('Judge: 1 call(s), 0 from the cache, 340 token(s)');
    // Masked first thing, and never printed.
    expect(run.stdout).toContain(`::add-mask::${JUDGE_KEY}`);
    expect(run.stdout.replace(`::add-mask::${JUDGE_KEY}`, '')).not.toContain(JUDGE_KEY);
    expect(judge!.completions()[0].headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    const junit = readFileSync(join(dir, 'reports', 'checks.xml'), 'utf8');
    expect(junit).toContain('<failure ');
    expect(junit).toContain('<property name="judge.calls" value="1"/>');
    expect(existsSync(join(dir, '.claw-judge-cache.json'))).toBe(true);

    // The same release again: the same reply gets the cached verdict, with no call.
    const again = await runAction(inputs(s, { 'judge-cache': '.claw-judge-cache.json' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY },
    });
    expect(again.outputs['checks-passed']).toBe('false');
    expect(judge!.completions()).toHaveLength(1);
    expect(again.summary).toContain('Judge: 0 call(s), 1 from the cache');
  });

  it('a judge that answers 500 until the timeout: an error, never the Claw failing', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['live']], chat: { mode: 'sync', reply: 'What is your order number?' } });
    const url = await judgeWith({ answer: () => ({ status: 500, body: { error: { message: 'overloaded' } } }) });
    const dir = workspace(url, '1500ms');
    const run = await runAction(inputs(s), { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY } });
    expect(run.exitCode).toBe(1);
    const junit = readFileSync(join(dir, 'reports', 'checks.xml'), 'utf8');
    expect(junit).toContain('failures="0" errors="1"');
    // Whether the last answer seen was the 500 or the deadline, it is the judge's error, not the Claw's failure.
    expect(junit).toMatch(
      /<error message="error: judge unavailable: POST \/chat\/completions(?: failed: 500|: the deadline has passed)/,
    );
    expect(run.summary).toContain('⚠️ error');
    expect(run.errors[0]).toContain('judge unavailable');
  });

  it('an unset api-key-env is bad input, named with its line, before any request', async () => {
    const s = await start();
    s.addClaw('c1');
    const url = await judgeWith({});
    const run = await runAction(inputs(s), { env: { GITHUB_WORKSPACE: workspace(url) } });
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors).toEqual([
      ".github/claw-checks.yml, line 4: 'api-key-env' names OPENAI_API_KEY, which is not set: expected the variable in the step's environment (env: on the step, from a secret).",
    ]);
    expect(s.requests).toHaveLength(0);
    expect(judge!.requests).toHaveLength(0);
  });
});
