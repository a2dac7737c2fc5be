// Chat-format prompts (a list of role messages, inline JSON or a .json/.yaml prompt file), as a
// Claw takes them: the `user` messages are the turns sent, in order; a `system` message is left
// to the Claw's own instructions, which play that part; an `assistant` message (a scripted earlier
// answer) cannot be played to a Claw, which writes its own answers, so it is refused.
import { type Obj, isObj } from './located.js';

export interface ChatMessage {
  role: string;
  /** The text (the text parts of a list of parts, joined). */
  content: string;
}

/** The messages of a chat-format prompt, or undefined for a text prompt. */
export function chatMessages(raw: string): unknown[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.length > 0 && parsed.every((m) => isObj(m) && typeof m.role === 'string')
    ? parsed
    : undefined;
}

/** Why a chat prompt's message cannot be sent to a Claw, or undefined when it can (or is left out). */
export function messageProblem(message: Obj): string | undefined {
  const role = message.role as string;
  if (role === 'assistant')
    return "has an 'assistant' message (a scripted earlier answer), which a Claw cannot be given: it writes its own answers: expected the user messages only (each one a turn sent in order), or a native checks file's turns";
  if (!['user', 'system', 'developer'].includes(role))
    return `has a message with role ${JSON.stringify(role)}: expected 'user' messages (the turns sent) and at most a 'system' one`;
  if (textOf(message.content) === undefined)
    return 'has a message whose content is not text: a Claw takes text messages: expected text, or a list of text parts';
  return undefined;
}

/** The user messages' text, in order: the turns sent. */
export function userTurns(messages: unknown[]): string[] {
  return messages.filter((m) => isObj(m) && m.role === 'user').map((m) => textOf((m as Obj).content) ?? '');
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string'))
    return content.map((p) => (p as Obj).text as string).join('\n');
  return undefined;
}

/** The line, in a prompt file's text, of its `n`th message (the nth `role:` key), from 1. */
export function lineOfMessage(text: string, n: number): number | undefined {
  const re = /["']?role["']?\s*:/g;
  let match: RegExpExecArray | null;
  for (let i = 0; (match = re.exec(text)); i++) {
    if (i === n) return text.slice(0, match.index).split('\n').length;
  }
  return undefined;
}
