// One turn of a conversation with a Claw: send a message, follow the task when the work is
// long-running, and read the Claw's reply (never the echo of what was sent). The health probe and
// the conversation checks both talk to Claws through here. The latency it reports is the Claw's:
// from the message on the wire to the first poll that saw the reply, with the bound the polls
// leave (the reply came after the poll before); never the waits for the team's budget, a
// Retry-After or retries before sending. A task is followed on a schedule of its own, short at
// first and backing off to the user's poll interval, so the bound stays a small part of the figure.
import { type Json, describeBody, echoes, readReply } from '../api/shapes.js';
import type { RunContext } from '../api/context.js';
import type { Logger } from '../shared/clock.js';
import { pollEvery } from '../api/poll.js';
import type { Classifier } from '../shared/status.js';
import type { ExchangeTiming } from '../api/transport.js';
import { MIN_PLANNED, type ReplyTimes, nextPlannedPoll } from './reply-times.js';

export interface Ask {
  clawId: string;
  message: string;
  /** No request or wait goes past it. */
  deadline: number;
  pollIntervalMs: number;
  classify: Classifier;
  /**
   * The Claw's reply times so far (the gate's, one per Claw): a task's polls then go to their
   * quantiles, all in one window of the team's budget, and this reply is added to them.
   */
  replyTimes?: ReplyTimes;
  /** Moves the planned polls by a random share of a level (Math.random by default). */
  random?: () => number;
}

/**
 * The Claw's time to reply: `ms` to the first poll that saw the reply (what is reported), and
 * `lowMs`, when the poll before it went out (the reply came no sooner). Equal for a reply that
 * came with the answer to the message itself.
 */
export interface ReplyLatency {
  ms: number;
  lowMs: number;
}

/**
 * The reply and how long the Claw took to give it, or why there is none (the task failed or
 * outlived the deadline, only an echo came back).
 */
export type Answer = { reply: string; latencyMs: number; latency: ReplyLatency } | { problem: string };

/** The first task poll goes out this soon after the message: most replies take a second or two. */
export const FIRST_TASK_POLL_MS = 150;
/**
 * Later polls wait this share of the time the task has run so far, up to the poll interval: the
 * reported latency is then at most about an eighth over the Claw's, at a cost that grows only with
 * the logarithm of its time (a 1.5 s reply costs about ten polls, a minute's some forty).
 */
export const TASK_POLL_SHARE = 1 / 8;

/**
 * The wait before the next poll of a task that has run `elapsedMs`: FIRST_TASK_POLL_MS, growing
 * with the elapsed time, never past the user's `pollIntervalMs`.
 */
export function taskPollDelay(elapsedMs: number, pollIntervalMs: number): number {
  return Math.min(pollIntervalMs, Math.max(FIRST_TASK_POLL_MS, elapsedMs * TASK_POLL_SHARE));
}

/** Sends `message` and reads the reply; the service's errors are thrown as they come (ApiError). */
export async function askClaw(
  deps: Pick<RunContext, 'client' | 'clock' | 'log' | 'pacer' | 'signal'>,
  ask: Ask,
): Promise<Answer> {
  const { client, signal } = deps;
  const options = { deadline: ask.deadline, signal };
  const times = ask.replyTimes;
  const plan = times?.tasks ? fittedPlan(deps, ask, times) : undefined;
  // The message and the polls that follow all but the slowest of the Claw's replies to the end.
  if (plan && times) await roomForPolls(deps, ask, plan.length + 1, 1 + times.pollsToFollow(plan, ask.pollIntervalMs));
  const asked = deps.clock.now();
  const answer = await client.sendMessage(ask.clawId, ask.message, options);
  const latency = new ReplyTime(answer.timing ?? { calledAt: asked, sentAt: asked, receivedAt: deps.clock.now() });
  let body: Json = answer.raw;
  let text = answer.reply;
  if (answer.taskId) {
    // Due from when the last poll went out, not from its answer: the time a poll takes to come back
    // never adds to the gap between polls, so it never widens the bound. With a plan (the gate's),
    // over the band where the Claw's median may lie, then backing off; the room was made in the window before
    // the message went, so the pacer's spreading (which would stretch the interval) is not asked.
    const schedule = (): number => {
      const elapsed = latency.askedAt - latency.sentAt;
      // With a plan: its next quantile, but never more than a share of the time run so far later,
      // so no interval is wider than that share of the reply time, whatever the plan got wrong.
      const due = !plan
        ? latency.askedAt + taskPollDelay(elapsed, ask.pollIntervalMs)
        : latency.sentAt + nextPlannedPoll(plan, elapsed, ask.pollIntervalMs);
      return Math.max(0, due - deps.clock.now());
    };
    // Before a plan (the Claw's first replies), the fixed schedule, spread by the team's budget.
    const poller = plan
      ? plannedPolls(deps, schedule, ask.deadline)
      : pollEvery({ ...deps, log: quiet(deps.log) }, schedule, ask.deadline);
    // A planned task is first polled at the plan's first point: a poll as the task starts tells
    // nothing the plan does not already know.
    if (plan && !(await poller.next())) return { problem: `task ${answer.taskId} still running at the deadline` };
    for (;;) {
      const polledAt = deps.clock.now();
      const task = await client.getTask(answer.taskId, options);
      body = task.raw;
      const reading = ask.classify(task.status);
      // Without the exchange's own times, the call's: the schedule always moves on from a poll.
      const timing = task.timing ?? { calledAt: polledAt, sentAt: polledAt, receivedAt: deps.clock.now() };
      latency.followed(timing, reading === 'in_progress');
      if (reading === 'succeeded') {
        text = readReply(task.raw, ask.message);
        break;
      }
      if (reading !== 'in_progress') return { problem: `task ${task.id} ended ${task.status}` };
      if (!(await poller.next())) {
        return { problem: `task ${task.id} still ${task.status ?? 'running'} at the deadline` };
      }
    }
  }
  if (text === undefined) {
    // Text equal to the message is the reply only when the answer marks it as the Claw's (a role).
    const what = echoes(body, ask.message)
      ? "the answer only echoes the message sent (no 'role': 'assistant' or other speaker field marks it as the Claw's reply)"
      : 'no reply text found';
    return { problem: `${what} in ${describeBody(body)}` };
  }
  ask.replyTimes?.add({ lowMs: latency.lowMs, highMs: latency.ms }, answer.taskId !== undefined);
  return { reply: text, latencyMs: latency.ms, latency: { ms: latency.ms, lowMs: latency.lowMs } };
}

/**
 * The plan for this task: its budget a share of the team's window (the documented 60 before any
 * header was seen); when what is left of the window cannot hold the message and the polls to
 * follow it, fewer points (down to MIN_PLANNED), so the window is spent rather than waited out.
 */
function fittedPlan(deps: Pick<RunContext, 'pacer'>, ask: Ask, times: ReplyTimes): number[] | undefined {
  const jitter = (ask.random ?? Math.random)();
  const reading = deps.pacer?.reading();
  let plan = times.plan(jitter, { windowLimit: reading?.limit });
  if (!plan || !deps.pacer || reading?.remaining === undefined) return plan;
  const left = reading.remaining - deps.pacer.reserve;
  const needs = (p: number[]) => 1 + times.pollsToFollow(p, ask.pollIntervalMs);
  while (plan.length > MIN_PLANNED && needs(plan) > left) {
    plan = times.plan(jitter, { windowLimit: reading.limit, most: plan.length - 1 })!;
  }
  return plan;
}

/** Polls at the times the schedule says, never past the deadline; the transport still holds a spent window. */
function plannedPolls(
  deps: Pick<RunContext, 'clock' | 'signal'>,
  schedule: () => number,
  deadline: number,
): { next(): Promise<boolean> } {
  return {
    async next(): Promise<boolean> {
      const left = deadline - deps.clock.now();
      if (left <= 0) return false;
      await deps.clock.sleep(Math.min(schedule(), left), deps.signal);
      return deps.clock.now() < deadline;
    },
  };
}

/**
 * Waits for the team's window to reset when what is left of it (the reserve aside) cannot hold the
 * message and its planned polls: a task cut in two by a reset would be measured to the reset's
 * wait, not to the Claw's time. The wait comes before the message, so it is never the Claw's.
 */
async function roomForPolls(
  deps: Pick<RunContext, 'clock' | 'log' | 'pacer' | 'signal'>,
  ask: Ask,
  least: number,
  wanted: number,
) {
  const pacer = deps.pacer;
  if (!pacer) return;
  const { limit, remaining, resetInMs } = pacer.reading();
  if (remaining === undefined || resetInMs === undefined || limit === undefined) return;
  // A window too small for the plan's own polls is spent as it comes; one smaller than all wanted
  // is waited for whole.
  if (limit - pacer.reserve < least) return;
  const need = Math.min(wanted, limit - pacer.reserve);
  if (remaining - pacer.reserve >= need) return;
  // A reset after the attempt's deadline is not waited for: the message goes, polled as it can be.
  const wait = resetInMs + 50;
  if (wait >= ask.deadline - deps.clock.now()) return;
  deps.log.debug(
    `${ask.clawId}: ${remaining} request(s) left in the team's window, ${need} needed to follow a task to its reply; waiting ${Math.round(wait)}ms for the reset`,
  );
  await deps.clock.sleep(wait, deps.signal);
}

/** `log` with its info lines at debug level. */
function quiet(log: Logger): Logger {
  return { ...log, info: (message) => log.debug(message) };
}

/**
 * The Claw's time to reply, from the message on the wire. A task poll that finds it still running
 * proves every moment before it went out was the Claw's (the low end); the poll that reads the
 * reply bounds it above when it is answered. The gate's polls are planned to fit the team's window,
 * so a poll held for the budget is rare; when one is, the bound is wide, never wrong.
 */
class ReplyTime {
  readonly sentAt: number;
  /** The service had the message by then: a task's work started no later. */
  private readonly startedBy: number;
  private done: number;
  /** How long the work had run at the least, by the last poll that found it running. */
  private ranAtLeast = 0;
  private task = false;
  private lastSent: number;

  constructor(message: ExchangeTiming) {
    this.sentAt = message.sentAt;
    this.startedBy = message.receivedAt;
    this.lastSent = message.sentAt;
    this.done = message.receivedAt;
  }

  /** A task poll's exchange; `running` when it found the task still at work. */
  followed(poll: ExchangeTiming, running: boolean): void {
    this.task = true;
    this.lastSent = poll.sentAt;
    // The reply was there by the time the poll was answered; a poll held for the team's budget
    // widens the bound (said with the figure) rather than leaving the reply outside it.
    this.done = poll.receivedAt;
    // Seen running when the poll went out or later, having started by the message's answer at the
    // latest: the work took at least the difference, whatever either exchange's time on the wire.
    if (running) this.ranAtLeast = Math.max(0, poll.sentAt - this.startedBy);
  }

  get ms(): number {
    return Math.max(0, Math.round(this.done - this.sentAt));
  }

  /** When the message or the last task poll went on the wire. */
  get askedAt(): number {
    return this.lastSent;
  }

  /** The low end: a synchronous reply's time is exact. */
  get lowMs(): number {
    return this.task ? Math.min(this.ms, Math.round(this.ranAtLeast)) : this.ms;
  }
}
