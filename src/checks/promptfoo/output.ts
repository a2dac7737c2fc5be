// `checks-output`: the checks' results in promptfoo's output format (what `promptfoo eval -o
// out.json` writes, results version 3), so `promptfoo import` and `promptfoo view` show a gate's,
// a preview's or a health run beside the team's other evals. Each Claw is a provider: its column
// per prompt sits beside the other Claws' (a preview beside production). A native checks file is
// shown the same way, one test per check. The file holds Claws' replies, untrusted text: the
// viewer shows them as text, and the whole file passes through the run's redactor before it is
// written, as its final text.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeOutputFile } from '../../config/output-file.js';
import { type CheckEntry, type ChecksResult, failureText } from '../result.js';
import type { Component, Grading } from '../scoring.js';
import type { CheckSuite } from '../check.js';
import type { PromptfooPrompt } from './case.js';
import { derive } from './derived.js';
import type { AnswerPair } from '../answers.js';

/** The most of one reply kept in the file. */
const MAX_OUTPUT_CHARS = 20_000;

/** promptfoo's ResultFailureReason. */
const FAILURE = { none: 0, assert: 1, error: 2 } as const;

interface Column {
  clawId: string;
  promptIdx: number;
  prompt: PromptfooPrompt;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function tokenUsage(requests: number, judge = { calls: 0, tokens: 0 }): Record<string, unknown> {
  const details = {
    reasoning: 0,
    acceptedPrediction: 0,
    rejectedPrediction: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
  };
  return {
    prompt: 0,
    completion: 0,
    cached: 0,
    total: 0,
    numRequests: requests,
    completionDetails: details,
    assertions: {
      total: judge.tokens,
      prompt: 0,
      completion: 0,
      cached: 0,
      numRequests: judge.calls,
      completionDetails: details,
    },
  };
}

/** promptfoo flattens an assert-set's members after the set itself. */
function flatten(components: Component[]): Record<string, unknown>[] {
  return components.flatMap((c) => {
    const { components: inner, ...own } = c;
    if (!inner) return [own];
    const set = {
      ...own,
      componentResults: inner,
      metadata: { assertionSet: { ...c.assertion, assertionCount: inner.length } },
    };
    return [set, ...inner.map((i) => ({ ...i, assertion: i.assertion ?? c.assertion }))];
  });
}

/** Where a result sits: the columns (a Claw's prompt each) and the suite's checks by name. */
interface Layout {
  columns: Column[];
  checkIndex: Map<string, CheckSuite['checks'][number]>;
  indexOf: Map<string, number>;
  /** A comparison's answers side by side, by Claw and check: shown in the viewer's metadata. */
  answers: Map<string, AnswerPair>;
}

const answerKey = (clawId: string, check: string): string => `${clawId}\u0000${check}`;

/** promptfoo's gradingResult of one entry: the last attempt's grading, and the judge's tokens. */
function gradingResultOf(e: CheckEntry, grading: Grading | undefined) {
  if (!grading) return null;
  return {
    pass: grading.pass,
    score: grading.score,
    reason: grading.reason,
    namedScores: grading.namedScores,
    ...(Object.keys(grading.namedScoreWeights).length ? { namedScoreWeights: grading.namedScoreWeights } : {}),
    tokensUsed: {
      total: e.judge?.tokens ?? 0,
      prompt: 0,
      completion: 0,
      cached: 0,
      numRequests: e.judge?.calls ?? 0,
    },
    componentResults: flatten(grading.components),
  };
}

/** One check on one Claw as a promptfoo result (EvaluateResult). */
function resultOf(e: CheckEntry, layout: Layout) {
  const { columns } = layout;
  const check = layout.checkIndex.get(e.check);
  const origin = check?.origin;
  const column = columns.findIndex((c) => c.clawId === e.clawId && c.promptIdx === (origin?.promptIdx ?? 0));
  // A check that did not pass is shown by the attempt that failed, never by a later one that passed.
  const shown = (!e.passed && e.failedAttempt?.record) || e.last;
  const grading = shown?.grading;
  const failureReason = e.passed ? FAILURE.none : e.failures > 0 ? FAILURE.assert : FAILURE.error;
  const reply = shown?.reply;
  const answers = layout.answers.get(answerKey(e.clawId, e.check));
  return {
    id: randomUUID(),
    promptIdx: column,
    testIdx: origin?.testIdx ?? layout.indexOf.get(e.check) ?? 0,
    promptId: sha256(columns[column]?.prompt.label ?? ''),
    provider: { id: `claw:${e.clawId}`, label: e.clawId },
    prompt: {
      raw: (shown?.sent ?? check?.turns.map((t) => t.send) ?? []).join('\n---\n'),
      label: columns[column]?.prompt.label ?? '',
      config: {},
    },
    vars: origin?.vars ?? {},
    testCase: origin?.testCase ?? {
      description: e.check,
      vars: {},
      assert: (check?.turns ?? []).flatMap((t) => t.assert.map((a) => a.written ?? { type: a.type })),
      options: {},
      metadata: {},
    },
    ...(reply === undefined
      ? {}
      : { response: { output: reply.slice(0, MAX_OUTPUT_CHARS), latencyMs: shown?.latencyMs ?? 0 } }),
    ...(e.passed ? {} : { error: failureText(e) || 'did not pass' }),
    failureReason,
    success: e.passed,
    score: failureReason === FAILURE.error ? 0 : (grading?.score ?? (e.passed ? 1 : 0)),
    latencyMs: e.latencyMs ?? shown?.latencyMs ?? 0,
    gradingResult: gradingResultOf(e, grading),
    namedScores: grading?.namedScores ?? {},
    cost: 0,
    tokenUsage: tokenUsage(e.attempts, e.judge),
    metadata: {
      clawDeploy: {
        check: e.check,
        clawId: e.clawId,
        passes: e.passes,
        attempts: e.attempts,
        repeat: e.repeat,
        minPass: e.minPass,
        ...(e.failedAttempt ? { failedAttempt: e.failedAttempt.attempt } : {}),
        // A comparison's run: every attempt, so `compare --baseline-file` can compare with it later.
        ...(e.samples ? { samples: e.samples } : {}),
        // A comparison's answers side by side: the baseline's reply beside this one, and what failed.
        ...(answers ? { answers } : {}),
      },
    },
  };
}

type Result = ReturnType<typeof resultOf>;

/** One column (a Claw's prompt) as a promptfoo prompt, with its metrics over its results. */
function completedPrompt(column: Column, mine: Result[], suite: CheckSuite) {
  const named: Record<string, number> = {};
  const counts: Record<string, number> = {};
  const weights: Record<string, number> = {};
  for (const r of mine) {
    const w = (r.gradingResult?.namedScoreWeights ?? {}) as Record<string, number>;
    for (const [name, score] of Object.entries(r.namedScores)) {
      named[name] = (named[name] ?? 0) + score * (w[name] ?? 1);
      counts[name] = (counts[name] ?? 0) + 1;
      weights[name] = (weights[name] ?? 0) + (w[name] ?? 1);
    }
  }
  const asserts = mine.flatMap((r) => (r.gradingResult?.componentResults ?? []) as { pass?: boolean }[]);
  return {
    id: sha256(column.prompt.label),
    raw: column.prompt.raw,
    label: column.prompt.label,
    provider: `claw:${column.clawId}`,
    metrics: {
      score: mine.reduce((sum, r) => sum + r.score, 0),
      testPassCount: mine.filter((r) => r.success).length,
      testFailCount: mine.filter((r) => r.failureReason === FAILURE.assert).length,
      testErrorCount: mine.filter((r) => r.failureReason === FAILURE.error).length,
      assertPassCount: asserts.filter((a) => a.pass).length,
      assertFailCount: asserts.filter((a) => !a.pass).length,
      totalLatencyMs: mine.reduce((sum, r) => sum + r.latencyMs, 0),
      tokenUsage: tokenUsage(mine.length),
      namedScores: { ...named, ...derive(suite.promptfoo?.derivedMetrics ?? [], named, mine.length) },
      namedScoresCount: counts,
      ...(Object.keys(weights).length ? { namedScoreWeights: weights } : {}),
      cost: 0,
    },
  };
}

/** The output file's object, before redaction. */
export function toPromptfooOutput(
  result: ChecksResult,
  suite: CheckSuite,
  now = new Date(),
  comparisons: readonly { clawId: string; compared: { answers?: AnswerPair[] } }[] = [],
): Record<string, unknown> {
  const prompts: PromptfooPrompt[] = suite.promptfoo?.prompts ?? [
    { raw: `{{checks of ${suite.file}}}`, label: `Claw checks (${suite.file})` },
  ];
  const claws = [...new Set(result.entries.map((e) => e.clawId))];
  const columns: Column[] = claws.flatMap((clawId) =>
    prompts.map((prompt, promptIdx) => ({ clawId, promptIdx, prompt })),
  );
  const layout: Layout = {
    columns,
    checkIndex: new Map(suite.checks.map((c) => [c.name, c])),
    indexOf: new Map(suite.checks.map((c, i) => [c.name, i])),
    answers: new Map(
      comparisons.flatMap(({ clawId, compared }) =>
        (compared.answers ?? []).map((p) => [answerKey(clawId, p.check), p] as const),
      ),
    ),
  };
  const results = result.entries.map((e) => resultOf(e, layout));
  const completed = columns.map((column, index) =>
    completedPrompt(
      column,
      results.filter((r) => r.promptIdx === index),
      suite,
    ),
  );

  const timestamp = now.toISOString();
  const description = suite.promptfoo?.description ?? `Claw checks (${suite.file})`;
  const config = suite.promptfoo?.config ?? {
    description,
    prompts: prompts.map((p) => p.raw),
    providers: claws.map((c) => `claw:${c}`),
    tests: suite.checks.map((c) => ({ description: c.name })),
  };
  return {
    evalId: `eval-${randomBytes(2).toString('hex').slice(0, 3)}-${timestamp.slice(0, 19)}`,
    results: {
      version: 3,
      timestamp,
      prompts: completed,
      results,
      stats: {
        successes: results.filter((r) => r.success).length,
        failures: results.filter((r) => r.failureReason === FAILURE.assert).length,
        errors: results.filter((r) => r.failureReason === FAILURE.error).length,
        tokenUsage: tokenUsage(results.reduce((n, r) => n + (r.tokenUsage.numRequests as number), 0)),
      },
    },
    config: { ...config, description },
    shareableUrl: null,
    metadata: { exportedAt: timestamp, evaluationCreatedAt: timestamp, author: 'claw-deploy' },
    vars: [...new Set(results.flatMap((r) => Object.keys(r.vars)))],
  };
}

/**
 * Writes the output file at `path` (relative to `workspace`), creating missing folders. `redact`
 * is the run's redactor: the values first (decoded text), then the final JSON text.
 */
export async function writePromptfooOutput(
  path: string,
  workspace: string,
  result: ChecksResult,
  suite: CheckSuite,
  redact: { redactJson<T>(value: T): T; redact(text: string): string },
  comparisons?: Parameters<typeof toPromptfooOutput>[3],
): Promise<string> {
  return writeOutputFile(path, workspace, promptfooOutputText(result, suite, redact, comparisons));
}

/** The output file's text, redacted: its values first (decoded text), then the whole JSON text. */
export function promptfooOutputText(
  result: ChecksResult,
  suite: CheckSuite,
  redact: { redactJson<T>(value: T): T; redact(text: string): string },
  comparisons?: Parameters<typeof toPromptfooOutput>[3],
): string {
  const output = toPromptfooOutput(result, suite, undefined, comparisons);
  return redact.redact(`${JSON.stringify(redact.redactJson(output), null, 2)}\n`);
}
