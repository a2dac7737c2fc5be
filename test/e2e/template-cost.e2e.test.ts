// A template's cost, through dist/ as the runner runs it (issue 48, part 1). Bounds used to count
// steps: a ~430-byte rubricPrompt built a 16 Mi-character text and urlencoded 32 pairs of it (one
// step a pair, nine characters written per character read) until "JavaScript heap out of memory",
// with no outputs and no `::error::`; a 400-byte one compared two 8 Mi-character texts tens of
// thousands of times, one grading render running past a minute under `timeout: 10s`. Both hid in
// `{% if output != 'output' %}`, so the check at load (with the stand-in output) passed. Now every
// operation charges the characters and items it handles: each attack ends at its bound with one
// `::error::` naming the file and line, the outputs written, and the judge never asked.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeJudge, judgeText, verdict } from '../sim/judge.ts';
import { runCli } from './cli-run.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startJudge = judgePerTest();
const JUDGE_KEY = 'sk-template-cost-e2e-1a2b3c4d';

/** A list literal of `n` zeros: a loop of n turns. */
const turns = (n: number): string => `[${Array.from({ length: n }, () => '0').join(',')}]`;

/** The first attack: a three-byte letter doubled 24 times (16 Mi characters), then 32 pairs of it urlencoded. */
const URLENCODE_BOMB = [
  "{% if output != 'output' %}",
  `{% set x = '€' %}{% for i in ${turns(24)} %}{% set x = x ~ x %}{% endfor %}`,
  `{% set p = [x, x] %}{{ [${Array.from({ length: 32 }, () => 'p').join(',')}] | urlencode | length }}`,
  '{% endif %}Grade: {{ output }}',
].join('\n');

/**
 * The second attack: two texts of 4 Mi characters, equal but for the last, built apart, compared
 * 125,000 times (on the step-counting evaluator, a minute of one blocked grading render).
 */
const BIG_COMPARISON = [
  "{% if output != 'output' %}",
  `{% set a = 'x' %}{% for i in ${turns(22)} %}{% set a = a ~ a %}{% endfor %}`,
  "{% set b = a | truncate(4194303, true, 'y') %}{% set l = " + turns(50) + ' %}',
  '{% for i in l %}{% for j in l %}{% for k in l %}{% if a == b %}{% endif %}{% endfor %}{% endfor %}{% endfor %}',
  '{% endif %}Grade: {{ output }}',
].join('\n');

/** A promptfoo config grading the Claw's reply with `rubricPrompt` (line 5 of the file); a mapping var reaches it as its JSON text, as promptfoo hands it. */
const config = (rubric: string, judgeUrl: string): string => `prompts: ['Say {{q}}']
defaultTest:
  options:
    provider: {id: 'openai:chat:m', config: {apiBaseUrl: "${judgeUrl}", apiKey: ${JUDGE_KEY}}}
    rubricPrompt: ${JSON.stringify(rubric)}
tests:
  - vars: {q: hello, topics: {first: greeting, then: tone}}
    assert: [{type: llm-rubric, value: polite}]
`;

/** The Claw's reply: anything but the stand-in 'output', so the hidden branch is taken at grading. */
const REPLY = 'Hello there, how can I help?';

async function attacked(rubric: string): Promise<{ judge: FakeJudge; run: Awaited<ReturnType<typeof runAction>> }> {
  const s = await start();
  s.addClaw('c1', { chat: { mode: 'sync', reply: REPLY } });
  const judge = await startJudge({ answer: () => verdict({ reason: 'fine', pass: true, score: 1 }) });
  const dir = workspaceWith({ 'c.yaml': config(rubric, judge.url) }, 'claw-template-cost-');
  const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml', timeout: '10s' }), {
    env: { GITHUB_WORKSPACE: dir },
    cwd: dir,
    // A guard, not a measure: on the step-counting evaluator these ran out of memory or past a minute.
    killAfterMs: 25_000,
  });
  return { judge, run };
}

describe('a template is bounded by the work it does and what it holds', () => {
  it("urlencoding 32 pairs of a 16 Mi-character text, hidden from the load check: one error naming the file and the template's line, outputs written", async () => {
    const { judge, run } = await attacked(URLENCODE_BOMB);
    expect(run.signal, run.stderr.slice(-2000)).toBeNull();
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /c\.yaml, line 5: 'rubricPrompt': the template did not render: it (handles|builds a text of) more than .* \(the template's line [23]\)/,
      ),
    ]);
    expect(run.outputs.outcome).toBe('failed');
    expect(run.outputs['checks-passed']).toBe('false');
    expect(judge.requests).toEqual([]);
  });

  it("comparing two 8 Mi-character texts 64,000 times under timeout: 10s: refused at its line, never a render past the step's timeout", async () => {
    const { judge, run } = await attacked(BIG_COMPARISON);
    expect(run.signal).toBeNull();
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /c\.yaml, line 5: 'rubricPrompt': the template did not render: it handles more than 32 Mi characters and items .* \(the template's line 4\)/,
      ),
    ]);
    expect(run.outputs.outcome).toBe('failed');
    expect(judge.requests).toEqual([]);
  });

  it("the control: a rubric prompt with {{output}}, {{rubric}} and a loop over the test's vars renders and passes", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: REPLY } });
    const judge = await startJudge({ answer: () => verdict({ reason: 'polite', pass: true, score: 1 }) });
    const rubric = [
      'Grade the reply against: {{ rubric | upper }}.',
      '{% for k, t in topics | load %}{{ loop.index }}. {{ k }}: {{ t | title }}{% if not loop.last %}; {% endif %}{% endfor %}',
      "{% if output != 'output' %}Reply ({{ output | length }} characters): {{ output | escape }}{% endif %}",
    ].join('\n');
    const dir = workspaceWith({ 'c.yaml': config(rubric, judge.url) }, 'claw-template-cost-');
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml', timeout: '10s' }), {
      env: { GITHUB_WORKSPACE: dir },
      cwd: dir,
    });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.errors).toEqual([]);
    expect(judge.completions()).toHaveLength(1);
    expect(judgeText(judge.completions()[0])).toBe(
      `Grade the reply against: POLITE.\n1. first: Greeting; 2. then: Tone\nReply (${REPLY.length} characters): ${REPLY}`,
    );
  });

  it('the command line: check --json prints one JSON object holding the error', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: REPLY } });
    const judge = await startJudge({ answer: () => verdict({ reason: 'fine', pass: true, score: 1 }) });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-template-cost-cli-'));
    writeFileSync(join(cwd, 'c.yaml'), config(URLENCODE_BOMB, judge.url));
    const run = await runCli(
      [
        'check',
        '--claw-id',
        'c1',
        '--checks',
        'c.yaml',
        '--json',
        '--base-url',
        `${s.url}/v1`,
        '--poll-interval',
        '100ms',
        '--timeout',
        '10s',
      ],
      { cwd },
    );
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(result).toMatchObject({ outcome: 'failed', 'exit-code': 1 });
    expect(JSON.stringify(result)).toMatch(/c\.yaml, line 5: 'rubricPrompt': the template did not render/);
    expect(judge.requests).toEqual([]);
  });
});
