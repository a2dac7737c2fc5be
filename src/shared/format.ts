// Formatting for people, shared by every layer.

/** Formats milliseconds for people: 1500 → "1.5s", 95000 → "1m35s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(1))}s`;
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}` || '0s';
}

/** Longest single service value shown inside a message. */
export const MAX_VALUE_CHARS = 200;

/** Cuts text to `max` characters, saying how much was left out. */
export function clip(text: string, max = MAX_VALUE_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

// C0 and C1 controls (line breaks among them), DEL, line and paragraph separators, bidi
// controls and invisible format characters: what could split a line or hide text.
/* eslint-disable no-control-regex */
const CONTROL_OR_INVISIBLE =
  /\r\n|[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
const LINE_BREAK_OR_TAB = /^(?:\r\n|[\t\n\v\f\r\u0085\u2028\u2029])$/;
/* eslint-enable no-control-regex */

/** One line of visible text: breaks and tabs become spaces, other controls U+FFFD. */
export function flattenControls(text: string): string {
  return text.replace(CONTROL_OR_INVISIBLE, (c) => (LINE_BREAK_OR_TAB.test(c) ? ' ' : '\ufffd'));
}

/** True when the text holds a character `flattenControls` would change. */
export function hasControls(text: string): boolean {
  return text.search(CONTROL_OR_INVISIBLE) >= 0;
}

/** A count and its noun, singular for one: "1 day", "3 days" (`many` when the plural is not +s). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** An assertion type's name with its article, as it is read aloud: "a 'contains'", "an 'llm-rubric'". */
export function aType(type: string): string {
  return `${/^(?:[aeiou]|llm)/i.test(type) ? 'an' : 'a'} '${type}'`;
}

/** A message as a sentence: its full stop added, unless it ends a question or a sentence already. */
export function sentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}
