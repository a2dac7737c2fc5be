// The two kinds of judge behind Judge: an OpenAI-compatible endpoint (its own transport and key),
// or a grader Claw asked through the chat API (the team's budget and pacing, like any conversation).
import type { ChatCompletions } from '../api/chat-completions.js';
import type { RunContext } from '../api/context.js';
import { askClaw } from '../conversation/ask.js';
import { clip } from '../shared/format.js';
import type { Classifier } from '../shared/status.js';
import type { JudgeBackend } from './judge.js';
import { type ClawJudgeSpec, type EndpointJudgeSpec, judgeIdentity } from './judge-spec.js';

export function endpointBackend(
  completions: ChatCompletions,
  spec: EndpointJudgeSpec,
  signal?: AbortSignal,
): JudgeBackend {
  return {
    identity: judgeIdentity(spec),
    async ask(messages, schema, deadline) {
      const answer = await completions.complete(
        {
          model: spec.model,
          messages,
          temperature: spec.temperature,
          seed: spec.seed,
          max_tokens: spec.maxTokens,
          ...(schema ? { response_format: { type: 'json_schema', json_schema: { ...schema, strict: true } } } : {}),
        },
        { deadline, signal },
      );
      const said = (text: string): string => JSON.stringify(clip(text.trim(), 200));
      const tokens = answer.tokens;
      if (answer.refusal) return { problem: `it refused to grade: ${said(answer.refusal)}`, tokens };
      if (answer.finishReason === 'length') {
        return { problem: `its answer was cut off at 'max-tokens' ${spec.maxTokens} (finish_reason length)`, tokens };
      }
      if (answer.finishReason === 'content_filter')
        return { problem: 'its answer was withheld by a content filter', tokens };
      if (!answer.content?.trim()) return { problem: 'its answer was empty', tokens };
      return {
        text: answer.content,
        structured: answer.structured,
        model: answer.model,
        fingerprint: answer.fingerprint,
        tokens,
      };
    },
    embed: (texts, deadline) => completions.embed(spec.embeddingModel ?? spec.model, texts, { deadline, signal }),
    moderate: (text, deadline) => completions.moderate(spec.moderationModel ?? spec.model, text, { deadline, signal }),
  };
}

export function clawBackend(
  ctx: Pick<RunContext, 'client' | 'clock' | 'log' | 'pacer' | 'signal'>,
  spec: ClawJudgeSpec,
  options: { pollIntervalMs: number; classify: Classifier },
): JudgeBackend {
  return {
    identity: judgeIdentity(spec),
    async ask(messages, _schema, deadline) {
      // A Claw takes one message: the instructions first, then the material in its blocks.
      const message = messages.map((m) => m.content).join('\n\n');
      const answer = await askClaw(ctx, { clawId: spec.clawId, message, deadline, ...options });
      if ('problem' in answer) return { problem: `grader Claw ${spec.clawId}: ${answer.problem}` };
      return { text: answer.reply };
    },
  };
}
