// One turn of a conversation with a Claw: send a message, follow the task when the work is
// long-running, and read the Claw's reply (never the echo of what was sent). The health probe and
// the conversation checks both talk to Claws through here. The latency it reports is the Claw's:
// from the message on the wire to the reply, following the task at the user's poll interval;
// never the waits for the team's budget, a Retry-After or retries before sending.
import { type Json, describeBody, echoes, readReply } from '../api/shapes.js';
import type { RunContext } from '../context.js';
import { pollEvery } from '../poll.js';
import type { Classifier } from '../status.js';
import type { ExchangeTiming } from '../api/transport.js';

export interface Ask {
  clawId: string;
  message: string;
  /** No request or wait goes past it. */
  deadline: number;
  pollIntervalMs: number;
  classify: Classifier;
}

/**
 * The reply and how long the Claw took to give it, or why there is none (the task failed or
 * outlived the deadline, only an echo came back).
 */
export type Answer = { reply: string; latencyMs: number } | { problem: string };

/** Sends `message` and reads the reply; the service's errors are thrown as they come (ApiError). */
export async function askClaw(
  deps: Pick<RunContext, 'client' | 'clock' | 'log' | 'pacer' | 'signal'>,
  ask: Ask,
): Promise<Answer> {
  const { client, signal } = deps;
  const options = { deadline: ask.deadline, signal };
  const asked = deps.clock.now();
  const answer = await client.sendMessage(ask.clawId, ask.message, options);
  const latency = new ReplyTime(answer.timing ?? { calledAt: asked, sentAt: asked, receivedAt: deps.clock.now() });
  let body: Json = answer.raw;
  let text = answer.reply;
  if (answer.taskId) {
    // At the user's interval, not spread over the team's window: every poll past the reply's
    // moment would be counted as the Claw's. The transport still waits when the window is spent.
    const poller = pollEvery({ ...deps, pacer: undefined }, ask.pollIntervalMs, ask.deadline);
    for (;;) {
      const task = await client.getTask(answer.taskId, options);
      body = task.raw;
      const reading = ask.classify(task.status);
      if (task.timing) latency.followed(task.timing, reading === 'in_progress');
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
  return { reply: text, latencyMs: latency.ms };
}

/**
 * The Claw's time to reply, from the message on the wire. A task poll that finds it still running
 * proves every moment before it was the Claw's; the poll that reads the reply counts without the
 * waits before it went on the wire (the team's budget, a Retry-After: the action's own waiting,
 * while the reply may long have been ready).
 */
class ReplyTime {
  private readonly sentAt: number;
  private done: number;

  constructor(message: ExchangeTiming) {
    this.sentAt = message.sentAt;
    this.done = message.receivedAt;
  }

  /** A task poll's exchange; `running` when it found the task still at work. */
  followed(poll: ExchangeTiming, running: boolean): void {
    this.done = running ? poll.receivedAt : poll.receivedAt - (poll.sentAt - poll.calledAt);
  }

  get ms(): number {
    return Math.max(0, Math.round(this.done - this.sentAt));
  }
}
