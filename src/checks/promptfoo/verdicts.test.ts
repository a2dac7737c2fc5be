// The same verdicts as promptfoo: every shared case (test/promptfoo/cases.ts), read as a promptfoo
// config by this project's reader and scored by its gate's scoring, against promptfoo's own verdict
// (verdicts.json, recorded by promptfoo itself; the opt-in test checks it is still promptfoo's).
// A case marked `differs` is a deliberate difference, listed in docs/checks.md.
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CASES, graderAnswer, moderationFlags } from '../../../test/promptfoo/cases.ts';
import { letterVector } from '../../../test/sim/judge.ts';
import verdicts from '../../../test/promptfoo/verdicts.json' with { type: 'json' };
import { type GradedAssertion, type RecipeAssertion, isRecipe } from '../assertions.js';
import { runRecipe } from './graders.js';
import { interpretAnswer } from '../judge.js';
import { scoreTurn } from '../scoring.js';
import { runScript } from '../script.js';
import { parseChecks } from '../load.js';

const round = (n: number): number => Math.round(n * 10_000) / 10_000;

/** The cases as one promptfoo config: the reply is the var `out`, the grader a stand-in. */
const CONFIG = stringify({
  prompts: ['{{out}}'],
  defaultTest: {
    options: {
      provider: Object.fromEntries(
        ['chat', 'embedding', 'moderation'].map((kind) => [
          kind === 'chat' ? 'text' : kind,
          { id: `openai:${kind}:stand-in`, config: { apiBaseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' } },
        ]),
      ),
    },
  },
  tests: CASES.map((c) => ({
    description: c.name,
    vars: { out: c.output, ...c.vars },
    assert: c.assert,
    ...(c.threshold === undefined ? {} : { threshold: c.threshold }),
    ...(c.transform || c.rubricPrompt
      ? {
          options: {
            ...(c.transform ? { transform: c.transform } : {}),
            ...(c.rubricPrompt ? { rubricPrompt: c.rubricPrompt } : {}),
          },
        }
      : {}),
  })),
});

async function ourVerdicts(): Promise<Record<string, { pass: boolean; score: number }>> {
  const suite = parseChecks('promptfooconfig.yaml', CONFIG);
  const out: Record<string, { pass: boolean; score: number }> = {};
  await Promise.all(
    suite.checks.map(async (check) => {
      const c = CASES.find((x) => x.name === check.name)!;
      const turn = check.turns[0];
      const outcome = await scoreTurn(turn, c.output, 5, {
        // The judge's answer is the case's script, read as the gate reads every answer.
        grade: async (a: GradedAssertion | RecipeAssertion, text: string) => {
          if (isRecipe(a)) {
            // promptfoo's recipe, its grader answering as the fake one promptfoo was given.
            const verdict = await runRecipe(
              a,
              { output: text, input: c.output, vars: check.origin!.vars },
              {
                ask: async (messages) => ({ text: graderAnswer(messages.map((m) => m.content).join('\n'), c.grader) }),
                embed: async (texts) => ({ vectors: texts.map(letterVector) }),
                moderate: async (reply) => ({ flags: moderationFlags(reply) }),
              },
            );
            if (verdict.kind === 'error') return { kind: 'error', reason: verdict.reason };
            const passed = a.negate ? verdict.kind === 'fail' : verdict.kind === 'pass';
            return { kind: 'verdict', passed, reason: verdict.reason, figures: '', score: verdict.score };
          }
          const verdict = interpretAnswer(a, { reason: '', ...c.grader });
          if (verdict.kind === 'error') return { kind: 'error', reason: verdict.reason };
          const passed = a.negate ? verdict.kind === 'fail' : verdict.kind === 'pass';
          return { kind: 'verdict', passed, reason: verdict.reason, figures: '', score: verdict.score };
        },
        runScript,
        remainingMs: () => 10_000,
        context: { vars: check.origin!.vars, prompt: c.output },
      });
      out[check.name] = outcome.grading
        ? { pass: outcome.kind === 'pass', score: round(outcome.grading.score) }
        : { pass: false, score: 0 };
    }),
  );
  return out;
}

describe('verdicts, beside promptfoo', () => {
  it('agrees with promptfoo on every shared case but the deliberate differences', async () => {
    const ours = await ourVerdicts();
    const theirs = verdicts as Record<string, { pass: boolean; score: number }>;
    const disagree = CASES.filter(
      (c) => ours[c.name]?.pass !== theirs[c.name]?.pass || ours[c.name]?.score !== theirs[c.name]?.score,
    );
    expect(Object.keys(theirs)).toHaveLength(CASES.length);
    expect(
      disagree.map((c) => ({ name: c.name, ours: ours[c.name], promptfoo: theirs[c.name], differs: c.differs })),
    ).toEqual(
      CASES.filter((c) => c.differs).map((c) => ({
        name: c.name,
        ours: ours[c.name],
        promptfoo: theirs[c.name],
        differs: c.differs,
      })),
    );
    console.log(
      `${CASES.length} cases; ${CASES.length - disagree.length} agree with promptfoo; ${disagree.length} differ on purpose`,
    );
  }, 120_000);
});
