// promptfoo's select-best and max-score across the Claws of a run: the judge asked once with
// promptfoo's prompt over the Claws' last replies, its answer read as an index (a bad one an
// error, never a pass), max-score from the other assertions' scores as promptfoo's selectMaxScore.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealKey } from '../shared/seal.js';
import type { Check, CheckSuite, CompareAssertion } from './check.js';
import { compareClaws, firstCompare, oneClawRefusal } from './compare-claws.js';
import { Judge } from './judge.js';
import { VerdictCache } from './judge-cache.js';
import type { Message } from './rubric.js';
import type { CheckEntry } from './result.js';
import { type Component, scoreTurn } from './scoring.js';

const JUDGE = { kind: 'claw' as const, clawId: 'grader' };
const SELECT: CompareAssertion = {
  type: 'select-best',
  criteria: 'the funniest joke',
  judge: JUDGE,
  where: 'promptfooconfig.yaml, line 9',
  written: { type: 'select-best', value: 'the funniest joke' },
};
const maxScore = (more: Partial<Extract<CompareAssertion, { type: 'max-score' }>> = {}): CompareAssertion => ({
  type: 'max-score',
  method: 'average',
  weights: {},
  where: 'promptfooconfig.yaml, line 12',
  written: { type: 'max-score' },
  ...more,
});

function suiteWith(compare: CompareAssertion[], vars: Record<string, unknown> = { topic: 'cats' }): CheckSuite {
  const check: Check = {
    name: 'joke',
    turns: [{ send: 'Tell a joke about {{topic}}', assert: [] }],
    repeat: 1,
    minPass: 1,
    timeoutMs: 60_000,
    origin: { testIdx: 0, promptIdx: 0, vars, testCase: {} },
    compare,
  };
  return { file: 'promptfooconfig.yaml', checks: [check], judges: [JUDGE] };
}

const component = (type: string, score: number): Component => ({
  pass: score > 0.5,
  score,
  reason: 'r',
  assertion: { type },
});

/** One Claw's entry for the check: passed with `reply`, its components scored as given. */
function entry(clawId: string, reply: string | undefined, components: Component[] = []): CheckEntry {
  const answered = reply !== undefined;
  return {
    check: 'joke',
    clawId,
    passed: answered,
    passes: answered ? 1 : 0,
    attempts: 1,
    repeat: 1,
    minPass: 1,
    failures: 0,
    errors: answered ? 0 : 1,
    replies: answered ? [reply] : [],
    ...(answered ? {} : { failure: 'error: no reply within 1m' }),
    last: answered
      ? {
          sent: ['Tell a joke about cats'],
          reply,
          grading: { pass: true, score: 1, reason: 'ok', namedScores: {}, namedScoreWeights: {}, components },
        }
      : { sent: ['Tell a joke about cats'], error: 'no reply within 1m' },
  };
}

function judging(answers: string[], cache?: VerdictCache): { judge: Judge; asked: Message[][] } {
  const asked: Message[][] = [];
  const judge = new Judge(
    {
      identity: 'fake',
      ask: async (messages) => {
        asked.push(messages);
        return { text: answers[asked.length - 1] ?? '', tokens: 7 };
      },
    },
    cache,
  );
  return { judge, asked };
}

const lines: string[] = [];
const tools = (judge: Judge) => ({
  judgeFor: () => judge,
  deadline: Date.now() + 60_000,
  log: { info: (l: string) => lines.push(l) },
});

describe('select-best across the Claws of a run', () => {
  it("asks the judge once with promptfoo's prompt over the replies; the chosen Claw passes, the others fail naming it", async () => {
    const entries = [
      entry('alpha', 'Cats nap.'),
      entry('beta', 'Why did the cat sit on the laptop?'),
      entry('gamma', 'Meow.'),
    ];
    const { judge, asked } = judging(['The best is 1.']);
    await compareClaws(suiteWith([SELECT]), entries, [['alpha', 'beta', 'gamma']], tools(judge));

    expect(asked).toHaveLength(1);
    expect(asked[0]).toHaveLength(1);
    expect(asked[0][0].role).toBe('system');
    const prompt = asked[0][0].content;
    expect(prompt).toMatch(
      /^You are comparing multiple pieces of text to see which best fits the following criteria: the funniest joke\n/,
    );
    expect(prompt).toContain('<Text index="0">\nCats nap.\n</Text>');
    expect(prompt).toContain('<Text index="1">\nWhy did the cat sit on the laptop?\n</Text>');
    expect(prompt).toContain('<Text index="2">\nMeow.\n</Text>');
    expect(prompt).toMatch(
      /Output the index of the text that best fits the criteria\. You must output a single integer\.$/,
    );

    expect(entries.map((e) => [e.clawId, e.passed, e.failures])).toEqual([
      ['alpha', false, 1],
      ['beta', true, 0],
      ['gamma', false, 1],
    ]);
    expect(entries[0].failure).toBe(
      'select-best "the funniest joke" did not hold: the judge chose the reply of beta as the best',
    );
    expect(entries[1].last?.grading?.components.at(-1)).toMatchObject({
      pass: true,
      score: 1,
      reason: 'Output selected as the best: the funniest joke',
      assertion: { type: 'select-best' },
    });
    // As promptfoo merges a comparison that fails: the test's reason and score become its own.
    expect(entries[2].last?.grading).toMatchObject({
      pass: false,
      score: 0,
      reason: 'Output not selected: the funniest joke',
    });
    expect(entries[0].judge).toMatchObject({ calls: 1, tokens: 7 });
  });

  it('reads an answer naming no reply as an error for every Claw, never a pass', async () => {
    for (const answer of ['3', 'none of them', '']) {
      const entries = [entry('alpha', 'a'), entry('beta', 'b'), entry('gamma', 'c')];
      const { judge } = judging([answer]);
      await compareClaws(suiteWith([SELECT]), entries, [['alpha', 'beta', 'gamma']], tools(judge));
      expect(entries.every((e) => !e.passed && e.errors === 1 && e.failures === 0)).toBe(true);
      expect(entries[1].failure).toMatch(/^error: select-best: judge unavailable: /);
    }
    const entries = [entry('alpha', 'a'), entry('beta', 'b')];
    await compareClaws(suiteWith([SELECT]), entries, [['alpha', 'beta']], tools(judging(['7']).judge));
    expect(entries[0].failure).toBe(
      'error: select-best: judge unavailable: its select-best answer names no reply (expected an index from 0 to 1): "7"',
    );
  });

  it("renders a rubricPrompt with the test's vars, the criteria and the replies, which no var shadows", async () => {
    const entries = [entry('alpha', '{"joke": "Cats nap."}'), entry('beta', 'Meow.')];
    const { judge, asked } = judging(['0']);
    const custom = { ...SELECT, rubricPrompt: 'On {{topic}}, by {{criteria}}: {{outputs}}' };
    const vars = { topic: 'cats', criteria: 'a var', outputs: 'a var' };
    await compareClaws(suiteWith([custom], vars), entries, [['alpha', 'beta']], tools(judge));
    // promptfoo hands a reply that is JSON to the template as its JSON text.
    expect(asked[0]).toEqual([{ role: 'user', content: 'On cats, by the funniest joke: {"joke":"Cats nap."},Meow.' }]);
    expect(entries.map((e) => e.passed)).toEqual([true, false]);
  });

  it('caches the choice by the prompt: the same replies again cost no call', async () => {
    const cache = await VerdictCache.load(
      join(mkdtempSync(join(tmpdir(), 'cache-')), 'c.json'),
      tmpdir(),
      () => {},
      sealKey('k', 'octo/claws'),
    );
    const { judge, asked } = judging(['0', '1'], cache);
    const first = [entry('alpha', 'a'), entry('beta', 'b')];
    const second = [entry('alpha', 'a'), entry('beta', 'b')];
    await compareClaws(suiteWith([SELECT]), first, [['alpha', 'beta']], tools(judge));
    await compareClaws(suiteWith([SELECT]), second, [['alpha', 'beta']], tools(judge));
    expect(asked).toHaveLength(1);
    expect(second.map((e) => e.passed)).toEqual([true, false]);
    expect(second[0].judge).toMatchObject({ calls: 0, cacheHits: 1 });
  });

  it('compares within each group only, and leaves out a Claw that did not answer', async () => {
    const entries = [
      entry('prod-a', 'a1'),
      entry('prod-a-preview', 'a2'),
      entry('prod-b', 'b1'),
      entry('prod-b-preview', undefined),
    ];
    const { judge, asked } = judging(['1']);
    await compareClaws(
      suiteWith([SELECT]),
      entries,
      [
        ['prod-a', 'prod-a-preview'],
        ['prod-b', 'prod-b-preview'],
      ],
      tools(judge),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0][0].content).not.toContain('b1');
    expect(entries.map((e) => e.passed)).toEqual([false, true, false, false]);
    expect(entries[2].failure).toBe(
      'error: select-best compares the replies of at least two Claws to this test, and only prod-b answered it in this run',
    );
    // The Claw that gave no reply keeps its own error.
    expect(entries[3].failure).toBe('error: no reply within 1m');
  });
});

describe('max-score across the Claws of a run', () => {
  it('scores each Claw by its other assertions (average, per-type weights) and passes the highest; ties go to the first', async () => {
    const entries = [
      entry('alpha', 'a', [component('contains', 1), component('llm-rubric', 0.2)]),
      entry('beta', 'b', [component('contains', 0), component('llm-rubric', 1)]),
    ];
    // Weighted: alpha (1·1 + 0.2·3) / 4 = 0.4, beta (0 + 1·3) / 4 = 0.75.
    await compareClaws(
      suiteWith([maxScore({ weights: { 'llm-rubric': 3 } })]),
      entries,
      [['alpha', 'beta']],
      tools(judging([]).judge),
    );
    expect(entries.map((e) => e.passed)).toEqual([false, true]);
    expect(entries[0].failure).toBe("max-score did not hold: the score 0.400 is below beta's 0.750");
    expect(entries[1].last?.grading?.components.at(-1)).toMatchObject({
      pass: true,
      reason: 'Selected as highest scoring output (score: 0.750)',
      namedScores: { maxScore: 0.75, assertionCount: 2, totalWeight: 4 },
    });

    const tied = [entry('alpha', 'a', [component('contains', 1)]), entry('beta', 'b', [component('contains', 1)])];
    await compareClaws(suiteWith([maxScore()]), tied, [['alpha', 'beta']], tools(judging([]).judge));
    expect(tied.map((e) => e.passed)).toEqual([true, false]);
  });

  it('sums with method sum, and passes no Claw when the highest is below value.threshold', async () => {
    const entries = [
      entry('alpha', 'a', [component('contains', 0.5), component('equals', 0.5)]),
      entry('beta', 'b', [component('contains', 0.25), component('equals', 0.5)]),
    ];
    await compareClaws(
      suiteWith([maxScore({ method: 'sum', threshold: 1.5 })]),
      entries,
      [['alpha', 'beta']],
      tools(judging([]).judge),
    );
    expect(entries.map((e) => e.passed)).toEqual([false, false]);
    expect(entries[0].failure).toBe('max-score did not hold: the score 1.000 is below the threshold 1.5');
    expect(entries[0].last?.grading?.reason).toBe('Not selected - score 1.000 below threshold 1.5');
    expect(entries[1].failure).toBe("max-score did not hold: the score 0.750 is below alpha's 1.000");

    // A test that had failed already keeps its own reason beside max-score's, as promptfoo merges it.
    const failing = [entry('alpha', 'a', [component('contains', 1)]), entry('beta', 'b', [component('contains', 0)])];
    failing[1].last!.grading = { ...failing[1].last!.grading!, pass: false, reason: 'contains did not hold' };
    await compareClaws(suiteWith([maxScore()]), failing, [['alpha', 'beta']], tools(judging([]).judge));
    expect(failing[1].last?.grading).toMatchObject({ pass: false, score: 0, reason: 'contains did not hold' });
  });

  it('leaves select-best out of the scores, and runs after it', async () => {
    const entries = [entry('alpha', 'a', [component('contains', 1)]), entry('beta', 'b', [component('contains', 0.5)])];
    const { judge } = judging(['1']);
    await compareClaws(suiteWith([maxScore(), SELECT]), entries, [['alpha', 'beta']], tools(judge));
    // select-best chose beta (alpha fails); max-score, not counting select-best's 0, chose alpha (beta fails).
    expect(entries.map((e) => e.passed)).toEqual([false, false]);
    expect(entries[0].last?.grading?.components.map((c) => [c.assertion.type, c.pass])).toEqual([
      ['contains', true],
      ['select-best', false],
      ['max-score', true],
    ]);
  });
});

describe('a turn beside max-score', () => {
  it('asks the judge even once the turn has failed, so that every assertion has its score', async () => {
    const rubric = { type: 'llm-rubric' as const, negate: false, value: 'is funny', judge: JUDGE };
    const contains = { type: 'contains' as const, negate: false, value: 'cat' };
    const graded = async (gradeAll: boolean) => {
      let asked = 0;
      const outcome = await scoreTurn({ assert: [contains, rubric], gradeAll }, 'A dog walks in.', 5, {
        grade: async () => {
          asked += 1;
          return { kind: 'verdict', passed: true, reason: 'funny', figures: '', score: 0.8 };
        },
        runScript: async () => ({ kind: 'unfinished', message: 'no scripts here' }),
        remainingMs: () => 1000,
        context: {},
      });
      return { asked, kind: outcome.kind, scores: outcome.grading?.components.map((c) => c.score) };
    };
    expect(await graded(false)).toEqual({ asked: 0, kind: 'failure', scores: [0] });
    expect(await graded(true)).toEqual({ asked: 1, kind: 'failure', scores: [0, 0.8] });
  });
});

describe('the one-Claw refusal', () => {
  it('names the file and line of the first comparison, and why', () => {
    const a = firstCompare(suiteWith([SELECT]))!;
    expect(oneClawRefusal(a, 'this run checks one Claw (claw-id alpha)')).toBe(
      "promptfooconfig.yaml, line 9: 'select-best' compares the replies of several Claws to one test, and this run checks one Claw (claw-id alpha): only one Claw answers, so nothing is compared: expected llm-rubric with the criterion, or several Claws (a list of ids, '*', or a preview beside production).",
    );
    expect(firstCompare({ file: 'f', checks: [], judges: [] })).toBeUndefined();
  });
});
