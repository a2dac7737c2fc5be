// Running the checks against deployed Claws: each check `repeat` times until its verdict is certain,
// each attempt under its own `timeout`, all of them under the step's: at its deadline the checks
// not yet run are errors that say so. A Claw's checks run one at a time (its conversations never
// interleave); different Claws run at once, at most CONCURRENCY; every message and task poll goes
// through the one transport and its pacer. Failures (an assertion did not hold) are told apart from
// errors (no reply could be judged, or the judge could not answer). A Claw whose chat keeps failing
// costs one attempt's timeout, not one per check: its other checks are errors at once. The log
// gets a line per check as it ends, and a cancel returns what is known, so it can be reported.
import { ApiError } from '../api/errors.js';
import { CONCURRENCY, mapWithConcurrency } from '../shared/concurrency.js';
import type { RunContext } from '../api/context.js';
import { askClaw } from '../conversation/ask.js';
import { type ReplyInterval, ReplyTimes, intervalMedian } from '../conversation/reply-times.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { noCheckFor } from './claws-filter.js';
import { clip, counted, formatDuration } from '../shared/format.js';
import type { Classifier } from '../shared/status.js';
import type { GradedAssertion, RecipeAssertion } from './assertions.js';
import type { Exchange, Judge } from './judge.js';
import type { JudgeSpec } from './judge-spec.js';
import {
  type AttemptRecord,
  type CheckEntry,
  type ChecksResult,
  type JudgeUse,
  failureText,
  type Rounds,
  verdictOf,
} from './result.js';
import { type Grading, scoreTurn, usesJudge } from './scoring.js';
import { type ScriptRunner, runScript } from './script.js';
import type { Check, CheckSuite } from './check.js';
import { compareClaws } from './compare-claws.js';
import { gradingPromptHash, padSamples, sampleOf } from './samples.js';
import { informs } from './informs.js';

/** A check still running after this long says how far it is, and again as often. */
export const PROGRESS_EVERY_MS = 10_000;

/** From this many attempts a check's median reply time is estimated from its own intervals alone. */
const FEW_ATTEMPTS = 5;

/** The longest stretch of a reply kept for the report. */
export const REPLY_EXCERPT_CHARS = 200;
/** The longest reply kept whole for a side-by-side view. */
export const REPLY_KEPT_CHARS = 2000;

type Attempt = (
  | { kind: 'pass'; latencyMs: number; latencyLowMs: number; reply: string }
  | { kind: 'failure'; latencyMs: number; latencyLowMs: number; detail: string; reply: string }
  | { kind: 'error'; detail: string; reply?: string; chatFailing?: boolean }
) & { record?: AttemptRecord; judged?: Judged };

/** What the judge said during one attempt, for a comparison's sample. */
interface Judged {
  score?: number;
  model?: string;
  promptHash?: string;
}

export interface GateOptions {
  pollIntervalMs: number;
  classify: Classifier;
  /** The judge for a model-graded assertion's spec; built once per judge by the entry. */
  judgeFor?: (spec: JudgeSpec) => Judge;
  /** Runs a `javascript` assertion or a `transform` (a worker per call, by default). */
  runScript?: ScriptRunner;
  /** Which Claws compare for select-best and max-score (default: all of them, as one group). */
  groups?: string[][];
  /**
   * A comparison's run: every repeat of every check is made (no stop once the verdict is certain),
   * each kept as a sample, and the judge asked afresh (a cached verdict would count one answer n times).
   */
  comparing?: boolean;
  /**
   * Each Claw's reply times so far, kept across the run's checks (a baseline's and the deployment's
   * runs share them, so both sides are polled alike); one per gate run without it.
   */
  replyTimes?: Map<string, ReplyTimes>;
  /** A comparison's run asked in rounds (result.ts, `Rounds`); every repeat of every check without it. */
  rounds?: Rounds;
}

/**
 * Runs the suite's checks for each Claw they apply to, within the step's deadline. A Claw that no
 * check applies to gets one error naming the filter that left none. A cancel ends the checks in
 * flight as errors and returns what is known (`cancelled`), rather than throwing it away.
 */
export async function runChecks(
  deps: RunContext,
  suite: CheckSuite,
  clawIds: string[],
  options: GateOptions,
): Promise<ChecksResult> {
  const run = { cancelled: false };
  const entries = options.rounds
    ? await runInRounds(deps, suite, clawIds, options, options.rounds, run)
    : await runByCheck(deps, suite, clawIds, options, run);
  // promptfoo's select-best and max-score: once every Claw has answered, never on half a run.
  if (!run.cancelled && suite.checks.some((c) => c.compare?.length))
    await compareAll(deps, suite, clawIds, entries, options, run);
  return { passed: entries.every((e) => e.passed), entries, ...(run.cancelled ? { cancelled: true } : {}) };
}

/** Each Claw's checks one after the other, every attempt of a check before the next check. */
async function runByCheck(
  deps: RunContext,
  suite: CheckSuite,
  clawIds: string[],
  options: GateOptions,
  run: { cancelled: boolean },
): Promise<CheckEntry[]> {
  const perClaw = await mapWithConcurrency(clawIds, CONCURRENCY, async (clawId) => {
    const checks = suite.checks.filter((c) => !c.claws || c.claws.includes(clawId));
    if (checks.length === 0) {
      const entry = noChecks(suite, clawId);
      deps.log.info(checkLine(entry));
      return [entry];
    }
    const claw = new ClawConversation(deps, clawId, options, run);
    const entries: CheckEntry[] = [];
    for (const check of checks) {
      const entry = run.cancelled ? notRun(check, clawId, 'the run was cancelled') : await claw.run(check);
      deps.log.info(checkLine(entry));
      entries.push(entry);
    }
    return entries;
  });
  return perClaw.flat();
}

/**
 * A comparison's run in rounds: round r asks the r-th repeat of each question, on every Claw of
 * the run together (two sides checked at once alternate round by round, so the model's load or a
 * tool's outage falls on both alike). A question is asked again only while it informs (samples.ts,
 * `informs`); after each round but the last, `look` may stop the run.
 */
async function runInRounds(
  deps: RunContext,
  suite: CheckSuite,
  clawIds: string[],
  options: GateOptions,
  rounds: Rounds,
  run: { cancelled: boolean },
): Promise<CheckEntry[]> {
  const sides = clawIds.map((clawId) => {
    const checks = suite.checks.filter((c) => !c.claws || c.claws.includes(clawId));
    const claw = new ClawConversation(deps, clawId, options, run);
    return { checks, claw, opened: checks.map((c) => claw.open(c)), none: checks.length ? undefined : clawId };
  });
  const most = Math.max(0, ...sides.flatMap((s) => s.checks.map((c) => c.repeat)));
  const prior = rounds.prior ?? [];
  const together = sides.length > 1 || prior.length > 0;
  const all = () => sides.flatMap((s) => s.opened.map((o) => o.entry));
  for (let round = 1; round <= most; round++) {
    // A cancel between rounds ends the run as cancelled, as one during an attempt does.
    if (deps.signal?.aborted) run.cancelled = true;
    if (run.cancelled || deps.clock.now() >= deps.deadline) break;
    let asked = 0;
    await mapWithConcurrency(sides, CONCURRENCY, async (side) => {
      for (const [i, check] of side.checks.entries()) {
        const open = side.opened[i];
        const others = [...prior, ...all()]
          .filter((e) => e.check === check.name && e !== open.entry)
          .flatMap((e) => e.samples ?? []);
        if (!informs(check.repeat, open.entry.samples ?? [], open.planned, round, others, together)) continue;
        asked += 1;
        await side.claw.step(check, open);
      }
    });
    if (asked === 0) break;
    if (round < most && !run.cancelled && rounds.look?.(round, most, all())) break;
  }
  if (deps.signal?.aborted) run.cancelled = true;
  const entries = sides.flatMap((s) =>
    s.none === undefined ? s.opened.map((o) => s.claw.close(o)) : [noChecks(suite, s.none)],
  );
  for (const entry of entries) deps.log.info(checkLine(entry));
  return entries;
}

/** select-best and max-score over the entries of every Claw; a cancel meanwhile leaves no pass behind. */
async function compareAll(
  deps: RunContext,
  suite: CheckSuite,
  clawIds: string[],
  entries: CheckEntry[],
  options: GateOptions,
  run: { cancelled: boolean },
): Promise<void> {
  {
    const tools = { judgeFor: options.judgeFor, deadline: deps.deadline, log: deps.log };
    try {
      await compareClaws(suite, entries, options.groups ?? [clawIds], tools);
    } catch (err) {
      // A cancel while the judge compares: what is known is returned, as for any check.
      if (!(err instanceof CancelledError)) throw err;
      run.cancelled = true;
      // A Claw whose comparison never ended has no verdict: an error saying so, never a pass.
      const compared = new Set(suite.checks.filter((c) => c.compare?.length).map((c) => c.name));
      for (const e of entries.filter((x) => x.passed && compared.has(x.check))) {
        e.passed = false;
        e.errors += 1;
        e.failure = 'error: cancelled: the run was cancelled while the Claws were compared';
      }
    }
  }
}

/** The log's line for a check that has ended. */
function checkLine(e: CheckEntry): string {
  const verdict = verdictOf(e);
  const icon = { passed: '✅', failed: '❌', error: '⚠️' }[verdict];
  const latency = e.latencyMs === undefined ? '' : `, median ${formatDuration(e.latencyMs)}`;
  const counts = `${e.passes} of ${counted(e.attempts, 'attempt')} passed, ${e.minPass} of ${e.repeat} needed${latency}`;
  return `${icon} ${e.clawId} · ${e.check}: ${verdict} (${counts})${e.failure ? `: ${failureText(e)}` : ''}`;
}

function blankEntry(check: Pick<Check, 'name' | 'repeat' | 'minPass'>, clawId: string): CheckEntry {
  return {
    check: check.name,
    clawId,
    passed: false,
    passes: 0,
    attempts: 0,
    repeat: check.repeat,
    minPass: check.minPass,
    failures: 0,
    errors: 0,
    replies: [],
  };
}

/** A check that never began: an error saying why. */
function notRun(check: Check, clawId: string, why: string): CheckEntry {
  return { ...blankEntry(check, clawId), errors: 1, failure: `error: not run: ${why}` };
}

/** A Claw the file's filters leave without a check: never "its 0 check(s) passed". */
function noChecks(suite: CheckSuite, clawId: string): CheckEntry {
  return {
    ...blankEntry({ name: '(no check applies)', repeat: 0, minPass: 0 }, clawId),
    errors: 1,
    failure: `error: ${noCheckFor(suite, clawId)}`,
  };
}

/** A check asked round by round: its entry, the reply times of its attempts, the attempts planned so far. */
interface Opened {
  entry: CheckEntry;
  latencies: ReplyInterval[];
  planned: number;
}

/** One Claw's checks, in order; what they share is whether the Claw's chat still answers. */
class ClawConversation {
  /** Set once the chat has failed past its retries: the reason every later check gets. */
  private chatFailing?: string;
  /** The Claw's reply times so far: where its task polls go. */
  readonly replyTimes: ReplyTimes;

  constructor(
    private readonly deps: RunContext,
    private readonly clawId: string,
    private readonly options: GateOptions,
    /** Shared by every Claw of the run: set once a cancel has ended a check. */
    private readonly shared: { cancelled: boolean },
  ) {
    const kept = options.replyTimes;
    this.replyTimes = kept?.get(clawId) ?? new ReplyTimes();
    kept?.set(clawId, this.replyTimes);
  }

  /** The step's own `timeout`, for messages. */
  private get stepTimeout(): string {
    return formatDuration(this.deps.deadline - this.deps.startedAt);
  }

  /** A check to be asked round by round (`step`), then `close`d: its entry and what it keeps. */
  open(check: Check): Opened {
    return { entry: this.blank(check), latencies: [], planned: 0 };
  }

  /** One more attempt of the check (a round of a comparison). */
  async step(check: Check, open: Opened): Promise<void> {
    open.planned += 1;
    await this.attempts(check, open.entry, open.latencies, open.planned);
  }

  /**
   * The check's entry once its rounds are over. Asked fewer times than `repeat` (its answers did
   * not vary, or the comparison stopped), it passes when its share of passes is min-pass's share.
   */
  close(open: Opened): CheckEntry {
    const { entry } = open;
    padSamples(entry, open.planned);
    if (entry.attempts > 0 && entry.attempts < entry.repeat && entry.errors === 0) {
      entry.passed = entry.passes * entry.repeat >= entry.minPass * entry.attempts;
      if (entry.passed) entry.failure = undefined;
    }
    return entry;
  }

  private blank(check: Check): CheckEntry {
    return {
      ...blankEntry(check, this.clawId),
      judge: check.turns.some((t) => usesJudge(t.assert)) ? { calls: 0, cacheHits: 0, tokens: 0 } : undefined,
      ...(this.options.comparing ? { samples: [] } : {}),
    };
  }

  async run(check: Check): Promise<CheckEntry> {
    const { log, clock } = this.deps;
    const entry = this.blank(check);
    const latencies: ReplyInterval[] = [];
    // A long check (repeat: 30 against a slow Claw) says where it is while it runs.
    const began = clock.now();
    const stopTicks = clock.every?.(PROGRESS_EVERY_MS, () =>
      log.info(
        `⏳ ${this.clawId} · ${check.name}: attempt ${Math.min(entry.attempts + 1, check.repeat)} of ${check.repeat} under way, ${entry.passes} passed so far (${formatDuration(clock.now() - began)})`,
      ),
    );
    try {
      return await this.attempts(check, entry, latencies);
    } finally {
      stopTicks?.();
      if (this.options.comparing) padSamples(entry);
    }
  }

  /** The check's attempts, until its verdict is certain (a comparison's: `upTo` of them): the entry filled in. */
  private async attempts(
    check: Check,
    entry: CheckEntry,
    latencies: ReplyInterval[],
    upTo = check.repeat,
  ): Promise<CheckEntry> {
    const { log, clock } = this.deps;
    /** Ends the check before an attempt it cannot make: an error that says why. */
    const stop = (why: string): void => {
      if (entry.attempts === 0) entry.errors += 1;
      entry.failure ??= `error: ${why}`;
    };
    for (;;) {
      // Stop as soon as the verdict is certain, either way; a comparison makes every attempt.
      if (this.options.comparing) {
        if (entry.attempts >= upTo) break;
      } else {
        if (entry.passes >= check.minPass) break;
        if (entry.passes + (check.repeat - entry.attempts) < check.minPass) break;
      }
      const label = `${check.name}, attempt ${entry.attempts + 1} of ${check.repeat}`;
      if (this.chatFailing) {
        entry.attempts += 1;
        entry.errors += 1;
        entry.failure ??= `error: ${this.chatFailing}`;
        log.debug(`${this.clawId} · ${label}: not sent: ${this.chatFailing}`);
        break;
      }
      if (this.deps.signal?.aborted || this.shared.cancelled) {
        this.shared.cancelled = true;
        stop(
          entry.attempts === 0
            ? 'not run: the run was cancelled'
            : 'cancelled: the run was cancelled during this check',
        );
        break;
      }
      if (clock.now() >= this.deps.deadline) {
        stop(
          `${entry.attempts === 0 ? 'not run' : `attempt ${entry.attempts + 1} not run`}: the step's timeout (${this.stepTimeout}) came first`,
        );
        break;
      }
      let attempt: Attempt;
      try {
        attempt = await this.attempt(check, entry.judge);
      } catch (err) {
        if (!(err instanceof CancelledError)) throw err;
        this.shared.cancelled = true;
        entry.attempts += 1;
        entry.errors += 1;
        entry.failure ??= 'error: cancelled: the run was cancelled during this check';
        break;
      }
      entry.attempts += 1;
      entry.last = attempt.record;
      entry.samples?.push(sampleOf(attempt.kind, 'latencyMs' in attempt ? attempt : undefined, attempt.judged ?? {}));
      const kept = attempt.reply === undefined ? undefined : clip(attempt.reply.trim(), REPLY_KEPT_CHARS);
      if (kept !== undefined) entry.replies.push(kept);
      // The attempt the failure will tell of keeps its own reply: a later one may pass.
      if (attempt.kind !== 'pass' && entry.failure === undefined)
        entry.failedAttempt = {
          attempt: entry.attempts,
          ...(kept === undefined ? {} : { reply: kept }),
          record: attempt.record,
        };
      if (attempt.kind === 'pass') {
        entry.passes += 1;
        latencies.push({ lowMs: attempt.latencyLowMs, highMs: attempt.latencyMs });
        log.debug(`✅ ${this.clawId} · ${label}: passed in ${formatDuration(attempt.latencyMs)}`);
      } else if (attempt.kind === 'failure') {
        entry.failures += 1;
        latencies.push({ lowMs: attempt.latencyLowMs, highMs: attempt.latencyMs });
        entry.failure ??= attempt.detail;
        log.debug(`❌ ${this.clawId} · ${label}: failed: ${attempt.detail}`);
      } else {
        entry.errors += 1;
        entry.failure ??= `error: ${attempt.detail}`;
        log.debug(`⚠️ ${this.clawId} · ${label}: error: ${attempt.detail}`);
        if (attempt.chatFailing) this.chatFailing = `the Claw's chat is failing: ${attempt.detail}`;
      }
    }
    entry.passed = entry.passes >= check.minPass;
    if (entry.passed) {
      entry.failure = undefined;
      entry.failedAttempt = undefined;
    }
    // The median of the reply times as their intervals allow (Turnbull's estimate): a task's time is
    // known between two polls, and neither end alone is the Claw's. A few attempts: each read
    // against all the Claw's reply times so far (where inside its interval a reply most likely came).
    if (latencies.length >= FEW_ATTEMPTS) entry.latencyMs = Math.round(intervalMedian(latencies));
    else if (latencies.length) {
      const points = latencies.map((i) => this.replyTimes.pointWithin(i)).sort((a, b) => a - b);
      const mid = points.length / 2;
      entry.latencyMs = Math.round(points.length % 2 ? points[Math.floor(mid)] : (points[mid - 1] + points[mid]) / 2);
    }
    return entry;
  }

  /**
   * One attempt: every turn in order, each after the previous reply, under the check's own timeout.
   * A turn's deterministic assertions come first; the judge is asked only when they all hold.
   */
  private async attempt(check: Check, judgeUse: JudgeUse | undefined): Promise<Attempt> {
    const { clock } = this.deps;
    const began = clock.now();
    // The check's own timeout, or the step's deadline when that comes first.
    const stepFirst = this.deps.deadline < began + check.timeoutMs;
    const deadline = Math.min(began + check.timeoutMs, this.deps.deadline);
    const conversation: Exchange[] = [];
    // The Claw's time to reply over the turns: never the judge's, nor the action's own waits.
    let replyMs = 0;
    let replyLowMs = 0;
    // What the output file keeps of the attempt: the messages, the last reply and its grading.
    const record: AttemptRecord = { sent: [] };
    const judged: Judged = {};
    for (const [index, turn] of check.turns.entries()) {
      record.sent.push(turn.send);
      const turnLabel = check.turns.length > 1 ? `turn ${index + 1}: ` : '';
      let answer;
      try {
        answer = await askClaw(this.deps, {
          clawId: this.clawId,
          message: turn.send,
          deadline,
          pollIntervalMs: this.options.pollIntervalMs,
          classify: this.options.classify,
          replyTimes: this.replyTimes,
        });
      } catch (err) {
        if (err instanceof CancelledError || !(err instanceof ApiError)) throw err;
        // Nothing answers at base-url, or not as the service: no Claw's check can be run.
        if (err.kind === 'unreachable' || err.kind === 'address') throw err;
        // A deadline met while the chat kept failing is the chat failing; a slow reply is not.
        if (err.kind === 'deadline' && !err.failing) {
          const within = stepFirst
            ? `before the step's timeout (${this.stepTimeout}) ran out`
            : `within ${formatDuration(check.timeoutMs)}`;
          const detail = `${turnLabel}no reply ${within} (${err.message})`;
          return { kind: 'error', detail, record: { ...record, error: detail } };
        }
        const detail = `${turnLabel}${errorMessage(err)}`;
        return { kind: 'error', detail, chatFailing: true, record: { ...record, error: detail } };
      }
      if ('problem' in answer) {
        const cut = stepFirst && clock.now() >= deadline ? ` (the step's timeout (${this.stepTimeout}) ran out)` : '';
        const detail = `${turnLabel}${answer.problem}${cut}`;
        return { kind: 'error', detail, record: { ...record, error: detail } };
      }
      const { reply, latencyMs, latency } = answer;
      replyMs += latencyMs;
      replyLowMs += latency.lowMs;
      conversation.push({ send: turn.send, reply });
      record.reply = reply;
      record.latencyMs = latencyMs;
      // Every assertion of the turn, scored (scoring.ts): the judge last, and only while it can matter.
      const outcome = await scoreTurn(turn, reply, latency, {
        grade: (assertion, text) => {
          const graded =
            text === reply.trim() ? conversation : [...conversation.slice(0, -1), { send: turn.send, reply: text }];
          return this.grade(assertion, graded, deadline, judgeUse, check.origin?.vars, judged);
        },
        runScript: this.options.runScript ?? runScript,
        remainingMs: () => deadline - clock.now(),
        context: this.scriptContext(check, turn.send, reply),
      });
      record.grading = outcome.grading as Grading | undefined;
      if (outcome.kind === 'error') {
        const detail = `${turnLabel}${outcome.detail}`;
        return { kind: 'error', detail, reply, record: { ...record, error: detail }, judged };
      }
      if (outcome.kind === 'failure') {
        const detail = `${turnLabel}${outcome.detail}; reply: ${JSON.stringify(clip(reply.trim(), REPLY_EXCERPT_CHARS))}`;
        return { kind: 'failure', latencyMs: replyMs, latencyLowMs: replyLowMs, detail, reply, record, judged };
      }
    }
    const reply = conversation.at(-1)?.reply ?? '';
    return { kind: 'pass', latencyMs: replyMs, latencyLowMs: replyLowMs, reply, record, judged };
  }

  /** A script's `context`, as promptfoo builds it: the prompt, the vars, the test, the provider and its response. */
  private scriptContext(check: Check, prompt: string, reply: string): Record<string, unknown> {
    return {
      prompt,
      vars: check.origin?.vars ?? {},
      test: check.origin?.testCase ?? { description: check.name, vars: {} },
      provider: { id: `claw:${this.clawId}`, label: this.clawId },
      providerResponse: { output: reply },
    };
  }

  /** Asks the judge; `not-` inverts a verdict, never an error. */
  private async grade(
    assertion: GradedAssertion | RecipeAssertion,
    conversation: Exchange[],
    deadline: number,
    use: JudgeUse | undefined,
    vars?: Record<string, unknown>,
    judged?: Judged,
  ): Promise<
    | { kind: 'error'; reason: string }
    | { kind: 'verdict'; passed: boolean; reason: string; figures: string; score?: number }
  > {
    const judge = this.options.judgeFor?.(assertion.judge);
    if (!judge) return { kind: 'error', reason: 'judge unavailable: no judge was set up for this run' };
    const verdict = await judge.grade(
      {
        assertion,
        conversation: [...conversation],
        ...(vars ? { vars } : {}),
        ...(this.options.comparing ? { fresh: true } : {}),
        renderBy: { at: this.deps.deadline, now: () => this.deps.clock.now() },
      },
      deadline,
      this.deps.deadline,
    );
    if (use) {
      use.calls += verdict.use.called ? 1 : 0;
      use.cacheHits += verdict.use.cached ? 1 : 0;
      use.tokens += verdict.use.tokens;
      use.model ??= verdict.use.model;
      use.fingerprint ??= verdict.use.fingerprint;
    }
    if (verdict.kind === 'error') return { kind: 'error', reason: verdict.reason };
    if (judged) {
      judged.promptHash = gradingPromptHash(assertion);
      judged.model = verdict.use.model ?? judged.model;
      if (typeof verdict.score === 'number') judged.score = verdict.score;
    }
    if (use && typeof verdict.score === 'number' && (use.scores?.length ?? 0) < 20)
      (use.scores ??= []).push(verdict.score);
    const score = verdict.score === undefined ? '' : `score ${verdict.score}`;
    const category = verdict.category === undefined ? '' : `category ${verdict.category}`;
    const figures = [score, category].filter(Boolean).join(', ');
    const passed = assertion.negate ? verdict.kind === 'fail' : verdict.kind === 'pass';
    const reason = JSON.stringify(verdict.reason || 'no reason given');
    return { kind: 'verdict', passed, reason, figures: figures ? ` (${figures})` : '', score: verdict.score };
  }
}
