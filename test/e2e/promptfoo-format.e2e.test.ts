// More of promptfoo's own configs, copied unchanged from promptfoo's repository (path and commit
// beside each), run through dist/index.js against Claws that answer what the examples' models
// would, graded by the fake judge (chat, /embeddings, /moderations) at OPENAI_BASE_URL as
// promptfoo's default grader would be. Each expects promptfoo 0.123.1's verdicts: the graders'
// rules are the ones the shared cases check against promptfoo itself (test/promptfoo/).
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge, judgeText, verdict } from '../sim/judge.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';
import { OWN_PROMPTS_CONFIG, OWN_PROMPTS_FILES, ownPromptsJudge, ownPromptsReply } from './promptfoo-own-prompts.ts';

const start = simulatorPerTest();
const JUDGE_KEY = 'sk-promptfoo-format-e2e-7f6e5d4c3b';
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

const workspace = (files: Record<string, string>): string => workspaceWith(files);

interface Report {
  check: string;
  passed: boolean;
  failure: string | null;
}
const reportOf = (outputs: Record<string, string>): Report[] => JSON.parse(outputs['checks-report']) as Report[];
const sentTo = (s: Awaited<ReturnType<typeof start>>, claw: string): string[] =>
  s.requests
    .filter((r) => r.method === 'POST' && r.path === `/v1/chat/${claw}/messages`)
    .map((r) => (r.body as { message: string }).message);

// promptfoo's examples/tests-per-prompt/README.md (commit 89914dfe56f9036ef984a9c8abb9f433c91acef0),
// its "Configuration" block as published; the example runs it with promptfoo's echo provider.
const TESTS_PER_PROMPT = `prompts:
  - id: factual
    label: Factual Assistant
    raw: 'You are factual. Answer: {{question}}'
  - id: creative
    label: Creative Writer
    raw: 'Be creative. Answer: {{question}}'

tests:
  - vars:
      question: 'What is 2+2?'
    prompts:
      - Factual Assistant # Only runs with this prompt
    assert:
      - type: contains
        value: '4'
`;

// promptfoo's examples/custom-grading-prompt/promptfooconfig.yaml (commit
// 233521fc3a630f6ab8f7785ab6cc2d02485ed32c) and its prompts.txt (commit 4a4dadf1eff81dff88f8b606670e4df99596dcc7).
const CUSTOM_GRADING = `prompts:
  - file://prompts.txt
providers:
  - openai:gpt-4o-mini
defaultTest:
  options:
    # ---
    # Custom grading prompt:
    # ---
    rubricPrompt:
      - role: system
        content: >-
          Grade the output by the following specifications, keeping track of the points scored:

          Did the output mention {{x}}? +1 point
          Did the output describe {{y}}? + 1 point
          Did the output ask to clarify {{z}}? +1 point

          Calculate the score but always pass the test. Output your response in the following JSON format:
          {pass: true, score: number, reason: string}
      - role: user
        content: 'Output: {{ output }}'

#    ---
#    You can also provide an OpenAI prompt directly as pure JSON:
#    ---
#
#    rubricPrompt: >-
#      [
#        {
#          "role": "system",
#          "content": "Grade the output by the following specifications, keeping track of the points scored:\\n Did the output mention {{x}}? +1 point\\n Did the output describe {{y}}? + 1 point\\n Did the output ask to clarify {{z}}? +1 point\\n\\n Output your response in the following JSON format:\\n {pass: bool, score: number, reason: string}"
#        },
#        {
#          "role": "user",
#          "content": "Output: {{ output }}"
#        }
#      ]
#

tests:
  - vars:
      topic: the economy
      x: the Federal Reserve
      y: macroeconomics
      z: the specific question the user wants to ask
    assert:
      - type: llm-rubric
`;

// promptfoo's examples/g-eval/promptfooconfig.yaml (commit 03e262465b592ab21043ecbc0d43aab10d24612c).
const G_EVAL = `prompts:
  - 'Hello! How are you?'

providers:
  - openai:gpt-4.1-mini

tests:
  - assert: # Calculate score for one criteria only
      - type: g-eval
        value: >-
          Coherence - the collective quality of all sentences. We align this
          dimension with the DUC quality question of structure and coherence
          whereby "the reply should be well-structured and well-organized. The
          reply should not just be a heap of related information, but should
          build from sentence to a coherent body of information about a topic."
  - assert:
      - type: g-eval
        value: >-
          Consistency - the factual alignment between the reply and the source.
          A factually consistent reply contains only statements that are
          entailed by the source document. Annotators were also asked to
          penalize replies that contained hallucinated facts.
  - assert:
      - type: g-eval
        value: >-
          Fluency - the quality of the reply in terms of grammar, spelling,
          punctuation, word choice, and sentence structure.
  - assert:
      - type: g-eval
        value: >-
          Relevance - selection of important content for the source. The reply
          should include only important information for the source document.
          Annotators were instructed to penalize replies which contained
          redundancies and excess information.
  - assert: # Calculate average score among all criterias
      - type: g-eval
        value:
          - Coherence - the collective quality of all sentences. We align this dimension with the DUC quality question of structure and coherence whereby "the reply should be well-structured and well-organized. The reply should not just be a heap of related information, but should build from sentence to a coherent body of information about a topic."
          - Consistency - the factual alignment between the reply and the source. A factually consistent reply contains only statements that are entailed by the source document. Annotators were also asked to penalize replies that contained hallucinated facts.
          - Fluency - the quality of the reply in terms of grammar, spelling, punctuation, word choice, and sentence structure.
          - Relevance - selection of important content for the source. The reply should include only important information for the source document. Annotators were instructed to penalize replies which contained redundancies and excess information.
`;

// promptfoo's site/docs/configuration/expected-outputs/model-graded/answer-relevance.md (commit
// 09fc4affb2ef4a75faf09cd2112cf3d8557156d0), "Example using prompt text", as published.
const ANSWER_RELEVANCE = `prompts:
  - 'What is the capital of {{country}}?'
providers:
  - openai:gpt-4o
tests:
  - vars:
      country: France
    assert:
      - type: answer-relevance
        threshold: 0.9
`;

describe('promptfoo configs, the rest of the format, end to end', () => {
  it("tests-per-prompt: a test runs with the prompts it names, and the echo answer marked as the Claw's is its reply", async () => {
    const s = await start();
    // promptfoo's echo provider answers the prompt itself; this service marks the answer as the assistant's.
    s.addClaw('c1', { chat: { mode: 'sync', echo: 'object', respond: (m) => m } });
    const dir = workspace({ 'promptfooconfig.yaml': TESTS_PER_PROMPT });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', 'checks-output': 'results.json' }),
      { env: { GITHUB_WORKSPACE: dir } },
    );
    // promptfoo 0.123.1 (its echo provider, run here): one result, "Factual Assistant" only, failing
    // its contains '4' on the echo; here the same, a failure on the reply, never "only echoes".
    expect(run.exitCode).toBe(1);
    expect(sentTo(s, 'c1')).toEqual(['You are factual. Answer: What is 2+2?']);
    const report = reportOf(run.outputs);
    expect(report.map((e) => [e.check, e.passed])).toEqual([['question=What is 2+2? [Factual Assistant]', false]]);
    expect(report[0].failure).toBe('contains "4" did not hold; reply: "You are factual. Answer: What is 2+2?"');
    const file = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
      results: { results: { promptIdx: number; prompt: { label: string }; success: boolean }[] };
    };
    expect(file.results.results.map((r) => [r.promptIdx, r.prompt.label, r.success])).toEqual([
      [0, 'Factual Assistant', false],
    ]);
  });

  it('custom-grading-prompt: llm-rubric with only the rubricPrompt, rendered with the vars and the reply', async () => {
    const s = await start();
    const reply = 'The Federal Reserve sets rates; macroeconomics studies the whole economy. What do you want to know?';
    s.addClaw('c1', { chat: { mode: 'sync', respond: () => reply } });
    judge = await startJudge({ answer: () => verdict({ pass: true, score: 3, reason: 'All three points.' }) });
    const url = judge.url;
    const dir = workspace({ 'promptfooconfig.yaml': CUSTOM_GRADING, 'prompts.txt': 'Talk about {{topic}}\n' });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url },
    });
    expect(run.errors).toEqual([]);
    expect(sentTo(s, 'c1')).toEqual(['Talk about the economy']);
    // promptfoo 0.123.1 passes it: the grader says pass (its score, 3, stands beside it without a threshold).
    expect(reportOf(run.outputs).map((e) => e.passed)).toEqual([true]);
    const messages = judge.completions()[0].body.messages as { role: string; content: string }[];
    expect(messages[0].content).toContain('Did the output mention the Federal Reserve? +1 point');
    expect(messages[1]).toEqual({ role: 'user', content: `Output: ${reply}` });
  });

  it('g-eval: steps, then a score out of 10 per criterion, a list averaged, passing at 0.7', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: "I'm doing well, thank you! How can I help you today?" } });
    judge = await startJudge({
      answer: (r) =>
        judgeText(r).includes('generate 3-4 concise evaluation steps')
          ? { content: '{"steps":["Read the reply.","Judge it against the criteria."]}' }
          : {
              content: judgeText(r).includes('Fluency')
                ? '{"score":9,"reason":"Fluent."}'
                : '{"score":6,"reason":"Thin."}',
            },
    });
    const url = judge.url;
    const dir = workspace({ 'promptfooconfig.yaml': G_EVAL });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url },
    });
    expect(run.exitCode).toBe(1);
    // promptfoo 0.123.1 on these answers: 0.6, 0.6, 0.9, 0.6 alone; the list's mean (0.6+0.6+0.9+0.6)/4 = 0.675.
    expect(reportOf(run.outputs).map((e) => e.passed)).toEqual([false, false, true, false, false]);
    expect(reportOf(run.outputs)[0].failure).toContain('g-eval');
    // Two calls per criterion, as promptfoo makes them, without a JSON schema (promptfoo's prompts ask for the JSON).
    expect(judge.completions()).toHaveLength(16);
    expect(judge.completions().every((r) => r.body.response_format === undefined)).toBe(true);
    expect(judgeText(judge.completions()[1])).toContain("I'm doing well, thank you!");
  });

  it("answer-relevance (the docs' example): questions from the grader, compared with the prompt by the endpoint's embeddings", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'The capital of France is Paris.' } });
    // The grader asks back the question the reply answers; the embeddings are letter counts.
    judge = await startJudge({ answer: () => ({ content: 'What is the capital of France?' }) });
    const url = judge.url;
    const dir = workspace({ 'promptfooconfig.yaml': ANSWER_RELEVANCE });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url },
    });
    expect(run.errors).toEqual([]);
    expect(reportOf(run.outputs).map((e) => e.passed)).toEqual([true]);
    expect(judge.completions()).toHaveLength(3);
    const embeddings = judge.others('embeddings');
    expect(embeddings).toHaveLength(1);
    expect(embeddings[0].body).toEqual({
      model: 'text-embedding-3-large',
      input: ['What is the capital of France?', ...Array(3).fill('What is the capital of France?')],
    });
    expect(embeddings[0].headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
  });

  it('similar, moderation and closedqa as their docs pages write them; and select-best on one Claw refused with why', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'The expected output, more or less.' } });
    judge = await startJudge({
      answer: () => ({ content: 'The tone is professional.\nY\nY' }),
      moderate: (t) => (t.includes('expected') ? ['sexual'] : []),
    });
    const url = judge.url;
    // The snippets of promptfoo's docs pages (similar.md f34dd6a, moderation.md f436017,
    // model-graded/model-graded-closedqa.md 45aee37), each under a test of one prompt.
    const dir = workspace({
      'promptfooconfig.yaml': `prompts: ['{{foo}}']
tests:
  - vars: {foo: bar}
    assert:
      - type: similar
        value: 'The expected output'
        threshold: 0.8
  - vars: {foo: bar}
    assert:
      - type: moderation
        value:
          - harassment
          - harassment/threatening
          - sexual
          - sexual/minors
  - vars: {foo: bar}
    assert:
      - type: model-graded-closedqa
        # Specify the criteria for grading the output:
        value: Is written in a professional tone without technical jargon
`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url },
    });
    expect(run.exitCode).toBe(1);
    // Letter counts of the reply and 'The expected output' are close (cosine above 0.8); the moderation
    // flags 'sexual', one of the categories named; the grader ends with Y.
    expect(reportOf(run.outputs).map((e) => e.passed)).toEqual([true, false, true]);
    expect(reportOf(run.outputs)[1].failure).toContain('Moderation flags detected: sexual');
    expect(judge.others('moderations')[0].body).toEqual({
      model: 'omni-moderation-latest',
      input: [{ type: 'text', text: 'The expected output, more or less.' }],
    });
    expect(judgeText(judge.completions()[0])).toContain(
      '[Criterion]: Is written in a professional tone without technical jargon',
    );

    // select-best compares Claws: on one Claw it is refused before any request, at its line, saying why.
    const refused = workspace({
      'promptfooconfig.yaml': `prompts: ['{{foo}}']\ntests:\n  - vars: {foo: bar}\n    assert:\n      - type: select-best\n        value: the best\n`,
    });
    const before = s.requests.length;
    const second = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: refused, OPENAI_API_KEY: JUDGE_KEY },
    });
    expect(second.exitCode).toBe(1);
    expect(second.errors[0]).toMatch(
      /^promptfooconfig\.yaml, line 5: 'select-best' compares the replies of several Claws to one test, and this run checks one Claw \(claw-id c1\)/,
    );
    expect(s.requests.length).toBe(before);
  });

  it("this project's own config: g-eval's and closedqa's own prompts, a file:// list entry, an unused grader named once", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', respond: ownPromptsReply } });
    judge = await startJudge(ownPromptsJudge);
    const url = judge.url;
    const dir = mkdtempSync(join(tmpdir(), 'claw-workspace-'));
    for (const [name, body] of Object.entries(OWN_PROMPTS_FILES)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), body);
    }
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url },
    });
    expect(run.errors).toEqual([]);
    // promptfoo 0.123.1 on the same answers (test/promptfoo/format.promptfoo.ts): all four pass.
    expect(reportOf(run.outputs).map((e) => e.passed)).toEqual([true, true, true, true]);
    // g-eval asked with the config's two prompts, each given promptfoo's names; closedqa with its own.
    const asked = judge.completions().map(judgeText);
    expect(asked).toHaveLength(3);
    expect(asked[0]).toBe('Write evaluation steps for: Says where the order is\nAnswer as {"steps": [...]}\n');
    expect(asked[1]).toBe(
      'Criteria: Says where the order is\nSteps:\n- Find where the order is.\n- Check the day it arrives.\nQuestion: Where is my order 12345?\nReply: Your order 12345 has shipped and arrives Friday.\nScore it from 0 to 10, as {"score": …, "reason": …}\n',
    );
    expect(asked[2]).toBe(
      'Question: Where is my order 12345?\nAnswer: Your order 12345 has shipped and arrives Friday.\nIs it friendly, and does it meet this: Says where the order is? End with Y or N.',
    );
    // defaultTest's grader is unused by two tests: named once, for the file.
    const said = 'options.provider where no model-graded assertion of the test uses it';
    expect(run.stdout.split(said)).toHaveLength(2);

    // A list entry that is a link into .git: refused at its line, before any request.
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'config'), '[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n');
    symlinkSync(join(dir, '.git', 'config'), join(dir, 'phrases', 'notes.txt'));
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      OWN_PROMPTS_CONFIG.replace('[file://phrases/shipped.txt, delivered]', '[delivered, file://phrases/notes.txt]'),
    );
    const before = s.requests.length;
    const refused = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url },
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.errors[0]).toMatch(
      /^promptfooconfig\.yaml, line 9: 'value' entry 2 is "file:\/\/phrases\/notes\.txt", which cannot be read: .*\.git/,
    );
    expect(refused.stdout).not.toContain('c2VjcmV0');
    expect(s.requests.length).toBe(before);
  });

  it("the prompts page's chat format: the system message noted, the user message sent; a scripted assistant message refused at its line", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'def reverse(s): return s[::-1]' } });
    // promptfoo's site/docs/configuration/prompts.md (commit 01ec11497b01e3ccb6964e2362bc2bde4e4ab6a5),
    // "Chat Format (JSON)": chat_prompt.json and conversation.json as published; the tests are this test's.
    const dir = workspace({
      'chat_prompt.json': `[
  {
    "role": "system",
    "content": "You are a helpful coding assistant."
  },
  {
    "role": "user",
    "content": "Write a function to {{task}}"
  }
]
`,
      'conversation.json': `[
  {
    "role": "system",
    "content": "You are a tutoring assistant."
  },
  {
    "role": "user",
    "content": "What is recursion?"
  },
  {
    "role": "assistant",
    "content": "Recursion is a programming technique where a function calls itself."
  },
  {
    "role": "user",
    "content": "Can you show me an example in {{language}}?"
  }
]
`,
      'promptfooconfig.yaml': `prompts:
  - file://chat_prompt.json
derivedMetrics:
  - name: double_code
    value: code * 2
tests:
  - vars: {task: reverse a string}
    options:
      response_format: {type: json_object}
    assert:
      - {type: contains, value: reverse, metric: code}
`,
      'conversation.yaml': `prompts:\n  - file://conversation.json\ntests:\n  - vars: {language: Python}\n`,
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', 'checks-output': 'results.json' }),
      { env: { GITHUB_WORKSPACE: dir } },
    );
    expect(run.errors).toEqual([]);
    expect(run.stdout).toContain(
      "promptfooconfig.yaml is a promptfoo config; ignored here: a chat prompt's system message (the Claw's own instructions play that part), options.response_format (it steers promptfoo's own provider).",
    );
    expect(sentTo(s, 'c1')).toEqual(['Write a function to reverse a string']);
    const file = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
      results: { prompts: { metrics: { namedScores: Record<string, number> } }[] };
    };
    // The derived metric beside the named one, as promptfoo computes it.
    expect(file.results.prompts[0].metrics.namedScores).toEqual({ code: 1, double_code: 2 });

    const before = s.requests.length;
    const refused = await runAction(inputsFor(s, { command: 'check', checks: 'conversation.yaml' }), {
      env: { GITHUB_WORKSPACE: dir },
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.errors).toEqual([
      expect.stringMatching(
        /^conversation\.json, line 11: the prompt has an 'assistant' message \(a scripted earlier answer\), which a Claw cannot be given: it writes its own answers/,
      ),
    ]);
    expect(s.requests.length).toBe(before);
  });

  it('named-metrics (its derivedMetrics read now): refused only for its python assertion, at its line', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Yarr' } });
    // promptfoo's examples/named-metrics/promptfooconfig.yaml (commit 00105163af9b5170e48b09c5400db59ef2c90b2d), unchanged.
    const dir = workspace({
      'promptfooconfig.yaml': `# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json
description: Custom metric naming and derivation for evaluation

prompts:
  - 'Say this as though you are a pirate: {{body}}'
  - 'Say this as though you are a seafarer from the 17th century: {{body}}'

providers:
  - openai:gpt-4.1-mini

derivedMetrics:
  - name: DoubleConsistency
    value: Consistency * 2

tests:
  - description: Check for exact match
    vars:
      body: Yes
    assert:
      - type: equals
        value: Yarr
        metric: Tone

  - description: Another basic substring check
    vars:
      body: I'm hungry
    assert:
      - type: icontains
        value: grub
        metric: Tone

  - description: Check if output is JSON
    vars:
      body: Output the story of your life in JSON
    assert:
      - type: is-json
        metric: Consistency

  - description: Check for semantic similarity
    vars:
      body: Hello world
    assert:
      # Look for substring
      - type: javascript
        value: output.startsWith('Ahoy')
      - type: python
        value: max(0, len(output) - 300)
        metric: Consistency

      # Check for semantic similarity
      - type: similar
        value: Ahoy, world
        metric: Tone

  - description: Use LLM to evaluate output
    vars:
      body: The quick brown fox jumps over the lazy dog
    assert:
      # Ask the LLM to check if it spoke like a pirate
      - type: llm-rubric
        value: Is spoken like a pirate
        metric: Tone
`,
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir },
    });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      "promptfooconfig.yaml, line 46: 'python' is a promptfoo assertion this project does not run: a Claw check runs no Python: write the function as a javascript assertion.",
    ]);
  });
});
