// promptfoo's own verdicts on the shared cases (cases.ts), from promptfoo itself: each case is a
// test whose provider answers the case's reply, and whose grader answers the case's scripted
// verdict. Used by record-verdicts.ts (to write verdicts.json) and by the opt-in test (to check
// verdicts.json is still promptfoo's word). `promptfoo` is the module, installed apart.
import { FakeJudge, letterVector } from '../sim/judge.ts';
import { CASES, graderAnswer, moderationFlags } from './cases.ts';
import { COMPARE_CASES, type CompareCase, compareGraderAnswer } from './compare-cases.ts';

export interface Verdict {
  pass: boolean;
  score: number;
}

interface Promptfoo {
  evaluate(suite: object, options: object): Promise<{ toEvaluateSummary(): Promise<{ results: PromptfooResult[] }> }>;
}
interface PromptfooResult {
  success: boolean;
  score: number;
  vars: Record<string, unknown>;
  testCase: { description?: string };
}

export async function promptfooVerdicts(promptfoo: Promptfoo): Promise<Record<string, Verdict>> {
  const claw = {
    id: () => 'claw',
    callApi: async (_prompt: string, context: { vars: { out: string } }) => ({ output: context.vars.out }),
  };
  // The grader answers as the fake judge does (cases.ts), with embeddings and a moderation for the graders that use them.
  const grader = {
    id: () => 'grader',
    callApi: async (prompt: string, context?: { vars?: { __grader?: string } }) => ({
      output: graderAnswer(prompt, context?.vars?.__grader ? JSON.parse(context.vars.__grader) : undefined),
    }),
    callEmbeddingApi: async (text: string) => ({ embedding: letterVector(text) }),
    callModerationApi: async (_prompt: string, response: string) => ({
      flags: moderationFlags(response).map((code) => ({ code, description: code, confidence: 0.9 })),
    }),
  };
  const tests = CASES.map((c) => ({
    description: c.name,
    vars: { out: c.output, ...c.vars, ...(c.grader ? { __grader: JSON.stringify(c.grader) } : {}) },
    assert: c.assert,
    ...(c.threshold === undefined ? {} : { threshold: c.threshold }),
    options: {
      provider: grader,
      ...(c.transform ? { transform: c.transform } : {}),
      ...(c.rubricPrompt ? { rubricPrompt: c.rubricPrompt } : {}),
    },
  }));
  const run = await promptfoo.evaluate(
    { prompts: ['{{out}}'], providers: [claw], tests },
    { maxConcurrency: 4, cache: false, writeLatestResults: false, showProgressBar: false },
  );
  const summary = await run.toEvaluateSummary();
  return Object.fromEntries(
    summary.results.map((r) => [r.testCase.description ?? '', { pass: r.success, score: round(r.score) }]),
  );
}

export const round = (n: number): number => Math.round(n * 10_000) / 10_000;

/**
 * promptfoo's verdicts on the compare cases (compare-cases.ts): `<case> · <provider index>`, one
 * eval per case. The grader is promptfoo's default one, the fake judge at OPENAI_BASE_URL: a
 * test's own grader, object or id, reaches 0.123.1's comparison as a copy without its functions.
 */
export async function promptfooCompareVerdicts(
  promptfoo: Promptfoo,
): Promise<Record<string, Verdict & { error: boolean }>> {
  const out: Record<string, Verdict & { error: boolean }> = {};
  let current: CompareCase | undefined;
  const judge = new FakeJudge({
    answer: (r) => ({
      content: compareGraderAnswer(
        ((r.body.messages as { content: string }[]) ?? []).map((m) => m.content).join('\n'),
        current!,
      ),
    }),
  });
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  process.env.OPENAI_API_KEY = 'sk-promptfoo-compare-cases';
  process.env.OPENAI_BASE_URL = await judge.start();
  try {
    for (const c of COMPARE_CASES) {
      current = c;
      const providers = c.outputs.map((output, i) => ({ id: () => `claw${i}`, callApi: async () => ({ output }) }));
      const run = await promptfoo.evaluate(
        {
          prompts: ['Say something'],
          providers,
          tests: [{ description: c.name, assert: c.assert }],
        },
        { maxConcurrency: 1, cache: false, writeLatestResults: false, showProgressBar: false },
      );
      const summary = await run.toEvaluateSummary();
      for (const r of summary.results as (PromptfooResult & { provider: { id: string }; failureReason?: number })[])
        out[`${c.name} · ${r.provider.id.replace('claw', '')}`] = {
          pass: r.success,
          score: round(r.score),
          // promptfoo's ResultFailureReason.ERROR: the result could not be graded.
          error: r.failureReason === 2,
        };
    }
  } finally {
    await judge.stop();
    process.env.OPENAI_API_KEY = saved.key;
    process.env.OPENAI_BASE_URL = saved.url;
    if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
    if (saved.url === undefined) delete process.env.OPENAI_BASE_URL;
  }
  return out;
}
