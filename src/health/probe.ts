// The chat probe: one message, and a regular expression the reply must match.
import type { RunContext } from '../api/context.js';
import type { ReplyPattern } from '../shared/pattern.js';
import type { Classifier } from '../shared/status.js';
import { askClaw } from '../conversation/ask.js';

export interface ProbeResult {
  ok: boolean;
  reply?: string;
  /** The Claw's time to reply (from the message on the wire), when it replied. */
  latencyMs?: number;
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
  const answer = await askClaw(deps, input);
  if ('problem' in answer) return { ok: false, detail: answer.problem };
  const { reply: text, latencyMs } = answer;
  if (input.expect && !input.expect.test(text)) {
    return { ok: false, reply: text, latencyMs, detail: `reply does not match /${input.expect.source}/` };
  }
  return {
    ok: true,
    reply: text,
    latencyMs,
    detail: input.expect ? `reply matches /${input.expect.source}/` : 'replied',
  };
}
