// What the conversation checks found, as the commands that run them (deploy, fleet, health) see
// it: plain results and the runner's signature, apart from the gate that produces them, so the
// commands and the run context never depend on how checks are run.
import type { Grading } from './scoring.js';

/** What a judge did for one check on one Claw. */
export interface JudgeUse {
  /** Calls made to the judge, and verdicts taken from the cache instead. */
  calls: number;
  cacheHits: number;
  /** Tokens the judge reported using (prompt plus completion), when it reported them. */
  tokens: number;
  /** The model that answered, as the judge named it (and its system fingerprint, when sent). */
  model?: string;
  fingerprint?: string;
  /** The scores the judge gave (0 to 1), when it gave them: health keeps them over time. */
  scores?: number[];
}

/** One check on one Claw. */
export interface CheckEntry {
  check: string;
  clawId: string;
  passed: boolean;
  /** Attempts that passed, and how many were made (fewer than `repeat` once the verdict was certain). */
  passes: number;
  attempts: number;
  repeat: number;
  minPass: number;
  /** Attempts that failed an assertion, and attempts that could not be judged. */
  failures: number;
  errors: number;
  /** Median time of the attempts that got their replies. */
  latencyMs?: number;
  /** The first failing assertion and an excerpt of the reply, or the first error. */
  failure?: string;
  /**
   * The attempt `failure` tells of (the first that failed an assertion or could not be judged):
   * its number, and its reply when it got one. What a reader is shown under a failed check: never
   * a later attempt's reply, which may have passed.
   */
  failedAttempt?: FailedAttempt;
  /** The last reply of each attempt, in order (capped): what a reviewer reads beside another Claw's. */
  replies: string[];
  /** Present when the check has a model-graded assertion. */
  judge?: JudgeUse;
  /** The last attempt as it went: what the promptfoo output file shows. */
  last?: AttemptRecord;
  /** A comparison's run: every one of the `repeat` attempts, as the comparison counts them. */
  samples?: AttemptSample[];
}

/**
 * One attempt as a comparison counts it: passed, failed an assertion, or could not be judged (an
 * error, a timeout, a judge outage, an attempt never made); never a pass by default.
 */
export interface AttemptSample {
  outcome: 'pass' | 'fail' | 'unjudged';
  /** The Claw's time to reply over the turns, when it replied (the late end when only known to an interval). */
  latencyMs?: number;
  /** Present when the time is an interval (a task's, seen done by a poll): the reply came after this many ms. */
  latencyLowMs?: number;
  /** The judge's score (0 to 1) for the attempt's last graded assertion, when it gave one. */
  score?: number;
  /** Which judge gave the verdict: its model as the endpoint named it, and a hash of the grading prompt. */
  judge?: { model?: string; promptHash: string };
}

/** Which attempt a check's failure comes from, and what the Claw replied to it. */
export interface FailedAttempt {
  /** 1-based, of the check's `repeat`. */
  attempt: number;
  reply?: string;
  record?: AttemptRecord;
}

/** "attempt 2 of 3": which attempt a failure is, in the words every report uses ('' for a check made once). */
export function attemptLabel(e: Pick<CheckEntry, 'failedAttempt' | 'repeat'>): string {
  return e.failedAttempt && e.repeat > 1 ? `attempt ${e.failedAttempt.attempt} of ${e.repeat}` : '';
}

/** The failure as every report tells it: which attempt, then what did not hold (or the error). */
export function failureText(e: Pick<CheckEntry, 'failure' | 'failedAttempt' | 'repeat'>): string {
  if (e.failure === undefined) return '';
  const label = attemptLabel(e);
  return label ? `${label}: ${e.failure}` : e.failure;
}

/** The reply of the attempt that failed, when it got one: the reply shown under a failure. */
export function failingReply(e: CheckEntry): string | undefined {
  return e.passed ? undefined : e.failedAttempt?.reply;
}

/** One attempt of a check: the messages sent, the last reply, and how it was scored (or why not). */
export interface AttemptRecord {
  sent: string[];
  reply?: string;
  latencyMs?: number;
  /** The deciding turn's grading: pass, score, named scores and each assertion's result. */
  grading?: Grading;
  error?: string;
}

export interface ChecksResult {
  passed: boolean;
  entries: CheckEntry[];
  /** A cancel ended the checks: the entries are what was known then (the rest are errors saying so). */
  cancelled?: boolean;
}

/**
 * What runs the checks for some Claws: built once by the entry from the checks file. `deadline`:
 * an earlier end than the run's (health keeps the rest for GitHub).
 */
export type ChecksRunner = (clawIds: string[], deadline?: number, mode?: RunMode) => Promise<ChecksResult>;

/** `comparing`: every repeat of every check is made (no early stop) and each is kept as a sample; the judge is asked afresh. */
export interface RunMode {
  comparing?: boolean;
  /** A comparison's run in rounds (gate.ts): what the other side showed, and a look after each round. */
  rounds?: Rounds;
}

/**
 * A comparison's run asked round by round (one more repeat of the questions, every Claw of the run
 * together) rather than check by check. A question whose answers have not varied (on this side
 * and in `prior`, the other side's run) is asked fewer times; `look` after each round may stop the
 * run (the evidence is decisive).
 */
export interface Rounds {
  /** The other side's entries (the baseline run before the deployment), by check name. */
  prior?: CheckEntry[];
  /** After round `round` (1-based) of at most `rounds`: true stops the run. */
  look?: (round: number, rounds: number, entries: CheckEntry[]) => boolean;
}

/** Whether a check that did not pass failed an assertion (the Claw's fault) or could not be judged. */
export function verdictOf(e: CheckEntry): 'passed' | 'failed' | 'error' {
  if (e.passed) return 'passed';
  return e.failures > 0 ? 'failed' : 'error';
}

/** One line naming the checks that did not pass and why, for a step's message. */
export function describeFailedChecks(result: ChecksResult): string {
  const failed = result.entries.filter((e) => !e.passed);
  return failed
    .map(
      (e) =>
        `${JSON.stringify(e.check)} on ${e.clawId} (${e.passes} of ${e.attempts} passed; ${failureText(e) || 'no attempt'})`,
    )
    .join('; ');
}

/** The judge's work over all entries, for the summary and the log. */
export function judgeTotals(result: ChecksResult): JudgeUse | undefined {
  const uses = result.entries.map((e) => e.judge).filter((j): j is JudgeUse => j !== undefined);
  if (uses.length === 0) return undefined;
  return {
    calls: uses.reduce((n, j) => n + j.calls, 0),
    cacheHits: uses.reduce((n, j) => n + j.cacheHits, 0),
    tokens: uses.reduce((n, j) => n + j.tokens, 0),
    model: uses.find((j) => j.model)?.model,
    fingerprint: uses.find((j) => j.fingerprint)?.fingerprint,
  };
}
