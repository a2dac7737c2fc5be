// promptfoo's graders' recipes, on answers that cannot be read (each an error, never a verdict),
// and the Judge around them: one verdict per recipe cached whole, a refused key ending the judge.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealKey } from '../../shared/seal.js';
import { ApiError } from '../../api/errors.js';
import type { RecipeAssertion as Held } from '../assertions.js';
import { Judge } from '../judge.js';
import { VerdictCache } from '../judge-cache.js';
import { type GraderTools, type RecipeAssertion, runRecipe, selectBestIndex } from './graders.js';

const material = { output: 'Hello there', input: 'Say hello', vars: {} };
const tools = (answers: string[], vectors: number[][] = []): GraderTools & { asked: number } => {
  const t = {
    asked: 0,
    ask: async () => ({ text: answers[t.asked++] ?? '' }),
    embed: async () => ({ vectors }),
    moderate: async () => ({ flags: [] }),
  };
  return t;
};
const a = (type: RecipeAssertion['type'], value: string | string[] = 'is kind'): RecipeAssertion => ({ type, value });

describe("promptfoo's graders", () => {
  it('reads a select-best answer as one plain index, or as a problem: never the first digits of anything', () => {
    const read = (answer: string): number | string => {
      const r = selectBestIndex(answer, 3);
      return 'index' in r ? r.index : 'problem';
    };
    const cases: [string, number | string][] = [
      ['2', 2],
      ['The best is 1.', 1],
      ['<Text index="0"> fits', 0],
      ['1, so: 1.', 1],
      ['<think>0 or 2? 2 is weak</think>\n1', 1],
      ['-1', 'problem'],
      ['0.9', 'problem'],
      ['1e3', 'problem'],
      ['%0A', 'problem'],
      ['Text 0 is dull; 1 is best', 'problem'],
      ['3', 'problem'],
      ['99999999999999999999999', 'problem'],
      ['\uff11', 'problem'],
      ['<think>1', 'problem'],
      ['none', 'problem'],
      ['', 'problem'],
    ];
    expect(cases.map(([answer]) => [answer, read(answer)])).toEqual(cases);
  });

  it('reads an answer it cannot use as an error, saying what came back', async () => {
    expect(await runRecipe(a('model-graded-closedqa'), material, tools(['I think so, maybe.']))).toEqual({
      kind: 'error',
      reason: 'its answer ends with neither Y nor N: "I think so, maybe."',
    });
    expect(await runRecipe(a('g-eval'), material, tools(['no steps here']))).toMatchObject({
      kind: 'error',
      reason: expect.stringMatching(/^its evaluation steps are not \{"steps": \[\.\.\.\]\}/),
    });
    expect(
      await runRecipe(a('g-eval'), material, tools(['{"steps":["a"]}', '{"score":11,"reason":"too high"}'])),
    ).toMatchObject({ kind: 'error', reason: expect.stringMatching(/is not \{"score": 0 to 10/) });
    expect(await runRecipe(a('similar', 'Hello'), material, tools([], [[1, 0]]))).toEqual({
      kind: 'error',
      reason: 'it returned 1 embeddings for 2 texts',
    });
  });

  it("g-eval asks with its own steps and evaluate prompts, each given promptfoo's names only", async () => {
    const asked: string[] = [];
    const t: GraderTools = {
      ask: async (messages) => {
        asked.push(messages.map((m) => `${m.role}: ${m.content}`).join(' | '));
        return { text: asked.length === 1 ? '{"steps":["One.","Two."]}' : '{"score":8,"reason":"ok"}' };
      },
      embed: async () => ({ vectors: [] }),
      moderate: async () => ({ flags: [] }),
    };
    const gEvalPrompts = {
      steps: 'Steps for {{criteria}}',
      evaluate: JSON.stringify([
        { role: 'system', content: 'Score out of {{maxScore}}' },
        { role: 'user', content: '{{criteria}}\n- {{steps}}\n{{input}} -> {{output}}' },
      ]),
    };
    const verdict = await runRecipe({ ...a('g-eval', 'Coherence'), gEvalPrompts }, material, t);
    expect(verdict).toEqual({ kind: 'pass', score: 0.8, reason: 'ok' });
    expect(asked).toEqual([
      'user: Steps for Coherence',
      'system: Score out of 10 | user: Coherence\n- One.\n- Two.\nSay hello -> Hello there',
    ]);
    // Only the evaluation prompt given: the steps are asked with promptfoo's.
    asked.length = 0;
    await runRecipe({ ...a('g-eval', 'Coherence'), gEvalPrompts: { evaluate: gEvalPrompts.evaluate } }, material, t);
    expect(asked[0]).toContain('generate 3-4 concise evaluation steps');
  });

  it('passes an empty reply through moderation as promptfoo does, with no call', async () => {
    const t = tools([]);
    expect(await runRecipe(a('moderation', []), { ...material, output: '' }, t)).toEqual({
      kind: 'pass',
      score: 1,
      reason: 'No output to moderate',
    });
  });

  it('a judge caches a recipe verdict whole, and a refused key ends it for the run', async () => {
    let calls = 0;
    const backend = {
      identity: 'test',
      ask: async () => {
        calls += 1;
        return { text: 'Reasoning.\nY\nY' };
      },
    };
    const cache = await VerdictCache.load(
      join(mkdtempSync(join(tmpdir(), 'cache-')), 'c.json'),
      tmpdir(),
      () => {},
      sealKey('k', 'octo/claws'),
    );
    const judge = new Judge(backend, cache);
    const spec = { kind: 'claw' as const, clawId: 'grader' };
    const task = {
      assertion: { ...a('model-graded-closedqa'), negate: false, judge: spec } satisfies Held,
      conversation: [{ send: 'Say hello', reply: 'Hello there' }],
    };
    const first = await judge.grade(task, Date.now() + 10_000);
    const second = await judge.grade(task, Date.now() + 10_000);
    expect([first.kind, second.kind, second.use.cached, calls]).toEqual(['pass', 'pass', true, 1]);

    // g-eval's own prompts are part of its grading: changed, it is graded anew, not read from the cache.
    let gEvalCalls = 0;
    const gEvalJudge = new Judge(
      {
        identity: 'test',
        ask: async (messages) => {
          gEvalCalls += 1;
          return {
            text: messages.some((m) => m.content.includes('Steps for'))
              ? '{"steps":["One."]}'
              : '{"score":9,"reason":"ok"}',
          };
        },
      },
      cache,
    );
    const gEval = (evaluate: string) => ({
      ...task,
      assertion: {
        ...a('g-eval', 'Coherence'),
        negate: false,
        judge: spec,
        gEvalPrompts: { steps: 'Steps for {{criteria}}', evaluate },
      } satisfies Held,
    });
    for (const evaluate of ['Score {{output}}', 'Score {{output}}', 'Rate {{output}}'])
      expect((await gEvalJudge.grade(gEval(evaluate), Date.now() + 10_000)).kind).toBe('pass');
    expect(gEvalCalls).toBe(4);

    const refusing = new Judge({
      identity: 'refusing',
      ask: async () => {
        throw new ApiError('the judge refused its key (401)', 'unauthorized', 401);
      },
    });
    const denied = await refusing.grade(task, Date.now() + 10_000);
    expect(denied).toMatchObject({ kind: 'error', reason: 'judge unavailable: the judge refused its key (401)' });
    const again = await refusing.grade({ ...task, conversation: [{ send: 'x', reply: 'y' }] }, Date.now() + 10_000);
    expect(again).toMatchObject({ kind: 'error', use: { called: false } });
  });
});
