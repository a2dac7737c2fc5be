// What a deployment's settling decides, apart from doing it: from what the wait, the checks and
// the comparison found, the outcome, whether to roll back, and the step's message. Pure, so every
// case is one row of a table test; the executor (`settle` in deploy.ts) waits, runs the checks,
// rolls back and reports what this returns.
import type { Words } from '../shared/words.js';
import { formatDuration } from '../shared/format.js';
import type { RollbackTrigger } from '../shared/status.js';
import { type ChecksResult, describeFailedChecks } from '../checks/result.js';
import { type ComparisonFailOn, type Compared, describeComparison, gateFails } from '../checks/comparison.js';
import type { Waited } from './conflict.js';
import type { RollbackResult } from './rollback.js';
import type { WaitOutcome } from './wait.js';

/** How a settling ends: a final status, the deadline, a cancel, or a break (`error`). */
export type SettledOutcome = WaitOutcome | 'cancelled' | 'error';

/** The rules a settling reads: the policy's rollback part. */
export interface RollbackRules {
  autoRollback: boolean;
  rollbackOn: RollbackTrigger[];
}

/** The failure path's trigger: an error takes it when the rollback rules cover failures. */
export function rollsBack(policy: RollbackRules, outcome: string): boolean {
  const on = policy.rollbackOn as string[];
  return policy.autoRollback && (on.includes(outcome) || (outcome === 'error' && on.includes('failed')));
}

/** What is known once the wait and the checks are over (or broke). */
export interface Known {
  command: 'deploy' | 'wait' | 'rollback';
  deploymentId: string;
  clawId?: string;
  /** The last status seen. */
  status?: string;
  /** Undefined for a deployment found already final whose duration the service does not tell. */
  durationMs?: number;
  /** How the wait ended, or `cancelled`/`error` when the run broke before the checks were judged. */
  outcome: SettledOutcome;
  /** Why the wait ended, when the status alone does not say (the deadline, unreadable answers). */
  note?: string;
  /** What broke, in one line, for outcome `error`. */
  failure?: string;
  /** The checks run after the deployment succeeded. */
  checks?: ChecksResult;
  /** `baseline: before`: the comparison of the checks with the ones before, and what fails it. */
  gate?: { failOn: ComparisonFailOn; comparison: Compared };
  /** Another deployment of the Claw it waited for before the trigger went through. */
  waited?: Waited;
  words: Words;
}

export interface Decision {
  outcome: SettledOutcome;
  /** Roll back, and whether to follow the rollback (not on a cancel: the runner's grace is short). */
  rollBack?: { wait: boolean };
  /** The step's message, less the rollback's own sentence (`withRollback` adds it once it is done). */
  message: string;
}

/** The outcome once the checks are judged: a deployment that succeeded must still behave. */
function judged(known: Known): SettledOutcome {
  const { outcome, checks, gate } = known;
  if (outcome !== 'succeeded' || !checks) return outcome;
  if (checks.cancelled) return 'cancelled';
  if (gate) return gateFails(gate.failOn, checks.passed, gate.comparison) ? 'failed' : 'succeeded';
  return checks.passed ? 'succeeded' : 'failed';
}

/** One sentence per outcome; `triggered` never settles. */
function describeOutcome(known: Known, outcome: SettledOutcome): string {
  const { status, checks, gate, note, failure, command } = known;
  const comparison = gate?.comparison;
  const what = `Deployment ${known.deploymentId}${known.clawId ? ` of Claw ${known.clawId}` : ''}`;
  const whatInside = `${what.charAt(0).toLowerCase()}${what.slice(1)}`;
  const quoted = status ? ` "${status}"` : '';
  const lastStatus = status ? ` (last status "${status}")` : '';
  const after =
    known.durationMs === undefined
      ? 'a time the service does not tell (it had finished before this wait began)'
      : formatDuration(known.durationMs);
  const succeeded = `${what} succeeded with status${quoted} after ${after}`;
  return {
    succeeded: `${succeeded}${comparison ? `; compared with before it: ${describeComparison(comparison)}` : checks ? `, and its ${checks.entries.length} check(s) passed` : ''}.`,
    failed:
      comparison && gate.failOn !== 'failure'
        ? `${succeeded}, but it behaves worse than before it (${known.words.input('fail-on')} ${gate.failOn}): ${describeComparison(comparison)}.`
        : checks && !checks.passed
          ? `${succeeded}, but its checks did not pass: ${describeFailedChecks(checks)}.`
          : `${what} failed with status${quoted} after ${after}.`,
    paused: `${what} is paused with status${quoted} after ${after}: it needs a human.`,
    'timed-out': `${what} timed out: ${(note ?? 'no final status in time').replace(/\.$/, '')}${status ? `; last status "${status}"` : ''}.`,
    cancelled: checks?.cancelled
      ? `The run was cancelled during the checks of ${whatInside} (status${quoted}): ${checks.entries.filter((e) => e.passed).length} of ${checks.entries.length} check(s) had passed.`
      : `The run was cancelled while waiting for ${whatInside}${lastStatus}.`,
    error: `${command === 'deploy' ? `${what} was triggered, then the deploy stopped` : `The ${command} of ${whatInside} stopped`}: ${(failure ?? 'an unexpected error').replace(/\.$/, '')}${lastStatus}.`,
  }[outcome];
}

/** What to do once the wait and the checks are over: the outcome, the rollback, the message. */
export function decideSettling(known: Known, rules: RollbackRules): Decision {
  const outcome = judged(known);
  let message = describeOutcome(known, outcome);
  if (known.waited) {
    const ids = known.waited.deploymentIds.map((id) => `deployment ${id}`).join(' and ');
    message += ` It first waited ${formatDuration(known.waited.ms)} for ${ids}, which was in the way.`;
  }
  if (rollsBack(rules, outcome)) return { outcome, rollBack: { wait: outcome !== 'cancelled' }, message };
  if (outcome === 'error' && rules.autoRollback) {
    message += " It was not rolled back: 'rollback-on' does not hold failed.";
  }
  return { outcome, message };
}

/** The message with the rollback's sentence: done, only requested, or failed too. */
export function withRollback(message: string, rollback: RollbackResult): string {
  return (
    message +
    (rollback.succeeded
      ? ` It was rolled back (${rollback.message}).`
      : rollback.outcome === 'requested'
        ? ` A rollback was requested (${rollback.message}).`
        : ` Rolling it back failed too: ${rollback.message}.`)
  );
}
