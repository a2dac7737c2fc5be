// A fork's template against the evaluator's bounds, through dist/index.js under
// pull_request_target: a list built and walked in a loop stops at the evaluator's bound on items,
// a prompt Nunjucks' parser reads in quadratic time stops at the read watchdog, and a rubricPrompt
// whose costly branch waits for the Claw's reply is bounded at grading time too. Each stops
// before any request (or before the judge is asked).
import { describe, expect, it } from 'vitest';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { eventWorkspace, forkPr, promptConfig } from './fork-files.ts';
import { onEvent, runAction } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;
const SECRETS = { GITHUB_TOKEN: 'ghs_round4-step-token-0123456789', OPENAI_API_KEY: 'sk-round4-openai-0123456789' };

describe("a fork's template against the evaluator's bounds", () => {
  // Found: `batch(n, fill)` built an n-item list that `reverse`, `rejectattr` and `selectattr`
  // copied or walked uncharged, so a loop of k turns cost k × n for about 5k steps (16M items,
  // 1,000 turns: hours of work in 150 characters); only the 5 s read watchdog stopped it. Now every
  // list a filter walks or builds is charged item by item and capped at 1,000,000 items.
  it('a list built by batch and reversed in a loop stops at a bound of the evaluator, before any request', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const turns = Array.from({ length: 1000 }, (_, i) => i).join(',');
    const prompt = `{% set big = [1] | batch(16777216, 1) | first %}{% for i in [${turns}] %}{{ big | reverse | length }}{{ big | rejectattr("x") | length }}{% endfor %}`;
    const dir = eventWorkspace({ 'c.yaml': promptConfig(prompt) }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml', timeout: '10s' }),
      onEvent(dir, 'pull_request_target', SECRETS),
    );
    expect(run.exitCode, run.stdout).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(/^c\.yaml, line 4: the prompt .* it builds a list of more than 2 Mi items/),
    ]);
    expect(s.requests).toEqual([]);
  });

  // Held: Nunjucks' own parser is quadratic on nested conditional expressions (`{{ 1 if ` n
  // times: 37 KB 0.45 s, 75 KB 1.2 s, 150 KB 3.5 s); a 600 KB prompt would take about a minute.
  // Parsing is inside the read watchdog too.
  it("a prompt that Nunjucks' parser reads in quadratic time stops at the read watchdog", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const n = 40_000;
    const prompt = `${'{{ 1 if '.repeat(n)}1${' else 1'.repeat(n)} }}`;
    const dir = eventWorkspace({ 'c.yaml': promptConfig(prompt) }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml' }),
      onEvent(dir, 'pull_request_target', SECRETS),
    );
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(/^c\.yaml, line 1: reading the promptfoo config took more than 5s/),
    ]);
    expect(s.requests).toEqual([]);
  });

  // Found, now fixed (medium, denial of service; any event, a fork's under pull_request_target). Reading a
  // config renders its templates under a 5 s watchdog (render.ts withinTime), but a rubricPrompt
  // is rendered again at grading time with the Claw's reply as `output` (rubric.ts renderLenient),
  // outside any watchdog. A branch taken only when the reply holds a word (the prompt asks the
  // Claw to say it) is cheap at read time and costs k × n at grading: here 4M items reversed 12
  // times (~3 s); with batch(16777216, 1) and 1,000 turns, hours, the event loop blocked so the
  // step's `timeout` never fires. g-eval's own prompts from a config (graders.ts, render with the
  // judge's steps and the reply) are rendered the same way. Expected: that grading refused at a
  // bound ("did not render"), the judge never asked.
  it("a rubricPrompt whose costly branch waits for the Claw's reply is bounded at grading time too", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'TRIGGER and more' } });
    judge = await startJudge({ answer: () => verdict({ reason: 'fine', pass: true, score: 1 }) });
    const url = judge.url;
    const rubric =
      '{% if "TRIGGER" in output %}{% set big = [1] | batch(4000000, 1) | first %}{% for i in [1,2,3,4,5,6,7,8,9,10,11,12] %}{{ big | reverse | length }}{% endfor %}{% endif %}Grade: {{ output }}';
    const text = `prompts: ['Say TRIGGER {{q}}']\ndefaultTest:\n  options:\n    rubricPrompt: ${JSON.stringify(rubric)}\ntests:\n  - vars: {q: a}\n    assert: [{type: llm-rubric, value: x}]\n`;
    const dir = eventWorkspace({ 'c.yaml': text }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml', timeout: '10s' }),
      onEvent(dir, 'pull_request_target', { ...SECRETS, OPENAI_BASE_URL: url }),
    );
    expect(run.exitCode, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/did not render/);
    expect(judge.completions()).toHaveLength(0);
  });
});
