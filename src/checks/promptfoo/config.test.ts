// A promptfoo config read as a checks file: told apart by its keys, rendered with the tests' vars,
// expanded as promptfoo expands it, and every mistake one error naming the file, the line and what
// to write instead, before any request.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GradedAssertion } from '../assertions.js';
import { gradingMessages } from '../judge.js';
import { parseChecks } from '../load.js';

const KEY = { OPENAI_API_KEY: 'sk-test-0123456789abcdef' };
const read = (text: string, env: NodeJS.ProcessEnv = KEY, options: { workspace?: string; forkEvent?: string } = {}) =>
  parseChecks('promptfooconfig.yaml', text, env, options);
const refused = (
  text: string,
  env: NodeJS.ProcessEnv = KEY,
  options: { workspace?: string; forkEvent?: string } = {},
) => {
  try {
    read(text, env, options);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the config was not refused');
};

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-promptfoo-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('a promptfoo config as a checks file', () => {
  it('each test runs with each prompt, rendered from its vars; list vars expand; defaultTest merges under the test', () => {
    const suite = read(`description: translations
providers: [openai:gpt-4.1]
prompts:
  - 'Translate to {{language}}: {{input}}'
  - '{{input}} in {{language}}, please'
defaultTest:
  vars: {input: Hello}
  assert: [{type: icontains, value: '{{expected}}'}]
tests:
  - vars: {language: [French, German], expected: 'o'}
  - description: Spanish
    vars: {language: Spanish, input: Good morning, expected: buenos}
    threshold: 0.5
    assert: [{type: contains, value: 'días', weight: 2, metric: accuracy}]
`);
    expect(suite.checks.map((c) => [c.name, c.turns[0].send])).toEqual([
      ['input=Hello, language=French, expected=o [Translate to {{language}}: {{input}}]', 'Translate to French: Hello'],
      ['input=Hello, language=French, expected=o [{{input}} in {{language}}, please]', 'Hello in French, please'],
      ['input=Hello, language=German, expected=o [Translate to {{language}}: {{input}}]', 'Translate to German: Hello'],
      ['input=Hello, language=German, expected=o [{{input}} in {{language}}, please]', 'Hello in German, please'],
      ['Spanish [Translate to {{language}}: {{input}}]', 'Translate to Spanish: Good morning'],
      ['Spanish [{{input}} in {{language}}, please]', 'Good morning in Spanish, please'],
    ]);
    const spanish = suite.checks[4].turns[0];
    expect(spanish.threshold).toBe(0.5);
    // defaultTest's assertion first, its value rendered with this test's vars.
    expect(spanish.assert).toMatchObject([
      { type: 'icontains', value: 'buenos' },
      { type: 'contains', value: 'días', weight: 2, metric: 'accuracy' },
    ]);
    expect(suite.checks.map((c) => c.origin?.testIdx)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(suite.notices).toEqual([
      'promptfooconfig.yaml is a promptfoo config; ignored here: providers (the Claws under test answer).',
    ]);
    expect(suite.promptfoo?.description).toBe('translations');
  });

  it('scenarios: each config entry with each test, their vars and asserts merged', () => {
    const suite = read(`prompts: ['Translate to {{language}}: {{input}}']
scenarios:
  - config:
      - vars: {language: Spanish, expectedHello: Hola}
      - vars: {language: French, expectedHello: Bonjour}
    tests:
      - description: Hello
        vars: {input: Hello world}
        assert: [{type: icontains, value: '{{expectedHello}}'}]
`);
    expect(suite.checks.map((c) => [c.turns[0].send, c.turns[0].assert[0]])).toEqual([
      ['Translate to Spanish: Hello world', expect.objectContaining({ value: 'Hola' })],
      ['Translate to French: Hello world', expect.objectContaining({ value: 'Bonjour' })],
    ]);
    // The second expansion is told apart by its vars, not by a number.
    expect(suite.checks.map((c) => c.name)).toEqual(['Hello', 'Hello (language=French, expectedHello=Bonjour)']);
  });

  it('tests from file:// YAML and CSV (special columns and the __expected shorthand), relative to the config', () => {
    const dir = folder({
      'evals/promptfooconfig.yaml': `prompts: [file://prompts/ask.txt]
tests:
  - file://tests/more.yaml
  - file://tests/cases.csv
`,
      'evals/prompts/ask.txt': 'Q: {{question}}\n---\nAnswer briefly: {{question}}\n',
      'evals/tests/more.yaml': '- vars: {question: Why?}\n  assert: [{type: not-is-refusal}]\n',
      'evals/tests/cases.csv':
        'question,__expected1,__expected2,__description,__threshold,__metadata:area\n' +
        '"What is 2+2?","equals: 4","contains-any: four, 4",sums,0.5,maths\n' +
        '"Capital of France?","grade: names Paris","javascript: output.length < 100",,,\n',
    });
    const text = `prompts: [file://prompts/ask.txt]\ntests:\n  - file://tests/more.yaml\n  - file://tests/cases.csv\n`;
    const suite = parseChecks('evals/promptfooconfig.yaml', text, KEY, { workspace: dir });
    expect(suite.promptfoo?.prompts.map((p) => p.raw)).toEqual(['Q: {{question}}', 'Answer briefly: {{question}}']);
    expect(suite.checks).toHaveLength(6);
    const sums = suite.checks.find((c) => c.name.startsWith('sums'))!;
    expect(sums.turns[0]).toMatchObject({
      send: 'Q: What is 2+2?',
      threshold: 0.5,
      assert: [
        { type: 'equals', value: '4' },
        { type: 'contains-any', values: ['four', '4'] },
      ],
    });
    expect(sums.origin?.testCase).toMatchObject({ description: 'sums', metadata: { area: 'maths' } });
    const row2 = suite.checks.find((c) => c.name.startsWith('Row #2'))!;
    expect(row2.turns[0].assert.map((a) => a.type)).toEqual(['llm-rubric', 'javascript']);
    expect(suite.judges).toHaveLength(1);
  });

  it("the grader: promptfoo's provider forms, its environment variables, and the key kept a secret of the run", () => {
    const rubric = (provider: string, env: NodeJS.ProcessEnv = KEY) =>
      read(
        `prompts: ['{{q}}']\ndefaultTest:\n  options:\n    provider: ${provider}\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: is kind}]\n`,
        env,
      ).judges[0];
    expect(rubric('openai:chat:gpt-4.1-mini-2025-04-14')).toMatchObject({
      url: 'https://api.openai.com/v1',
      model: 'gpt-4.1-mini-2025-04-14',
      apiKey: KEY.OPENAI_API_KEY,
      secrets: [KEY.OPENAI_API_KEY],
    });
    expect(rubric('openai:gpt-4o')).toMatchObject({ model: 'gpt-4o' });
    expect(rubric('openai:chat:m', { ...KEY, OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1' })).toMatchObject({
      url: 'http://127.0.0.1:8080/v1',
    });
    expect(
      rubric('{id: "openai:chat:llama3", config: {apiBaseUrl: "https://llm.example.com/v1", apiKeyEnvar: LLM_KEY}}', {
        LLM_KEY: 'llm-secret-key-42',
      }),
    ).toMatchObject({ url: 'https://llm.example.com/v1', model: 'llama3', secrets: ['llm-secret-key-42'] });
    expect(() => rubric('anthropic:messages:claude-sonnet-4')).toThrow(
      /^promptfooconfig\.yaml, line 4: the grader is "anthropic:messages:claude-sonnet-4", which is not an OpenAI-compatible chat model: expected openai:chat:<model>/,
    );
    expect(() => rubric('openai:chat:m', {})).toThrow(/the grader m has no key: set OPENAI_API_KEY/);
    // No grader named: promptfoo's default, when OPENAI_API_KEY is set; else the one error.
    expect(
      read(`prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: is kind}]\n`)
        .judges[0],
    ).toMatchObject({ model: 'gpt-5.6-sol' });
    expect(
      refused(`prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: is kind}]\n`, {}),
    ).toMatch(/^promptfooconfig\.yaml, line 4: a model-graded assertion needs a grader: set OPENAI_API_KEY/);
  });

  it('rubricPrompt replaces the grading messages, rendered with the reply as a value, never as a template', () => {
    const suite = read(`prompts: ['{{q}}']
defaultTest:
  options:
    provider: openai:chat:m
    rubricPrompt:
      - role: system
        content: 'Grade for {{audience}}. Answer {"pass": true|false, "score": 0-1, "reason": "..."}'
      - role: user
        content: 'Output: {{ output }}  Rubric: {{ rubric }}'
tests:
  - vars: {q: hi, audience: kids}
    assert: [{type: llm-rubric, value: is kind}]
`);
    const assertion = suite.checks[0].turns[0].assert[0] as GradedAssertion;
    const messages = gradingMessages({
      assertion,
      conversation: [{ send: 'hi', reply: 'Hello {{ audience }} {% raw %}' }],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'Grade for kids. Answer {"pass": true|false, "score": 0-1, "reason": "..."}' },
      { role: 'user', content: 'Output: Hello {{ audience }} {% raw %}  Rubric: is kind' },
    ]);
  });

  it.each<[string, string, RegExp]>([
    [
      'a var the test does not set',
      `prompts: ['Hi {{name}}']\ntests:\n  - vars: {nmae: Ada}\n`,
      /^promptfooconfig\.yaml, line 3: the prompt "Hi \{\{name\}\}" cannot be rendered for this test: it uses \{\{name\}\}, which the test does not set/,
    ],
    [
      'an assertion this project does not run',
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: perplexity\n        threshold: 3\n`,
      /^promptfooconfig\.yaml, line 5: 'perplexity' is a promptfoo assertion this project does not run: a Claw reply carries no log probabilities\.$/,
    ],
    [
      'a misspelt type',
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: contians, value: x}]\n`,
      /^promptfooconfig\.yaml, line 4: 'type' is "contians": did you mean 'contains'\?$/,
    ],
    [
      'a regex RE2 refuses',
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: regex\n        value: '(?=x)y'\n`,
      /^promptfooconfig\.yaml, line 6: 'value' is "\(\?=x\)y": expected /,
    ],
    [
      'env, which sets variables for providers',
      `prompts: ['{{q}}']\nenv: {OPENAI_API_KEY: sk-x}\n`,
      /^promptfooconfig\.yaml, line 2: 'env' is refused: it sets variables for promptfoo's providers/,
    ],
    [
      'an unknown top-level key',
      `prompts: ['{{q}}']\nteests: []\n`,
      /^promptfooconfig\.yaml, line 2: unknown key 'teests' in a promptfoo config: expected 'description', 'prompts'/,
    ],
    [
      'a chat prompt with a scripted answer',
      `prompts:\n  - '[{"role": "user", "content": "{{q}}"}, {"role": "assistant", "content": "ok"}]'\ntests:\n  - vars: {q: hi}\n`,
      /^promptfooconfig\.yaml, line 2: the prompt ".*" has an 'assistant' message \(a scripted earlier answer\), which a Claw cannot be given/,
    ],
    [
      'a prompt function',
      `prompts: ['file://prompt.py:make']\n`,
      /the prompt "file:\/\/prompt\.py:make" is a prompt function, which this project does not run/,
    ],
    [
      'checks beside prompts',
      `prompts: ['{{q}}']\nchecks: []\n`,
      /^promptfooconfig\.yaml, line 1: the checks file has 'checks' \(a checks file\) beside 'prompts' \(a promptfoo config\): expected one format\.$/,
    ],
    [
      'a scoring script',
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assertScoringFunction: file://score.js\n`,
      /line 4: 'assertScoringFunction' is a script this project does not run: use weights and 'threshold'/,
    ],
    [
      'a weight below 0',
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: contains\n        value: h\n        weight: -1\n`,
      /line 7: 'weight' is "-1": expected a number of at least 0/,
    ],
    [
      'invalid JavaScript',
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: javascript\n        value: 'output.length >'\n`,
      /line 6: 'value' is not valid JavaScript/,
    ],
  ])('refuses %s with the file, the line and what to write', (_, text, expected) => {
    expect(refused(text)).toMatch(expected);
  });

  it('keeps file:// inside the workspace: no climbing out, no absolute path elsewhere, no glob', () => {
    const dir = folder({ 'cfg/ask.txt': 'hi', 'secret.txt': 'the key' });
    const at = (ref: string) =>
      refused(`prompts: ['{{q}}']\ntests:\n  - vars:\n      q: ${ref}\n`, KEY, { workspace: join(dir, 'cfg') });
    expect(at('file://../secret.txt')).toMatch(
      /^promptfooconfig\.yaml, line 4: var 'q' is "file:\/\/\.\.\/secret\.txt", which cannot be used: it points outside the workspace/,
    );
    expect(at('file:///etc/passwd')).toMatch(/it points outside the workspace/);
    expect(at('file://*.txt')).toMatch(/it is a glob: name each file/);
    expect(
      read(`prompts: ['{{q}}']\ntests:\n  - vars:\n      q: file://ask.txt\n`, KEY, { workspace: join(dir, 'cfg') })
        .checks[0].turns[0].send,
    ).toBe('hi');
  });

  it('under pull_request_target: no javascript, no transform, no function calls in templates', () => {
    const prt = { forkEvent: 'pull_request_target' };
    expect(
      refused(`prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    options: {transform: output.trim()}\n`, KEY, prt),
    ).toMatch(/line 4: a transform runs the repository's JavaScript, refused under pull_request_target/);
    // A template is data under any event: no calls, no lookups into JavaScript objects.
    for (const event of [prt, {}]) {
      expect(refused(`prompts: ['{{ range.constructor("return 1")() }}']\n`, KEY, event)).toMatch(
        /the prompt .* cannot be rendered for this test: it holds a function call: expected variables and filters only/,
      );
      expect(refused(`prompts: ['{{ q["__pro" ~ "to__"] | dump }}']\ntests:\n  - vars: {q: hi}\n`, KEY, event)).toMatch(
        /the prompt .* cannot be rendered/,
      );
      expect(
        refused(
          `prompts: ['{{ [q] | groupby("constructor.constructor") | dump }}']\ntests:\n  - vars: {q: hi}\n`,
          KEY,
          event,
        ),
      ).toMatch(/it holds 'constructor'/);
      expect(refused(`prompts: ['{{ q.constructor }}']\ntests:\n  - vars: {q: hi}\n`, KEY, event)).toMatch(
        /it holds 'constructor'/,
      );
    }
    // Plain variables and filters are fine there.
    expect(read(`prompts: ['{{ q | upper }}']\ntests:\n  - vars: {q: hi}\n`, KEY, prt).checks[0].turns[0].send).toBe(
      'HI',
    );
  });
});

describe('the rest of the format', () => {
  it("follows a test's prompts by label, id or wildcard, as promptfoo matches them, and refuses a name no prompt has", () => {
    const suite = read(`prompts:
  - {id: factual, label: 'Math:Factual', raw: 'Answer: {{q}}'}
  - {id: creative, label: 'Math:Creative', raw: 'Be creative: {{q}}'}
  - {label: Poet, raw: 'A poem on {{q}}'}
tests:
  - {vars: {q: a}, prompts: ['Math:Factual']}
  - {vars: {q: b}, prompts: [creative]}
  - {vars: {q: c}, prompts: ['Math:*']}
  - {vars: {q: d}, prompts: [Math]}
  - {vars: {q: e}}
  - {vars: {q: f}, prompts: []}
`);
    expect(suite.checks.map((c) => c.turns[0].send)).toEqual([
      'Answer: a',
      'Be creative: b',
      'Answer: c',
      'Be creative: c',
      'Answer: d',
      'Be creative: d',
      'Answer: e',
      'Be creative: e',
      'A poem on e',
    ]);
    expect(suite.promptfoo?.prompts.map((p) => p.id)).toEqual(['factual', 'creative', undefined]);
    expect(
      refused(
        `prompts:\n  - {id: factual, label: Factual, raw: 'x {{q}}'}\ntests:\n  - vars: {q: a}\n    prompts: [Factul]\n`,
      ),
    ).toMatch(
      /^promptfooconfig\.yaml, line 5: a test's 'prompts' names "Factul", which no prompt has as its label or id: did you mean "Factual"\? expected one of "Factual", "factual"/,
    );
  });

  it("sends a chat prompt's user messages as turns in order, the test grading the last; a system message is noted once", () => {
    const dir = folder({
      'chat.json': JSON.stringify([
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'My name is {{name}}.' },
        { role: 'user', content: 'What is my name?' },
      ]),
    });
    const suite = read(
      `prompts: [file://chat.json]\ntests:\n  - vars: {name: Ada}\n    assert: [{type: icontains, value: ada}]\n`,
      KEY,
      { workspace: dir },
    );
    expect(suite.checks[0].turns.map((t) => [t.send, t.assert.length])).toEqual([
      ['My name is Ada.', 0],
      ['What is my name?', 1],
    ]);
    expect(suite.notices?.[0]).toContain("a chat prompt's system message (the Claw's own instructions play that part)");
    const scripted = folder({
      'chat.json': '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": "hello"}\n]\n',
    });
    expect(refused(`prompts: [file://chat.json]\n`, KEY, { workspace: scripted })).toMatch(
      /^chat\.json, line 3: the prompt has an 'assistant' message \(a scripted earlier answer\)/,
    );
  });

  it("ignores what steers promptfoo's own provider, naming it, and refuses what would change a verdict", () => {
    const suite = read(`prompts:
  - {raw: '{{q}}', label: ask, config: {temperature: 0}}
tests:
  - vars: {q: hi}
    options:
      response_format: {type: json_object}
      tranform: output.trim()
      provider: {id: 'openai:chat:gpt-4.1-mini', config: {apiKey: k, response_format: {type: json_object}}}
    assert: [{type: llm-rubric, value: is kind}]
`);
    expect(suite.notices?.[0]).toContain("a prompt's config (it sets promptfoo's provider options)");
    expect(suite.notices?.[0]).toContain("options.response_format (it steers promptfoo's own provider)");
    expect(suite.notices?.[0]).toContain(
      "options.tranform (it steers promptfoo's own provider; did you mean 'transform'?)",
    );
    expect(suite.notices?.[0]).toContain("the grader's config.response_format (the judge sends its own request)");
  });

  it("g-eval's rubricPrompt {steps, evaluate} as promptfoo reads it, each prompt given promptfoo's names", () => {
    const dir = folder({ 'evaluate.json': JSON.stringify([{ role: 'user', content: '{{criteria}}: {{output}}' }]) });
    const geval = (options: string, assertion = '{type: g-eval, value: Coherence}') =>
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    options:\n      ${options}\n    assert: [${assertion}]\n`;
    const held = (text: string) => read(text, KEY, { workspace: dir }).checks[0].turns[0].assert[0];
    expect(
      held(geval("rubricPrompt: {steps: 'List steps for {{criteria}}', evaluate: file://evaluate.json}")),
    ).toMatchObject({
      type: 'g-eval',
      gEvalPrompts: {
        steps: 'List steps for {{criteria}}',
        evaluate: JSON.stringify([{ role: 'user', content: '{{criteria}}: {{output}}' }]),
      },
    });
    // promptfoo's own for what is left out or empty; a rubricPrompt of text is not g-eval's.
    expect(held(geval("rubricPrompt: {steps: '', evaluate: 'Score {{output}}'}"))).toMatchObject({
      gEvalPrompts: { evaluate: 'Score {{output}}' },
    });
    expect(held(geval("rubricPrompt: {steps: '', evaluate: 'Score {{output}}'}"))).not.toHaveProperty(
      'gEvalPrompts.steps',
    );
    expect(held(geval("rubricPrompt: 'Grade {{output}}'"))).not.toHaveProperty('gEvalPrompts');
    const own = read(geval('transform: output', "{type: g-eval, value: Coherence, rubricPrompt: 'Grade {{output}}'}"));
    expect(own.notices?.[0]).toContain("a g-eval assertion's rubricPrompt that is not {steps, evaluate}");
    expect(refused(geval("rubricPrompt: {steps: 'x', evalute: 'y'}"))).toMatch(
      /^promptfooconfig\.yaml, line 5: unknown key 'evalute' in g-eval's 'rubricPrompt': did you mean 'evaluate'\?/,
    );
    // No test vars reach g-eval's prompts in promptfoo: a var printed there is refused, saying so.
    expect(refused(geval("rubricPrompt: {steps: 'Steps for {{criteria}} about {{q}}'}"))).toMatch(
      /line 5: 'rubricPrompt\.steps' cannot be rendered: it uses \{\{q\}\}.*g-eval's steps prompt is given \{\{criteria\}\} only, never the test's vars/,
    );
    expect(refused(geval("rubricPrompt: {evaluate: 'file://../outside.txt'}"))).toMatch(
      /'rubricPrompt\.evaluate' is "file:\/\/\.\.\/outside\.txt", which cannot be read: it points outside the workspace/,
    );
  });

  it("model-graded-closedqa's rubricPrompt: promptfoo's names (input, criteria, completion) over the test's vars", () => {
    const closedqa = (rubricPrompt: string, vars = '{q: hi}') =>
      `prompts: ['{{q}}']\ntests:\n  - vars: ${vars}\n    options:\n      rubricPrompt: '${rubricPrompt}'\n    assert: [{type: model-graded-closedqa, value: is polite}]\n`;
    const suite = read(
      closedqa('{{input}} | {{completion}} | {{criteria}} | {{topic}}', '{q: hi, topic: t, input: mine}'),
    );
    const held = suite.checks[0].turns[0].assert[0] as unknown as {
      rubricPrompt: { render(m: { output: string; value: string; input: string }): { content: string }[] };
    };
    expect(held.rubricPrompt.render({ output: '{"a": [1]}', value: 'is polite', input: 'hi' })[0].content).toBe(
      'hi | {"a":[1]} | is polite | t',
    );
    // promptfoo gives closedqa no {{output}}: the reply is {{completion}}; one printed is refused, saying so.
    expect(refused(closedqa('Grade {{output}} on {{criteria}}'))).toMatch(
      /line 5: 'rubricPrompt' cannot be rendered: it uses \{\{output\}\}, which the test does not set.*\(a 'model-graded-closedqa' grading prompt is given the test's vars and \{\{input\}\}, \{\{criteria\}\} and \{\{completion\}\}; this one is the test's options\.rubricPrompt/,
    );
    // A var named output is the var, as in promptfoo.
    const withVar = read(closedqa('{{output}}: {{completion}}', '{q: hi, output: mine}')).checks[0].turns[0]
      .assert[0] as unknown as typeof held;
    expect(withVar.rubricPrompt.render({ output: 'reply', value: 'v', input: 'hi' })[0].content).toBe('mine: reply');
  });

  it("loads a value list's file:// entries as promptfoo does: text trimmed, JSON and YAML parsed, in the workspace only", () => {
    const dir = folder({
      'cfg/refund.txt': 'refund policy\n',
      'cfg/word.yaml': 'sorry\n',
      'cfg/code.json': '12345',
      'cfg/list.json': '["a", "b"]',
      'cfg/check.js': 'module.exports = () => "x";',
      'outside.txt': 'x',
    });
    const workspace = join(dir, 'cfg');
    const list = (entries: string, type = 'contains-any') =>
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: ${type}\n        value: [${entries}]\n`;
    const values = (entries: string, type?: string) =>
      (read(list(entries, type), KEY, { workspace }).checks[0].turns[0].assert[0] as unknown as { values: string[] })
        .values;
    expect(values("file://refund.txt, '{{q}} there', file://word.yaml, file://code.json")).toEqual([
      'refund policy',
      'hi there',
      'sorry',
      '12345',
    ]);
    expect(values('file://refund.txt, x', 'icontains-all')).toEqual(['refund policy', 'x']);
    const similar = read(
      `prompts: ['{{q}}']\ndefaultTest:\n  options:\n    provider: {embedding: {id: openai:embedding:e, config: {apiBaseUrl: 'https://judge.example/v1', apiKey: k}}}\ntests:\n  - vars: {q: hi}\n    assert: [{type: similar, value: [file://refund.txt, other]}]\n`,
      KEY,
      { workspace },
    ).checks[0].turns[0].assert[0];
    expect(similar).toMatchObject({ type: 'similar', value: ['refund policy', 'other'] });
    const refusal = (entries: string) => refused(list(entries), KEY, { workspace });
    expect(refusal('x, file://../outside.txt')).toMatch(
      /^promptfooconfig\.yaml, line 6: 'value' entry 2 is "file:\/\/\.\.\/outside\.txt", which cannot be read: it points outside the workspace/,
    );
    expect(refusal('file://list.json')).toMatch(
      /'value' entry 1 is "file:\/\/list\.json", which holds a list: expected one text per entry/,
    );
    expect(refusal('file://check.js')).toMatch(/'value' entry 1 is "file:\/\/check\.js": a script computes this value/);
    expect(refusal('file://missing.txt')).toMatch(/which cannot be read: no such file in the workspace/);
    mkdirSync(join(workspace, '.git'));
    writeFileSync(join(workspace, '.git', 'config'), '[http] extraheader = token');
    expect(refusal('file://.git/config')).toMatch(/it points into '\.git', Git's own folder/);
    symlinkSync(join(workspace, '.git', 'config'), join(workspace, 'notes.txt'));
    expect(refusal('file://notes.txt')).toMatch(/'value' entry 1 is "file:\/\/notes\.txt", which cannot be read/);
    symlinkSync(join(dir, 'outside.txt'), join(workspace, 'away.txt'));
    expect(refusal('file://away.txt')).toMatch(/'value' entry 1 is "file:\/\/away\.txt", which cannot be read/);
  });

  it('names an options.provider no grader of a test uses once, for the file, and refuses nothing for it', () => {
    const suite = read(`prompts: ['{{q}}']
defaultTest:
  options:
    provider: anthropic:messages:claude-sonnet-4
tests:
  - vars: {q: hi}
    assert: [{type: contains, value: h}]
  - vars: {q: ho}
    assert: [{type: icontains, value: O}]
  - vars: {q: hu}
    assert: [{type: llm-rubric, value: is short, provider: openai:chat:gpt-4.1-mini}]
`);
    expect(suite.checks).toHaveLength(3);
    const notice = suite.notices?.[0] ?? '';
    const said = 'options.provider where no model-graded assertion of the test uses it';
    expect(notice.split(said)).toHaveLength(2);
    // One that a grader uses is no notice.
    const used = read(
      `prompts: ['{{q}}']\ndefaultTest:\n  options: {provider: 'openai:chat:gpt-4.1-mini'}\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: is kind}]\n`,
    );
    expect(used.notices?.join('') ?? '').not.toContain(said);
  });

  it("reads llm-rubric with only a rubricPrompt, nested assert-sets, and promptfoo's graders with their judges", () => {
    const suite = read(`prompts: ['{{q}}']
tests:
  - vars: {q: hi, x: cats}
    assert:
      - type: llm-rubric
        rubricPrompt: 'Grade {{ output }}: did it mention {{x}}?'
      - type: assert-set
        assert:
          - type: contains
            value: h
          - type: assert-set
            threshold: 0.5
            assert: [{type: contains, value: i}, {type: contains, value: z}]
      - {type: model-graded-closedqa, value: is polite}
      - {type: g-eval, value: [Coherence, Fluency]}
      - {type: similar, value: hello, threshold: 0.8}
      - {type: not-moderation, value: [harassment]}
`);
    const [rubric, set, closedqa, geval, similar, moderation] = suite.checks[0].turns[0].assert as unknown as Record<
      string,
      unknown
    >[];
    expect(rubric).toMatchObject({ type: 'llm-rubric', value: '' });
    expect((set.assert as Record<string, unknown>[])[1]).toMatchObject({ type: 'assert-set', threshold: 0.5 });
    expect(closedqa).toMatchObject({ type: 'model-graded-closedqa', value: 'is polite' });
    expect(geval).toMatchObject({ type: 'g-eval', value: ['Coherence', 'Fluency'] });
    expect(similar).toMatchObject({
      type: 'similar',
      threshold: 0.8,
      judge: { embeddingModel: 'text-embedding-3-large' },
    });
    expect(moderation).toMatchObject({ negate: true, judge: { moderationModel: 'omni-moderation-latest' } });
    expect(refused(`prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric}]\n`)).toMatch(
      /an 'llm-rubric' assertion's 'value' is missing: expected the rubric \(or a 'rubricPrompt' that carries it\)/,
    );
    expect(
      refused(
        `prompts: ['{{q}}']\ndefaultTest:\n  options: {provider: 'openai:chat:gpt-4.1-mini'}\ntests:\n  - vars: {q: hi}\n    assert: [{type: similar, value: x}]\n`,
      ),
    ).toMatch(/line 3: the grader is "openai:chat:gpt-4\.1-mini", which is not an OpenAI-compatible embedding model/);
    expect(
      refused(`prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: icontain, value: x}]\n`),
    ).toMatch(/'type' is "icontain": did you mean 'icontains'\?/);
    expect(
      refused(
        `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: assert-set\n        assert: [{type: select-best, value: x}]\n`,
      ),
    ).toMatch(
      /line 6: 'select-best' is a promptfoo assertion this project does not run: it compares the Claws' replies to a whole test: expected it in the test's own 'assert'/,
    );
  });

  it("reads select-best and max-score beside the assertions each Claw is scored by, in the file's order", () => {
    const suite = read(`prompts: ['Tell a joke about {{topic}}']
defaultTest:
  options: {provider: 'openai:chat:gpt-4.1-mini'}
tests:
  - vars: {topic: cats}
    assert:
      - type: select-best
        value: choose the funniest joke about {{topic}}
      - type: icontains
        value: cat
      - type: max-score
        value: {method: sum, weights: {icontains: 2}, threshold: 0.5}
        threshold: 0.9
`);
    const [check] = suite.checks;
    expect(check.turns[0].assert.map((a) => a.type)).toEqual(['icontains']);
    // max-score reads every assertion's score: the judge is asked even once the turn has failed.
    expect(check.turns[0].gradeAll).toBe(true);
    expect(check.compare).toMatchObject([
      {
        type: 'select-best',
        criteria: 'choose the funniest joke about cats',
        judge: { kind: 'endpoint', model: 'gpt-4.1-mini' },
        where: 'promptfooconfig.yaml, line 7',
      },
      {
        type: 'max-score',
        method: 'sum',
        weights: { icontains: 2 },
        threshold: 0.5,
        where: 'promptfooconfig.yaml, line 11',
      },
    ]);
    expect((check.origin?.testCase.assert as { type: string }[]).map((a) => a.type)).toEqual([
      'select-best',
      'icontains',
      'max-score',
    ]);
    // promptfoo reads max-score's threshold from its value: the assertion's own is said to be ignored.
    expect(suite.notices?.join(' ')).toMatch(
      /'threshold' of a max-score assertion \(promptfoo does not read it, which reads value\.threshold\)/,
    );
    expect(suite.judges).toHaveLength(1);
  });

  it('refuses what select-best and max-score cannot run, each with its line and why', () => {
    const test = (assert: string) => `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n${assert}`;
    expect(refused(test(`      - type: max-score\n`))).toMatch(
      /line 5: 'max-score' picks the Claw whose other assertions of the test score highest, and this test has none/,
    );
    expect(
      refused(test(`      - {type: contains, value: a}\n      - {type: max-score, value: {method: median}}\n`)),
    ).toMatch(/line 6: 'method' is "median": expected 'average' \(the default\) or 'sum'/);
    expect(refused(test(`      - {type: not-select-best, value: x}\n`))).toMatch(
      /line 5: 'not-select-best' has no not- form: expected 'select-best'/,
    );
    expect(refused(test(`      - {type: select-best}\n`))).toMatch(
      /line 5: a 'select-best' assertion's 'value' is missing: expected the criterion the best reply meets/,
    );
    expect(refused(test(`      - {type: select-best, value: x, rubricPrompt: '{{nothing}}'}\n`))).toMatch(
      /line 5: 'rubricPrompt' cannot be rendered/,
    );
  });

  it('reads derivedMetrics as arithmetic over named metrics, and refuses a function call with why', () => {
    const suite = read(`prompts: ['{{q}}']
derivedMetrics:
  - {name: DoubleTone, value: Tone * 2}
  - {name: Mean, value: '(Tone + DoubleTone) / __count'}
tests:
  - vars: {q: hi}
`);
    expect(suite.promptfoo?.derivedMetrics?.map((m) => m.name)).toEqual(['DoubleTone', 'Mean']);
    expect(refused(`prompts: ['{{q}}']\nderivedMetrics:\n  - name: F1\n    value: 'max(a, b)'\n`)).toMatch(
      /line 4: the derived metric "F1" is "max\(a, b\)", which cannot be evaluated here: it calls max\(…\), a function/,
    );
  });

  it("reads a tolerance from a test's metadata (that check's) and defaultTest's (the suite's), promptfoo's metadata left free-form", () => {
    const suite = read(`prompts: ['{{q}}']
defaultTest:
  metadata: {owner: support, tolerance: {latency: 20%}}
tests:
  - vars: {q: refund}
    metadata:
      tolerance: {passRate: 0.05, score: 10%}
  - vars: {q: hours}
scenarios:
  - config: [{metadata: {tolerance: {unjudged: 5%}}}]
    tests: [{vars: {q: address}}]
`);
    expect(suite.tolerance).toEqual({ latency: 0.2 });
    expect(suite.checks.map((c) => [c.name, c.tolerance])).toEqual([
      ['q=refund', { passRate: 0.05, score: 0.1 }],
      ['q=hours', undefined],
      ['q=address', { unjudged: 0.05 }],
    ]);
    // The metadata reaches the output file as written, as promptfoo's own would.
    expect(suite.checks[0].origin?.testCase.metadata).toEqual({
      owner: 'support',
      tolerance: { passRate: 0.05, score: '10%' },
    });
  });

  it('refuses each mistake in metadata.tolerance with the file, the line and what was expected', () => {
    const test = (tolerance: string) =>
      `prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    metadata:\n      tolerance: ${tolerance}\n`;
    expect(refused(test('5%'))).toBe(
      `promptfooconfig.yaml, line 5: 'metadata.tolerance' is "5%": expected a mapping of 'passRate', 'latency', 'unjudged', 'score' to shares, such as {passRate: 5%}.`,
    );
    expect(refused(test('{}'))).toMatch(
      /^promptfooconfig\.yaml, line 5: 'metadata\.tolerance' is empty: expected at least one of 'passRate'/,
    );
    expect(refused(test('\n        pass-rate: 5%'))).toMatch(
      /^promptfooconfig\.yaml, line 6: unknown key 'pass-rate' in 'metadata\.tolerance': did you mean 'passRate'\? expected 'passRate', 'latency', 'unjudged', 'score'/,
    );
    expect(refused(test('\n        latency: 150%'))).toMatch(
      /^promptfooconfig\.yaml, line 6: 'metadata\.tolerance\.latency' is "150%": expected a share of the baseline's latency, such as 10% or 0\.1 \(from 0 to 100%\)/,
    );
    expect(refused(test('{score: fast}'))).toMatch(
      /^promptfooconfig\.yaml, line 5: 'metadata\.tolerance\.score' is "fast": expected points of the judge's 0-1 score/,
    );
    expect(
      refused(
        `prompts: ['{{q}}']\ndefaultTest:\n  metadata:\n    tolerance: {passRate: -0.1}\ntests:\n  - vars: {q: hi}\n`,
      ),
    ).toMatch(
      /^promptfooconfig\.yaml, line 4: 'metadata\.tolerance\.passRate' is "-0\.1": expected points of pass rate/,
    );
  });
});
