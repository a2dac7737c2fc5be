// The answers side by side: for each question a comparison finds worse (or, asked, for every
// question), a reply of the baseline beside a reply of the candidate, a failing one where there is
// one, with the assertion that failed. Replies are a Claw's words, untrusted: cut here to a stated
// length; each report escapes them for its medium (Markdown, the terminal, promptfoo's file).
import type { MetricResult } from '../compare/index.js';
import { clip } from '../shared/format.js';
import { type CheckEntry, attemptLabel, failingReply, failureText } from './result.js';

/** The most of a reply shown beside the other (characters); the checks output keeps more. */
export const ANSWER_CHARS = 300;

/** `show-answers`: the questions found worse (the default), or every question. */
export type ShowAnswers = 'worse' | 'all';
export const SHOW_ANSWERS: readonly ShowAnswers[] = ['worse', 'all'];

/** One side's answer to a question: the reply shown, which attempt it is, and what failed. */
export interface Answer {
  label: string;
  /** Cut to ANSWER_CHARS; absent when the side kept no reply (a saved run's file without one, an error). */
  reply?: string;
  /** "attempt 2 of 3" for a failing attempt, "the last attempt" for a passing one. */
  attempt?: string;
  /** The assertion that failed (or the error), with the failing attempt. */
  failure?: string;
}

export interface AnswerPair {
  check: string;
  /** Why it is shown: a metric regressed, the pass rate fell, or every question was asked for. */
  why: string;
  baseline: Answer;
  candidate: Answer;
}

/** A side's answer: its failing attempt's reply when one failed, else its last reply. */
function answerOf(label: string, e: CheckEntry | undefined): Answer {
  if (!e) return { label };
  const failing = failingReply(e);
  const reply = failing ?? (e.passed || !e.failedAttempt ? e.replies.at(-1) : undefined);
  const failure = e.passed ? undefined : failureText(e) || undefined;
  return {
    label,
    ...(reply === undefined ? {} : { reply: clip(reply, ANSWER_CHARS) }),
    ...(failing !== undefined
      ? { attempt: attemptLabel(e) || 'the failing attempt' }
      : reply !== undefined
        ? { attempt: 'the last attempt' }
        : {}),
    ...(failure ? { failure } : {}),
  };
}

const rate = (e: CheckEntry | undefined): number | undefined =>
  e && e.attempts > 0 ? e.passes / e.attempts : undefined;

/** Why a question counts as worse, or undefined: a metric of it regressed, or its pass rate fell. */
function worseBecause(
  check: string,
  metrics: MetricResult[],
  before?: CheckEntry,
  after?: CheckEntry,
): string | undefined {
  const regressed = metrics.filter((m) => m.check === check && m.verdict === 'regressed').map((m) => m.metric);
  if (regressed.length) return `${regressed.join(', ')} regressed`;
  const [b, a] = [rate(before), rate(after)];
  if (b !== undefined && a !== undefined && a < b)
    return `passed ${after!.passes} of ${after!.attempts}, ${before!.passes} of ${before!.attempts} before`;
  return undefined;
}

/** The pairs to show, in the checks' order: the worse questions, or every one with `all`. */
export function answersOf(
  metrics: MetricResult[],
  baseline: { label: string; entries: CheckEntry[] },
  candidate: { label: string; entries: CheckEntry[] },
  show: ShowAnswers = 'worse',
): AnswerPair[] {
  const before = new Map(baseline.entries.map((e) => [e.check, e]));
  const pairs: AnswerPair[] = [];
  for (const after of candidate.entries) {
    const b = before.get(after.check);
    const worse = worseBecause(after.check, metrics, b, after);
    if (!worse && show !== 'all') continue;
    pairs.push({
      check: after.check,
      why: worse ?? 'every question asked for',
      baseline: answerOf(baseline.label, b),
      candidate: answerOf(candidate.label, after),
    });
  }
  return pairs;
}
