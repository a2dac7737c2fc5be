// promptfoo's grading templates as promptfoo renders them (its renderLlmRubricPrompt): a JSON list
// of chat messages with each string rendered, else one user message; objects in the context
// handed over as their JSON text. The material graded (a Claw's reply) is a value, never a template.
import type { Message, RenderDeadline } from '../rubric.js';
import { type Obj, isObj } from './located.js';
import { render, renderLenient } from './render.js';

/** A grading message, as the judge sends it. */
export type RubricMessage = Message;

/**
 * promptfoo's rubric rendering: JSON messages with each string rendered, else one user message.
 * `strict` at load (a value not set is a mistake); `deadline` at grading (the step's).
 */
export function rubricMessages(
  template: string,
  context: Record<string, unknown>,
  strict = false,
  deadline?: RenderDeadline,
): RubricMessage[] {
  const renderOne = (text: string): string => (strict ? render(text, context) : renderLenient(text, context, deadline));
  let parsed: unknown;
  try {
    parsed = JSON.parse(template);
  } catch {
    return [{ role: 'user', content: renderOne(template) }];
  }
  if (Array.isArray(parsed) && parsed.every((m) => isObj(m) && typeof m.role === 'string')) {
    return parsed.map((m: Obj) => ({
      role: (['system', 'user', 'assistant'].includes(m.role as string) ? m.role : 'user') as RubricMessage['role'],
      content: renderOne(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)),
    }));
  }
  return [{ role: 'user', content: renderOne(template) }];
}

export function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** promptfoo hands objects to a rubric template as their JSON text. */
export function stringified(context: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(context).map(([k, v]) => [
      k,
      Array.isArray(v)
        ? v.map((i) => (i && typeof i === 'object' ? JSON.stringify(i) : i))
        : v && typeof v === 'object'
          ? JSON.stringify(v)
          : v,
    ]),
  );
}
