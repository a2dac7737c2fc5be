// The chat probe: send a message, follow a task when the reply is long-running, read the reply.
import { type Json, describeBody, echoes, readReply } from '../api/shapes.js';
import type { RunContext } from '../context.js';
import type { Classifier } from '../status.js';
import type { ReplyPattern } from '../pattern.js';
import { pollEvery } from '../poll.js';

export interface ProbeResult {
  ok: boolean;
  reply?: string;
  detail: string;
}

export async function runProbe(
  deps: Pick<RunContext, 'client' | 'clock' | 'log' | 'pacer' | 'signal'>,
  input: {
    clawId: string;
    message: string;
    expect?: ReplyPattern;
    deadline: number;
    pollIntervalMs: number;
    classify: Classifier;
  },
): Promise<ProbeResult> {
  const { client, signal } = deps;
  const options = { deadline: input.deadline, signal };
  const answer = await client.sendMessage(input.clawId, input.message, options);
  let body: Json = answer.raw;
  let text = answer.reply;
  if (answer.taskId) {
    const poller = pollEvery(deps, input.pollIntervalMs, input.deadline);
    for (;;) {
      const task = await client.getTask(answer.taskId, options);
      body = task.raw;
      const reading = input.classify(task.status);
      if (reading === 'succeeded') {
        text = readReply(task.raw, input.message);
        break;
      }
      if (reading !== 'in_progress') return { ok: false, detail: `task ${task.id} ended ${task.status}` };
      if (!(await poller.next())) {
        return { ok: false, detail: `task ${task.id} still ${task.status ?? 'running'} at the deadline` };
      }
    }
  }
  if (text === undefined) {
    const what = echoes(body, input.message) ? 'the answer only echoes the message sent' : 'no reply text found';
    return { ok: false, detail: `${what} in ${describeBody(body)}` };
  }
  if (input.expect && !input.expect.test(text)) {
    return { ok: false, reply: text, detail: `reply does not match /${input.expect.source}/` };
  }
  return { ok: true, reply: text, detail: input.expect ? `reply matches /${input.expect.source}/` : 'replied' };
}
