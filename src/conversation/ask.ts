// One turn of a conversation with a Claw: send a message, follow the task when the work is
// long-running, and read the Claw's reply (never the echo of what was sent). The health probe and
// the conversation checks both talk to Claws through here.
import { type Json, describeBody, echoes, readReply } from '../api/shapes.js';
import type { RunContext } from '../context.js';
import { pollEvery } from '../poll.js';
import type { Classifier } from '../status.js';

export interface Ask {
  clawId: string;
  message: string;
  /** No request or wait goes past it. */
  deadline: number;
  pollIntervalMs: number;
  classify: Classifier;
}

/** The reply, or why there is none (the task failed or outlived the deadline, only an echo came back). */
export type Answer = { reply: string } | { problem: string };

/** Sends `message` and reads the reply; the service's errors are thrown as they come (ApiError). */
export async function askClaw(
  deps: Pick<RunContext, 'client' | 'clock' | 'log' | 'pacer' | 'signal'>,
  ask: Ask,
): Promise<Answer> {
  const { client, signal } = deps;
  const options = { deadline: ask.deadline, signal };
  const answer = await client.sendMessage(ask.clawId, ask.message, options);
  let body: Json = answer.raw;
  let text = answer.reply;
  if (answer.taskId) {
    const poller = pollEvery(deps, ask.pollIntervalMs, ask.deadline);
    for (;;) {
      const task = await client.getTask(answer.taskId, options);
      body = task.raw;
      const reading = ask.classify(task.status);
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
  return { reply: text };
}
