import { describe, expect, it } from 'vitest';
import type { MetricResult } from '../compare/index.js';
import { ANSWER_CHARS, answersOf } from './answers.js';
import type { CheckEntry } from './result.js';

const entry = (check: string, over: Partial<CheckEntry>): CheckEntry => ({
  check,
  clawId: 'c',
  passed: true,
  passes: 3,
  attempts: 3,
  repeat: 3,
  minPass: 3,
  failures: 0,
  errors: 0,
  replies: [],
  ...over,
});

const metric = (check: string, verdict: MetricResult['verdict']): MetricResult =>
  ({ check, metric: 'pass-rate', verdict }) as MetricResult;

describe('the answers side by side', () => {
  const before = [entry('q1', { replies: ['PASS: q1'] }), entry('q2', { replies: ['PASS: q2'] })];
  // q2's second attempt failed; its third passed, and its reply is the last one kept.
  const after = [
    entry('q1', { replies: ['PASS: q1'] }),
    entry('q2', {
      passed: false,
      passes: 2,
      failures: 1,
      failure: 'starts-with "PASS:" did not hold',
      replies: ['PASS: q2', 'FAIL: q2', 'PASS: q2 (third)'],
      failedAttempt: { attempt: 2, reply: 'FAIL: q2' },
    }),
  ];

  it("shows the worse question with the failing attempt's reply, never the passing one after it", () => {
    const pairs = answersOf([], { label: 'prod', entries: before }, { label: 'next', entries: after });
    expect(pairs).toEqual([
      {
        check: 'q2',
        why: 'passed 2 of 3, 3 of 3 before',
        baseline: { label: 'prod', reply: 'PASS: q2', attempt: 'the last attempt' },
        candidate: {
          label: 'next',
          reply: 'FAIL: q2',
          attempt: 'attempt 2 of 3',
          failure: 'attempt 2 of 3: starts-with "PASS:" did not hold',
        },
      },
    ]);
  });

  it('names a regressed metric, shows every question on request, and cuts replies to the stated length', () => {
    const long = [entry('q1', { replies: ['x'.repeat(ANSWER_CHARS + 50)] })];
    const regressed = answersOf(
      [metric('q1', 'regressed')],
      { label: 'a', entries: long },
      { label: 'b', entries: long },
    );
    expect(regressed[0].why).toBe('pass-rate regressed');
    expect(regressed[0].baseline.reply).toBe(`${'x'.repeat(ANSWER_CHARS)}… (50 more characters)`);
    const all = answersOf([], { label: 'prod', entries: before }, { label: 'next', entries: after }, 'all');
    expect(all.map((p) => [p.check, p.why])).toEqual([
      ['q1', 'every question asked for'],
      ['q2', 'passed 2 of 3, 3 of 3 before'],
    ]);
  });

  it('a failed check without its failing reply shows none rather than a later passing one', () => {
    const noReply = [
      entry('q2', { passed: false, passes: 2, failures: 1, replies: ['PASS'], failedAttempt: { attempt: 1 } }),
    ];
    const [pair] = answersOf([], { label: 'a', entries: before }, { label: 'b', entries: noReply });
    expect(pair.candidate.reply).toBeUndefined();
  });
});
