// The shared cases of select-best and max-score: each a promptfoo test answered by several
// providers (here, Claws), one reply each, scored by promptfoo itself (compare-verdicts.json,
// written by record-verdicts.ts) and by this project's gate (src/checks/compare-verdicts.test.ts).
// The fake grader both sides ask answers select-best with the case's `choice`, and an llm-rubric
// with the score the case gives the reply it grades.

export interface CompareCase {
  name: string;
  /** One reply per provider, in order (distinct, so the grader can tell which it grades). */
  outputs: string[];
  assert: Record<string, unknown>[];
  /** The grader's answer to promptfoo's select-best prompt. */
  choice?: string;
  /** The grader's llm-rubric score for each reply (pass at 0.5 and above). */
  scores?: Record<string, number>;
  differs?: string;
}

/** The fake grader's answer to one grading prompt. */
export function compareGraderAnswer(prompt: string, c: CompareCase): string {
  if (prompt.includes('You are comparing multiple pieces of text')) return c.choice ?? '';
  const reply = c.outputs.find((o) => prompt.includes(o));
  const score = reply === undefined ? 0 : (c.scores?.[reply] ?? 0);
  return JSON.stringify({ reason: 'Graded.', pass: score >= 0.5, score });
}

const SELECT = { type: 'select-best', value: 'the kindest reply' };

export const COMPARE_CASES: CompareCase[] = [
  {
    name: 'select-best: the second of three',
    outputs: ['Go away.', 'Happy to help!', 'What?'],
    assert: [SELECT],
    choice: '1',
  },
  {
    name: 'select-best: the first of two, its answer a sentence',
    outputs: ['Hello, friend.', 'Hm.'],
    assert: [SELECT],
    choice: 'Text 0 is the kindest.',
  },
  {
    name: 'select-best: an index out of range',
    outputs: ['Hello, friend.', 'Hm.'],
    assert: [SELECT],
    choice: '2',
    differs: 'an error for every Claw (promptfoo: a failure for every output)',
  },
  {
    name: 'select-best: no index',
    outputs: ['Hello, friend.', 'Hm.'],
    assert: [SELECT],
    choice: 'Both are kind.',
    differs: 'an error for every Claw (promptfoo: a failure for every output)',
  },
  {
    name: 'select-best beside a failing assertion',
    outputs: ['Hello, friend.', 'Hello!'],
    assert: [{ type: 'icontains', value: 'friend' }, SELECT],
    choice: '1',
  },
  {
    name: 'max-score: the average of the others',
    outputs: ['Hello, friend.', 'Hello!', 'Bye.'],
    assert: [{ type: 'icontains', value: 'hello' }, { type: 'icontains', value: 'friend' }, { type: 'max-score' }],
  },
  {
    name: 'max-score: a tie goes to the first',
    outputs: ['Hello!', 'Hello.'],
    assert: [{ type: 'icontains', value: 'hello' }, { type: 'max-score' }],
  },
  {
    // The first Claw fails its icontains, yet its rubric's score wins it max-score: graded anyway.
    name: 'max-score: weights per type, and the judge graded even once a test fails',
    outputs: ['Dear friend.', 'Hello there, welcome!'],
    assert: [
      { type: 'icontains', value: 'welcome' },
      { type: 'llm-rubric', value: 'is warm' },
      { type: 'max-score', value: { weights: { 'llm-rubric': 3 } } },
    ],
    scores: { 'Dear friend.': 1, 'Hello there, welcome!': 0.2 },
  },
  {
    name: 'max-score: sum',
    outputs: ['Hello, friend.', 'Hello!'],
    assert: [
      { type: 'icontains', value: 'hello' },
      { type: 'icontains', value: 'friend' },
      { type: 'max-score', value: { method: 'sum' } },
    ],
  },
  {
    name: 'max-score: the highest below the threshold',
    outputs: ['Hello!', 'Bye.'],
    assert: [
      { type: 'icontains', value: 'hello' },
      { type: 'icontains', value: 'friend' },
      { type: 'max-score', value: { threshold: 0.75 } },
    ],
  },
  {
    name: 'select-best and max-score together',
    outputs: ['Hello, friend.', 'Hello!'],
    assert: [SELECT, { type: 'icontains', value: 'friend' }, { type: 'max-score' }],
    choice: '1',
  },
];
