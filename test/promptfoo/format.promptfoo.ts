// Opt-in (npm run test:promptfoo): promptfoo 0.123.1 itself on the configs of
// test/e2e/promptfoo-format.e2e.test.ts, with the same Claw replies (a provider of the test's) and
// the same fake judge at OPENAI_BASE_URL (chat, /embeddings, /moderations): its verdicts are the
// ones the end-to-end tests expect of dist/.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FakeJudge, type FakeJudgeOptions, judgeText, verdict } from '../sim/judge.ts';
import {
  OWN_PROMPTS_CONFIG,
  OWN_PROMPTS_FILES,
  ownPromptsJudge,
  ownPromptsReply,
} from '../e2e/promptfoo-own-prompts.ts';

const INSTALL = join(import.meta.dirname, '.install', 'node_modules', 'promptfoo');
const E2E = readFileSync(join(import.meta.dirname, '..', 'e2e', 'promptfoo-format.e2e.test.ts'), 'utf8');
/** A config as the e2e test writes it (its template literal, escapes undone). */
const config = (name: string): Record<string, unknown> =>
  parse(new RegExp(`const ${name} = \`([\\s\\S]*?)\`;`).exec(E2E)![1].replace(/\\\\/g, '\\')) as Record<
    string,
    unknown
  >;

interface Promptfoo {
  evaluate(
    suite: object,
    options: object,
  ): Promise<{ toEvaluateSummary(): Promise<{ results: { success: boolean; score: number }[] }> }>;
}

async function verdicts(
  suite: Record<string, unknown>,
  reply: string | ((prompt: string) => string),
  options: FakeJudgeOptions,
): Promise<boolean[]> {
  const promptfoo = (
    (await import(pathToFileURL(join(INSTALL, 'dist', 'src', 'index.js')).href)) as { default: Promptfoo }
  ).default;
  const judge = new FakeJudge(options);
  process.env.OPENAI_API_KEY = 'sk-promptfoo-opt-in';
  process.env.OPENAI_BASE_URL = await judge.start();
  try {
    const claw = {
      id: () => 'claw',
      callApi: async (prompt: string) => ({ output: typeof reply === 'string' ? reply : reply(prompt) }),
    };
    const run = await promptfoo.evaluate(
      { ...suite, providers: [claw] },
      { maxConcurrency: 1, cache: false, writeLatestResults: false, showProgressBar: false },
    );
    return (await run.toEvaluateSummary()).results.map((r) => r.success);
  } finally {
    await judge.stop();
  }
}

describe("promptfoo itself on the end-to-end tests' configs", () => {
  it('tests-per-prompt: one result, "Factual Assistant" only, failing on the echo', async () => {
    const echo = 'You are factual. Answer: What is 2+2?'; // what promptfoo's echo provider answers
    expect(await verdicts(config('TESTS_PER_PROMPT'), echo, {})).toEqual([false]);
  });

  it('custom-grading-prompt passes', async () => {
    const suite = { ...config('CUSTOM_GRADING'), prompts: ['Talk about {{topic}}'] }; // prompts.txt, inline
    const reply = 'The Federal Reserve sets rates; macroeconomics studies the whole economy. What do you want to know?';
    expect(
      await verdicts(suite, reply, { answer: () => verdict({ pass: true, score: 3, reason: 'All three.' }) }),
    ).toEqual([true]);
  });

  it('g-eval: only the Fluency test passes', async () => {
    const answer: FakeJudgeOptions['answer'] = (r) =>
      judgeText(r).includes('generate 3-4 concise evaluation steps')
        ? { content: '{"steps":["Read the reply.","Judge it against the criteria."]}' }
        : {
            content: judgeText(r).includes('Fluency')
              ? '{"score":9,"reason":"Fluent."}'
              : '{"score":6,"reason":"Thin."}',
          };
    expect(
      await verdicts(config('G_EVAL'), "I'm doing well, thank you! How can I help you today?", { answer }),
    ).toEqual([false, false, true, false, false]);
  });

  it('answer-relevance passes', async () => {
    const answer = () => ({ content: 'What is the capital of France?' });
    expect(await verdicts(config('ANSWER_RELEVANCE'), 'The capital of France is Paris.', { answer })).toEqual([true]);
  });

  it("this project's own config (g-eval's and closedqa's own prompts, a file:// list entry): all four pass", async () => {
    // promptfoo reads the config's files from the folder it runs in: the config's own, as the action's.
    const dir = mkdtempSync(join(tmpdir(), 'promptfoo-own-'));
    for (const [name, body] of Object.entries(OWN_PROMPTS_FILES)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), body);
    }
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(
        await verdicts(parse(OWN_PROMPTS_CONFIG) as Record<string, unknown>, ownPromptsReply, ownPromptsJudge),
      ).toEqual([true, true, true, true]);
    } finally {
      process.chdir(cwd);
    }
  });

  it('similar passes, moderation fails, closedqa passes', async () => {
    const suite = parse(
      /'promptfooconfig\.yaml': `(prompts: \['\{\{foo\}\}'\]\ntests:[\s\S]*?)`,/.exec(E2E)![1],
    ) as object;
    const options: FakeJudgeOptions = {
      answer: () => ({ content: 'The tone is professional.\nY\nY' }),
      moderate: (t) => (t.includes('expected') ? ['sexual'] : []),
    };
    expect(await verdicts(suite as Record<string, unknown>, 'The expected output, more or less.', options)).toEqual([
      true,
      false,
      true,
    ]);
  });

  it("a tolerance in metadata (a test's and defaultTest's, as promptfoo-tolerance.e2e.test.ts writes it) is plain metadata to promptfoo", async () => {
    const suite = parse(`prompts: ['{{q}}']
defaultTest:
  assert: [{type: starts-with, value: 'PASS:'}]
  metadata: {owner: support, tolerance: {latency: 100%, passRate: 50%}}
tests:
  - vars: {q: q1}
    metadata: {tolerance: {passRate: 0.05, score: 10%}}
  - vars: {q: q2}
`) as Record<string, unknown>;
    const reply = (prompt: string) => (prompt === 'q1' ? 'PASS: q1' : 'FAIL: q2');
    expect(await verdicts(suite, reply, {})).toEqual([true, false]);
  });
});
