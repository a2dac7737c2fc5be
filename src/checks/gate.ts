// Running the checks against deployed Claws: each check `repeat` times until its verdict is certain,
// each attempt under its own `timeout`. A Claw's checks run one at a time (its conversations never
// interleave); different Claws run at once, at most CONCURRENCY; every message and task poll goes
// through the one transport and its pacer. Failures (an assertion did not hold) are told apart from
// errors (no reply could be judged).
import { ApiError } from '../api/errors.js';
import type { Logger } from '../clock.js';
import type { RunContext } from '../context.js';
import { CancelledError, errorMessage } from '../errors.js';
import { clip, formatDuration } from '../format.js';
import { askClaw } from '../health/chat.js';
import { CONCURRENCY, mapWithConcurrency } from '../health/health.js';
import type { Classifier } from '../status.js';
import { describeAssertion, holds } from './assertions.js';
import type { Check, CheckSuite } from './suite.js';

/** The longest stretch of a reply kept for the report. */
export const REPLY_EXCERPT_CHARS = 200;

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
}

export interface ChecksResult {
  passed: boolean;
  entries: CheckEntry[];
}

/** What runs the checks for some Claws: built once by main.ts from the checks file. */
export type ChecksRunner = (clawIds: string[]) => Promise<ChecksResult>;

type Attempt =
  | { kind: 'pass'; latencyMs: number }
  | { kind: 'failure'; latencyMs: number; detail: string }
  | { kind: 'error'; detail: string };

export interface GateOptions {
  pollIntervalMs: number;
  classify: Classifier;
}

/** Runs the suite's checks for each Claw they apply to; the log gets one group per Claw. */
export async function runChecks(
  deps: RunContext,
  suite: CheckSuite,
  clawIds: string[],
  options: GateOptions,
): Promise<ChecksResult> {
  const perClaw = await mapWithConcurrency(clawIds, CONCURRENCY, async (clawId) => {
    const checks = suite.checks.filter((c) => !c.claws || c.claws.includes(clawId));
    // Claws run at once, but a log group cannot interleave: each Claw's lines go out together.
    const lines = new BufferedLog(deps.log);
    const entries: CheckEntry[] = [];
    for (const check of checks) entries.push(await runCheck({ ...deps, log: lines }, clawId, check, options));
    const passed = entries.filter((e) => e.passed).length;
    deps.log.startGroup?.(`Checks of Claw ${clawId}: ${passed} of ${entries.length} passed`);
    lines.flushTo(deps.log);
    deps.log.endGroup?.();
    return entries;
  });
  const entries = perClaw.flat();
  return { passed: entries.every((e) => e.passed), entries };
}

async function runCheck(deps: RunContext, clawId: string, check: Check, options: GateOptions): Promise<CheckEntry> {
  const entry: CheckEntry = {
    check: check.name,
    clawId,
    passed: false,
    passes: 0,
    attempts: 0,
    repeat: check.repeat,
    minPass: check.minPass,
    failures: 0,
    errors: 0,
  };
  const latencies: number[] = [];
  for (;;) {
    // Stop as soon as the verdict is certain, either way.
    if (entry.passes >= check.minPass) break;
    if (entry.passes + (check.repeat - entry.attempts) < check.minPass) break;
    const attempt = await runAttempt(deps, clawId, check, options);
    entry.attempts += 1;
    const label = `${check.name}, attempt ${entry.attempts} of ${check.repeat}`;
    if (attempt.kind === 'pass') {
      entry.passes += 1;
      latencies.push(attempt.latencyMs);
      deps.log.info(`✅ ${label}: passed in ${formatDuration(attempt.latencyMs)}`);
    } else if (attempt.kind === 'failure') {
      entry.failures += 1;
      latencies.push(attempt.latencyMs);
      entry.failure ??= attempt.detail;
      deps.log.info(`❌ ${label}: failed: ${attempt.detail}`);
    } else {
      entry.errors += 1;
      entry.failure ??= `error: ${attempt.detail}`;
      deps.log.info(`⚠️ ${label}: error: ${attempt.detail}`);
    }
  }
  entry.passed = entry.passes >= check.minPass;
  if (entry.passed) entry.failure = undefined;
  if (latencies.length)
    entry.latencyMs = Math.round([...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)]);
  return entry;
}

/** One attempt: every turn in order, each after the previous reply, under the check's own timeout. */
async function runAttempt(deps: RunContext, clawId: string, check: Check, options: GateOptions): Promise<Attempt> {
  const { clock } = deps;
  const began = clock.now();
  const deadline = began + check.timeoutMs;
  for (const [index, turn] of check.turns.entries()) {
    const turnLabel = check.turns.length > 1 ? `turn ${index + 1}: ` : '';
    const sent = clock.now();
    let answer;
    try {
      answer = await askClaw(deps, { clawId, message: turn.send, deadline, ...options });
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      if (err instanceof ApiError && err.kind === 'deadline') {
        return {
          kind: 'error',
          detail: `${turnLabel}no reply within ${formatDuration(check.timeoutMs)} (${err.message})`,
        };
      }
      if (!(err instanceof ApiError)) throw err;
      return { kind: 'error', detail: `${turnLabel}${errorMessage(err)}` };
    }
    if ('problem' in answer) return { kind: 'error', detail: `${turnLabel}${answer.problem}` };
    const latencyMs = clock.now() - sent;
    const failed = turn.assert.find((a) => !holds(a, answer.reply, latencyMs));
    if (failed) {
      const measured = failed.type === 'latency' ? ` (took ${latencyMs}ms)` : '';
      return {
        kind: 'failure',
        latencyMs: clock.now() - began,
        detail: `${turnLabel}${describeAssertion(failed)} did not hold${measured}; reply: ${JSON.stringify(clip(answer.reply.trim(), REPLY_EXCERPT_CHARS))}`,
      };
    }
  }
  return { kind: 'pass', latencyMs: clock.now() - began };
}

/** A logger that keeps info and warning lines until they can go out as one group. */
class BufferedLog implements Logger {
  private readonly lines: { warning: boolean; text: string }[] = [];
  constructor(private readonly base: Logger) {}
  info = (text: string): void => void this.lines.push({ warning: false, text });
  warning = (text: string): void => void this.lines.push({ warning: true, text });
  debug = (text: string): void => this.base.debug(text);
  flushTo(log: Logger): void {
    for (const line of this.lines) (line.warning ? log.warning : log.info)(line.text);
  }
}

/** One line naming the checks that did not pass and why, for a step's message. */
export function describeFailedChecks(result: ChecksResult): string {
  const failed = result.entries.filter((e) => !e.passed);
  return failed
    .map(
      (e) =>
        `${JSON.stringify(e.check)} on ${e.clawId} (${e.passes} of ${e.attempts} passed; ${e.failure ?? 'no attempt'})`,
    )
    .join('; ');
}
