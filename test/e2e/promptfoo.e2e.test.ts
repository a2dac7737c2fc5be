// promptfoo's documented example configs, used unchanged as checks files through dist/index.js,
// against Claws that answer what the examples' models would: promptfoo's verdicts, the providers
// ignored with one notice, the grader read from OPENAI_API_KEY / OPENAI_BASE_URL as promptfoo reads
// them (the fake judge), and `checks-output` written in promptfoo's format, redacted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const JUDGE_KEY = 'sk-promptfoo-e2e-key-5a4b3c2d1e';
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

const workspace = (files: Record<string, string>): string => workspaceWith(files);

interface Output {
  evalId: string;
  results: {
    version: number;
    prompts: { raw: string; label: string; provider: string; metrics: Record<string, unknown> }[];
    results: {
      promptIdx: number;
      testIdx: number;
      success: boolean;
      score: number;
      failureReason: number;
      provider: { id: string };
      prompt: { raw: string };
      vars: Record<string, unknown>;
      response?: { output: string };
      gradingResult: { pass: boolean; componentResults: { pass: boolean; assertion: { type: string } }[] } | null;
    }[];
    stats: { successes: number; failures: number; errors: number };
  };
  config: Record<string, unknown>;
}
const output = (dir: string, name = 'results.json'): Output =>
  JSON.parse(readFileSync(join(dir, name), 'utf8')) as Output;

// promptfoo's examples/getting-started/promptfooconfig.yaml, as published.
const GETTING_STARTED = `# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json
description: 'Getting started'
# Optionally set API keys here instead of exporting environment variables.
# Never commit real keys to source control.
# env:
#   OPENAI_API_KEY: sk-...
prompts:
  - 'Convert this English to {{language}}: {{input}}'
  - 'Translate to {{language}}: {{input}}'

providers:
  - openai:gpt-4.1
  - openai:o4-mini
  # - anthropic:messages:claude-4-sonnet-20250514  # Claude model
  # - vertex:gemini-2.5-pro-exp-03-25                # Google Gemini model

tests:
  - vars:
      language: French
      input: Hello world
    assert:
      - type: contains
        value: 'Bonjour le monde'
  - vars:
      language: Spanish
      input: Where is the library?
    assert:
      - type: icontains
        value: 'Dónde está la biblioteca'
`;

/** What a translation model answers. */
const translator = (m: string): string =>
  m.includes('French') ? 'Bonjour le monde' : m.includes('Spanish') ? '¿Dónde está la biblioteca?' : 'Hallo Welt';

describe('promptfoo configs, end to end', () => {
  it("promptfoo's getting-started config, unchanged: every test with every prompt on each Claw, side by side in the output", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', respond: translator } });
    // The second Claw answers Spanish in English: promptfoo fails that test too.
    s.addClaw('c2', {
      chat: { mode: 'sync', respond: (m) => (m.includes('Spanish') ? 'Where is the library?' : translator(m)) },
    });
    const dir = workspace({ 'promptfooconfig.yaml': GETTING_STARTED });
    const run = await runAction(
      inputsFor(s, {
        command: 'check',
        'claw-id': 'c1,c2',
        checks: 'promptfooconfig.yaml',
        'checks-output': 'results.json',
      }),
      { env: { GITHUB_WORKSPACE: dir } },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      'promptfooconfig.yaml is a promptfoo config; ignored here: providers (the Claws under test answer).',
    );
    // Each prompt rendered with the test's vars, never {{…}} literally.
    const sent = s.requests
      .filter((r) => r.method === 'POST' && r.path === '/v1/chat/c1/messages')
      .map((r) => (r.body as { message: string }).message);
    expect(sent).toEqual([
      'Convert this English to French: Hello world',
      'Translate to French: Hello world',
      'Convert this English to Spanish: Where is the library?',
      'Translate to Spanish: Where is the library?',
    ]);
    const report = JSON.parse(run.outputs['checks-report']) as { clawId: string; passed: boolean }[];
    expect(report.map((e) => `${e.clawId} ${e.passed}`)).toEqual([
      'c1 true',
      'c1 true',
      'c1 true',
      'c1 true',
      'c2 true',
      'c2 true',
      'c2 false',
      'c2 false',
    ]);
    const file = output(dir);
    expect(file.results.version).toBe(3);
    // Columns: each Claw × each prompt, as promptfoo lists provider × prompt.
    expect(file.results.prompts.map((p) => `${p.provider} ${p.raw}`)).toEqual([
      'claw:c1 Convert this English to {{language}}: {{input}}',
      'claw:c1 Translate to {{language}}: {{input}}',
      'claw:c2 Convert this English to {{language}}: {{input}}',
      'claw:c2 Translate to {{language}}: {{input}}',
    ]);
    expect(file.results.results.map((r) => [r.provider.id, r.testIdx, r.promptIdx, r.success])).toEqual([
      ['claw:c1', 0, 0, true],
      ['claw:c1', 0, 1, true],
      ['claw:c1', 1, 0, true],
      ['claw:c1', 1, 1, true],
      ['claw:c2', 0, 2, true],
      ['claw:c2', 0, 3, true],
      ['claw:c2', 1, 2, false],
      ['claw:c2', 1, 3, false],
    ]);
    expect(file.results.stats).toMatchObject({ successes: 6, failures: 2, errors: 0 });
    expect(file.results.results[6]).toMatchObject({
      vars: { language: 'Spanish', input: 'Where is the library?' },
      prompt: { raw: 'Convert this English to Spanish: Where is the library?' },
      response: { output: 'Where is the library?' },
      failureReason: 1,
      score: 0,
    });
    expect(file.config.description).toBe('Getting started');
  });

  it("the guide's assertionTemplates example: prompt files, $ref, javascript, and llm-rubric graded by promptfoo's default grader at OPENAI_BASE_URL", async () => {
    const s = await start();
    s.addClaw('c1', {
      chat: { mode: 'sync', respond: (m) => (m.includes('French') ? 'Bonjour le monde' : 'Wie geht es dir?') },
    });
    judge = await startJudge({
      answer: () => verdict({ reason: 'Speaks as a translator, not as an AI.', pass: true, score: 1 }),
    });
    const url = judge.url;
    // promptfoo's configuration guide, "YAML references", as published (its prompt files written out).
    const dir = workspace({
      'prompt1.txt': 'Convert the following English text to {{language}}: {{input}}',
      'prompt2.txt': 'Translate to {{language}}: {{input}}',
      'promptfooconfig.yaml': `prompts:
  - file://prompt1.txt
  - file://prompt2.txt
providers:
  - openai:gpt-5-mini
  - vertex:gemini-2.0-flash-exp
tests:
  - vars:
      language: French
      input: Hello world
    assert:
      - $ref: '#/assertionTemplates/startsUpperCase'
  - vars:
      language: German
      input: How's it going?
    assert:
      - $ref: '#/assertionTemplates/noAIreference'
      - $ref: '#/assertionTemplates/startsUpperCase'

assertionTemplates:
    noAIreference:
      type: llm-rubric
      value: does not describe self as an AI, model, or chatbot
    startsUpperCase:
      type: javascript
      value: output[0] === output[0].toUpperCase()
`,
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', 'checks-output': 'out/results.json' }),
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url } },
    );
    expect(run.errors).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(run.outputs['checks-passed']).toBe('true');
    // Two prompts × two tests; the rubric only in the German test: two judge calls, with promptfoo's default grader.
    expect(judge.completions()).toHaveLength(2);
    expect(judge.completions()[0].body.model).toBe('gpt-5.6-sol');
    expect(judge.completions()[0].headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    const file = output(dir, 'out/results.json');
    expect(file.results.results[2].gradingResult?.componentResults.map((c) => [c.assertion.type, c.pass])).toEqual([
      ['llm-rubric', true],
      ['javascript', true],
    ]);
    // The judge's key never reaches the file, nor the log.
    expect(readFileSync(join(dir, 'out/results.json'), 'utf8')).not.toContain(JUDGE_KEY);
    expect(run.stdout.replace(`::add-mask::${JUDGE_KEY}`, '')).not.toContain(JUDGE_KEY);
  });

  it("the test-cases page's CSV with __expected columns, and the assertions page's weights under a threshold", async () => {
    const s = await start();
    s.addClaw('c1', {
      chat: {
        mode: 'sync',
        respond: (m) =>
          m === 'Hello world'
            ? 'Hello world! How can I help?'
            : m.startsWith('Calculate')
              ? 'The answer is 30.'
              : m.startsWith('What')
                ? 'It is sunny and 22°C in Paris.'
                : 'Goodbye world',
      },
    });
    judge = await startJudge({ answer: () => verdict({ reason: 'Gives the weather.', pass: true, score: 0.9 }) });
    const url = judge.url;
    const dir = workspace({
      // promptfoo's test-cases page, "CSV with Assertions", as published.
      'test_cases.csv':
        'input,__expected\n"Hello world","contains: Hello"\n"Calculate 5 * 6","equals: 30"\n"What\'s the weather?","llm-rubric: Provides weather information"\n',
      'promptfooconfig.yaml': `prompts:
  - '{{input}}'
defaultTest:
  options:
    provider: openai:chat:gpt-4.1-mini-2025-04-14
tests:
  - file://test_cases.csv
  # The assertions page, "Setting a score requirement".
  - vars:
      input: Say goodbye to the world
    threshold: 0.5
    assert:
      - type: equals
        value: 'Hello world'
        weight: 2
      - type: contains
        value: 'world'
        weight: 1
`,
    });
    const run = await runAction(
      inputsFor(s, {
        command: 'check',
        checks: 'promptfooconfig.yaml',
        'checks-output': 'results.json',
        'checks-junit': 'checks.xml',
      }),
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url } },
    );
    expect(run.exitCode).toBe(1);
    const report = JSON.parse(run.outputs['checks-report']) as {
      check: string;
      passed: boolean;
      failure: string | null;
    }[];
    // promptfoo: "equals: 30" fails "The answer is 30."; the weighted score 1/3 is under 0.5.
    expect(report.map((e) => [e.check, e.passed])).toEqual([
      ['Row #1', true],
      ['Row #2', false],
      ['Row #3', true],
      ['input=Say goodbye to the world', false],
    ]);
    expect(report[3].failure).toContain('the weighted score 0.33 is below the threshold 0.5');
    expect(judge.completions()[0].body.model).toBe('gpt-4.1-mini-2025-04-14');
    const file = output(dir);
    expect(file.results.results[3]).toMatchObject({ success: false, failureReason: 1 });
    expect(file.results.results[3].score).toBeCloseTo(1 / 3, 5);
    expect(readFileSync(join(dir, 'checks.xml'), 'utf8')).toContain('<testcase classname="Claw c1" name="Row #2"');
  });

  it('under pull_request_target, a javascript assertion is refused before any request, naming the file and line', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hi' } });
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{q}}']
tests:
  - vars: {q: hello}
    assert:
      - type: javascript
        value: output.length > 0
`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, GITHUB_EVENT_NAME: 'pull_request_target' },
    });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(
        /^promptfooconfig\.yaml, line 6: a javascript runs the repository's JavaScript, refused under pull_request_target/,
      ),
    ]);
    expect(s.requests.filter((r) => r.path.startsWith('/v1/chat/'))).toEqual([]);
  });
});
