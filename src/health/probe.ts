// The chat probe: send a message, follow a task when the reply is long-running, read the text.
import type { AmsClient } from '../api/client.js';
import { type Json, describeBody, isObject, readString } from '../api/shapes.js';
import type { Clock } from '../clock.js';
import type { Classifier } from '../deploy/status.js';
import type { ReplyPattern } from '../pattern.js';

const TEXT_KEYS = ['reply', 'response', 'content', 'text', 'answer', 'output', 'message', 'body', 'result'];

/** The reply's text wherever a plausible shape keeps it, or undefined. */
export function readReplyText(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (depth > 4) return undefined;
  if (Array.isArray(value)) {
    // A list of messages: the last one from the Claw, or simply the last.
    const fromClaw = value.filter(
      (m) => isObject(m) && /assistant|claw|agent|bot/i.test(String(m.role ?? m.sender ?? m.from ?? '')),
    );
    for (const item of [...(fromClaw.length ? fromClaw : value)].reverse()) {
      const text = readReplyText(item, depth + 1);
      if (text) return text;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const key of TEXT_KEYS) {
    if (key in value) {
      const text = readReplyText(value[key], depth + 1);
      if (text) return text;
    }
  }
  for (const key of ['data', 'messages', 'choices', 'reply']) {
    if (key in value) {
      const text = readReplyText(value[key], depth + 1);
      if (text) return text;
    }
  }
  return undefined;
}

export interface ProbeResult {
  ok: boolean;
  reply?: string;
  detail: string;
}

export async function runProbe(
  deps: { client: AmsClient; clock: Clock; signal?: AbortSignal },
  input: {
    clawId: string;
    message: string;
    expect?: ReplyPattern;
    deadline: number;
    pollIntervalMs: number;
    classify: Classifier;
  },
): Promise<ProbeResult> {
  const { client, clock, signal } = deps;
  const options = { deadline: input.deadline, signal };
  const answer = await client.sendMessage(input.clawId, input.message, options);
  let body: Json = answer;
  const taskId =
    readString(answer, ['taskId', 'task_id']) ??
    (isObject(answer.task) ? readString(answer.task, ['id', 'taskId']) : undefined);
  let text = taskId ? undefined : readReplyText(answer);
  if (taskId) {
    for (;;) {
      const task = await client.getTask(taskId, options);
      body = task.raw;
      const reading = input.classify(task.status);
      if (reading === 'succeeded') {
        text = readReplyText(task.raw);
        break;
      }
      if (reading !== 'in_progress') return { ok: false, detail: `task ${taskId} ended ${task.status}` };
      const left = input.deadline - clock.now();
      if (left > 0) await clock.sleep(Math.min(input.pollIntervalMs, left), signal);
      if (clock.now() >= input.deadline) {
        return { ok: false, detail: `task ${taskId} still ${task.status ?? 'running'} at the deadline` };
      }
    }
  }
  if (text === undefined) return { ok: false, detail: `no reply text found in ${describeBody(body)}` };
  if (input.expect && !input.expect.test(text)) {
    return { ok: false, reply: text, detail: `reply does not match /${input.expect.source}/` };
  }
  return { ok: true, reply: text, detail: input.expect ? `reply matches /${input.expect.source}/` : 'replied' };
}
