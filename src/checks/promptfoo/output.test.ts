// The checks-output file holds promptfoo's output format (results version 3, as `promptfoo eval -o`
// writes and `promptfoo import` reads): its shape, each Claw a provider column, scores and
// component results as promptfoo lays them out, and the run's secrets redacted in every spelling.
/* eslint-disable @typescript-eslint/no-explicit-any -- the file is JSON read back, checked field by field */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../api/redact.js';
import type { CheckEntry, ChecksResult } from '../result.js';
import { scoreTurn } from '../scoring.js';
import { runScript } from '../script.js';
import { parseChecks } from '../load.js';
import { toPromptfooOutput, writePromptfooOutput } from './output.js';

const SUITE = parseChecks(
  'promptfooconfig.yaml',
  `description: capitals
prompts: ['Answer: {{question}}']
tests:
  - description: peru
    vars: {question: What is the capital of Peru?}
    threshold: 0.5
    assert:
      - {type: contains, value: Lima}
      - type: assert-set
        threshold: 0.5
        metric: setm
        assert: [{type: contains, value: know}, {type: contains, value: xyz}]
  - description: down
    vars: {question: Hello?}
`,
);

async function entry(
  clawId: string,
  check: number,
  reply: string | undefined,
  passed: boolean,
  error?: string,
): Promise<CheckEntry> {
  const c = SUITE.checks[check];
  const outcome =
    reply === undefined
      ? undefined
      : await scoreTurn(c.turns[0], reply, 12, {
          grade: async () => ({ kind: 'error', reason: '' }),
          runScript,
          remainingMs: () => 1000,
          context: {},
        });
  return {
    check: c.name,
    clawId,
    passed,
    passes: passed ? 1 : 0,
    attempts: 1,
    repeat: 1,
    minPass: 1,
    failures: !passed && !error ? 1 : 0,
    errors: error ? 1 : 0,
    latencyMs: 12,
    failure: passed ? undefined : (error ?? 'the weighted score 0.25 is below the threshold 0.5'),
    replies: reply === undefined ? [] : [reply],
    last: { sent: [c.turns[0].send], reply, latencyMs: 12, grading: outcome?.grading, error },
  };
}

describe('the promptfoo output file', () => {
  it("has promptfoo's shape: each Claw a provider column, scores and component results as promptfoo lays them out", async () => {
    const result: ChecksResult = {
      passed: false,
      entries: [
        await entry('prod', 0, 'I do not know', false),
        await entry('prod', 1, 'Hi!', true),
        await entry('preview', 0, 'Lima.', true),
        await entry('preview', 1, undefined, false, "the Claw's chat is failing: 503"),
      ],
    };
    const out = toPromptfooOutput(result, SUITE, new Date('2026-01-02T03:04:05.678Z')) as Record<string, any>;
    expect(out.evalId).toMatch(/^eval-[0-9a-f]{3}-2026-01-02T03:04:05$/);
    expect(Object.keys(out)).toEqual(['evalId', 'results', 'config', 'shareableUrl', 'metadata', 'vars']);
    expect(out.results).toMatchObject({
      version: 3,
      timestamp: '2026-01-02T03:04:05.678Z',
      stats: { successes: 2, failures: 1, errors: 1 },
    });
    expect(out.results.prompts.map((p: any) => [p.provider, p.raw, p.label])).toEqual([
      ['claw:prod', 'Answer: {{question}}', 'Answer: {{question}}'],
      ['claw:preview', 'Answer: {{question}}', 'Answer: {{question}}'],
    ]);
    expect(out.results.prompts[0].metrics).toMatchObject({
      score: 1.25,
      testPassCount: 1,
      testFailCount: 1,
      testErrorCount: 0,
      assertPassCount: 2,
      assertFailCount: 2,
      namedScores: { setm: 0.5 },
      namedScoresCount: { setm: 1 },
    });
    const [peru, hello, , down] = out.results.results;
    for (const r of out.results.results) {
      expect(r).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          promptIdx: expect.any(Number),
          testIdx: expect.any(Number),
          promptId: expect.stringMatching(/^[0-9a-f]{64}$/),
          provider: { id: expect.stringMatching(/^claw:/), label: expect.any(String) },
          prompt: { raw: expect.any(String), label: 'Answer: {{question}}', config: {} },
          testCase: expect.objectContaining({ vars: expect.any(Object), assert: expect.any(Array) }),
          vars: expect.any(Object),
          success: expect.any(Boolean),
          score: expect.any(Number),
          failureReason: expect.any(Number),
          namedScores: expect.any(Object),
          latencyMs: 12,
        }),
      );
    }
    // promptfoo's own numbers for this test (its docs' example, run in promptfoo): 0.25, the set 0.5.
    expect(peru).toMatchObject({
      promptIdx: 0,
      testIdx: 0,
      success: false,
      failureReason: 1,
      score: 0.25,
      error: 'the weighted score 0.25 is below the threshold 0.5',
      prompt: { raw: 'Answer: What is the capital of Peru?' },
      response: { output: 'I do not know', latencyMs: 12 },
      gradingResult: {
        pass: false,
        score: 0.25,
        reason: 'Aggregate score 0.25 < 0.5 threshold',
        namedScores: { setm: 0.5 },
      },
    });
    expect(peru.gradingResult.componentResults.map((c: any) => [c.assertion.type, c.pass, c.score])).toEqual([
      ['contains', false, 0],
      ['assert-set', true, 0.5],
      ['contains', true, 1],
      ['contains', false, 0],
    ]);
    expect(hello).toMatchObject({
      success: true,
      failureReason: 0,
      score: 1,
      gradingResult: { reason: 'No assertions' },
    });
    expect(down).toMatchObject({
      promptIdx: 1,
      testIdx: 1,
      success: false,
      failureReason: 2,
      score: 0,
      gradingResult: null,
    });
    expect(down.response).toBeUndefined();
  });

  it("passes the whole file through the run's redactor: a key in a reply, raw or JSON-escaped, never lands", async () => {
    const key = 'ams/Key+0123456789"x';
    const result: ChecksResult = {
      passed: true,
      entries: [await entry('prod', 1, `leaked ${key} and ${JSON.stringify(key)}`, true)],
    };
    const dir = mkdtempSync(join(tmpdir(), 'claw-output-'));
    await writePromptfooOutput('reports/results.json', dir, result, SUITE, new Redactor([key]));
    const text = readFileSync(join(dir, 'reports', 'results.json'), 'utf8');
    expect(JSON.parse(text).results.results[0].response.output).toContain('leaked ');
    expect(text).not.toContain('0123456789');
  });
});
