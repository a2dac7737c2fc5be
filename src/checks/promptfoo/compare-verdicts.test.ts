// The same verdicts as promptfoo on select-best and max-score: every shared compare case
// (test/promptfoo/compare-cases.ts), read by this project's reader, each reply scored by the gate's
// scoring as one Claw's, then compared across the Claws (compare-claws.ts), against promptfoo's own
// verdict per provider (compare-verdicts.json, recorded by promptfoo 0.123.1 itself; the opt-in
// test checks it is still promptfoo's). A case marked `differs` is listed in docs/checks.md.
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { COMPARE_CASES, type CompareCase, compareGraderAnswer } from '../../../test/promptfoo/compare-cases.ts';
import verdicts from '../../../test/promptfoo/compare-verdicts.json' with { type: 'json' };
import type { GradedAssertion, RecipeAssertion } from '../assertions.js';
import { compareClaws } from '../compare-claws.js';
import { Judge, interpretAnswer } from '../judge.js';
import { parseChecks } from '../load.js';
import { type CheckEntry, verdictOf } from '../result.js';
import { scoreTurn } from '../scoring.js';
import { runScript } from '../script.js';

type Verdict = { pass: boolean; score: number; error: boolean };
const round = (n: number): number => Math.round(n * 10_000) / 10_000;

const config = (c: CompareCase): string =>
  stringify({
    prompts: ['Say something'],
    defaultTest: {
      options: {
        provider: { id: 'openai:chat:stand-in', config: { apiBaseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' } },
      },
    },
    tests: [{ description: c.name, assert: c.assert }],
  });

async function ourVerdicts(c: CompareCase): Promise<Record<string, Verdict>> {
  const suite = parseChecks('promptfooconfig.yaml', config(c));
  const [check] = suite.checks;
  const claws = c.outputs.map((_o, i) => String(i));
  const entries: CheckEntry[] = [];
  for (const [i, output] of c.outputs.entries()) {
    const outcome = await scoreTurn(check.turns[0], output, 5, {
      // The grader's answer for this reply, read as the gate reads every answer.
      grade: async (a: GradedAssertion | RecipeAssertion) => {
        const said = JSON.parse(compareGraderAnswer(output, c)) as Record<string, unknown>;
        const verdict = interpretAnswer(a as GradedAssertion, said);
        if (verdict.kind === 'error') return { kind: 'error', reason: verdict.reason };
        return { kind: 'verdict', passed: verdict.kind === 'pass', reason: '', figures: '', score: verdict.score };
      },
      runScript,
      remainingMs: () => 10_000,
      context: {},
    });
    const passed = outcome.kind === 'pass';
    entries.push({
      check: check.name,
      clawId: claws[i],
      passed,
      passes: passed ? 1 : 0,
      attempts: 1,
      repeat: 1,
      minPass: 1,
      failures: outcome.kind === 'failure' ? 1 : 0,
      errors: outcome.kind === 'error' ? 1 : 0,
      replies: [output],
      last: { sent: ['Say something'], reply: output, grading: outcome.grading },
    });
  }
  const judge = new Judge({
    identity: 'fake',
    ask: async (messages) => ({ text: compareGraderAnswer(messages.map((m) => m.content).join('\n'), c) }),
  });
  await compareClaws(suite, entries, [claws], {
    judgeFor: () => judge,
    deadline: Date.now() + 10_000,
    log: { info: () => {} },
  });
  return Object.fromEntries(
    entries.map((e) => [
      `${c.name} · ${e.clawId}`,
      { pass: e.passed, score: round(e.last?.grading?.score ?? 0), error: verdictOf(e) === 'error' },
    ]),
  );
}

describe('select-best and max-score verdicts, beside promptfoo', () => {
  it('agree with promptfoo on every shared case but the deliberate differences', async () => {
    const theirs = verdicts as Record<string, Verdict>;
    const disagree: string[] = [];
    let agree = 0;
    for (const c of COMPARE_CASES) {
      const ours = await ourVerdicts(c);
      const same = c.outputs.every(
        (_o, i) => JSON.stringify(ours[`${c.name} · ${i}`]) === JSON.stringify(theirs[`${c.name} · ${i}`]),
      );
      if (same) agree += 1;
      else disagree.push(c.name);
      if (!same && !c.differs)
        expect({ case: c.name, ours }).toEqual({
          case: c.name,
          ours: Object.fromEntries(c.outputs.map((_o, i) => [`${c.name} · ${i}`, theirs[`${c.name} · ${i}`]])),
        });
    }
    expect(Object.keys(theirs)).toHaveLength(COMPARE_CASES.reduce((n, c) => n + c.outputs.length, 0));
    expect(disagree).toEqual(COMPARE_CASES.filter((c) => c.differs).map((c) => c.name));
    console.log(
      `${COMPARE_CASES.length} compare cases; ${agree} agree with promptfoo; ${disagree.length} differ on purpose`,
    );
  });
});
