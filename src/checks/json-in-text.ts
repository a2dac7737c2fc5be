// JSON inside prose: a judge's verdict (the whole answer, or its last top-level object around its
// reasoning, in a code fence or after a <think> block), or every object and array (promptfoo's
// contains-json). The scan is bounded: replies are untrusted and may hold thousands of braces.

import { readJson } from '../api/json.js';

/** The most text scanned, and the most candidate openings tried. */
const MAX_SCAN_CHARS = 64 * 1024;
const MAX_CANDIDATES = 200;

/** The end (exclusive) of the balanced value opening at `start`, strings respected; -1 when it never closes. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** Every JSON object or array found in `text`, in order; with `objectsOnly`, objects alone. */
export function jsonValuesIn(text: string, { objectsOnly = false, first = false } = {}): unknown[] {
  const scanned = text.slice(0, MAX_SCAN_CHARS);
  const found: unknown[] = [];
  let tries = 0;
  for (let i = 0; i < scanned.length && tries < MAX_CANDIDATES; i++) {
    const c = scanned[i];
    if (c !== '{' && (objectsOnly || c !== '[')) continue;
    tries++;
    const end = balancedEnd(scanned, i);
    if (end < 0) continue;
    try {
      found.push(JSON.parse(scanned.slice(i, end)));
      if (first) return found;
      i = end - 1;
    } catch {
      // not JSON (prose in braces): try the next opening
    }
  }
  return found;
}

/**
 * What promptfoo's `text.match(/\{.+\}/g)[0]` finds (g-eval reads its answers so; `opener` is
 * `{` or `{"steps"`), in linear time: on the first line holding `opener` with a `}` at least one
 * character after it, from the opener to the line's last `}`. The pattern itself backtracks
 * quadratically over a line of braces.
 */
export function firstBracedOnLine(text: string, opener: string): string | undefined {
  // `.` stops at these, so a match never spans them.
  for (const line of text.split(/[\n\r\u2028\u2029]/)) {
    const open = line.indexOf(opener);
    if (open < 0) continue;
    // A later opener on the line has fewer characters after it: if the first fails, so do all.
    const close = line.lastIndexOf('}');
    if (close >= open + opener.length + 1) return line.slice(open, close + 1);
  }
  return undefined;
}

/** An answer's text after a leading `<think>…</think>` block, or the problem when it never ends. */
export function afterThinking(answer: string): { text: string } | { problem: string } {
  const text = answer.trimStart();
  if (!/^<think>/i.test(text)) return { text };
  const end = text.search(/<\/think>/i);
  if (end < 0) return { problem: 'an unfinished <think> block and no verdict' };
  return { text: text.slice(end + '</think>'.length) };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A single code fence around the whole text (```json … ```, ``` … ```, ~~~): what is inside it. */
function withoutFence(text: string): string {
  const fenced = /^(`{3,}|~{3,})[\w+-]*[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*\1[ \t]*$/.exec(text.trim());
  return fenced ? fenced[2] : text;
}

/**
 * The one JSON object a JSON schema asked for: the whole answer, after a leading `<think>…</think>`
 * block and a single code fence around it are removed (reasoning models served by vLLM, Ollama or
 * LiteLLM answer so); anything else is what it held instead, never a guess among several objects.
 */
export function wholeJsonObject(answer: string): { value: Record<string, unknown> } | { problem: string } {
  const read = afterThinking(answer);
  if ('problem' in read) return read;
  // Read with a depth bound: JSON.parse's time grows faster than the text on deep nesting.
  const json = readJson(withoutFence(read.text).trim());
  if (json.ok && isRecord(json.value)) return { value: json.value };
  return { problem: 'more or less than the one JSON object its schema asked for' };
}

/**
 * The last JSON object at the top level of a model's answer (after a leading `<think>` block,
 * in a fence or in prose), leaving out those `quoted` says come from the material graded: a
 * verdict a Claw wrote into its reply is never the judge's, wherever the judge quotes it.
 */
export function lastJsonObject(
  answer: string,
  quoted: (source: string, value: Record<string, unknown>) => boolean = () => false,
): { value: Record<string, unknown> } | { problem: string } {
  const read = afterThinking(answer);
  if ('problem' in read) return read;
  const scanned = read.text.slice(0, MAX_SCAN_CHARS);
  let last: Record<string, unknown> | undefined;
  let skipped = 0;
  let tries = 0;
  for (let i = 0; i < scanned.length && tries < MAX_CANDIDATES; i++) {
    if (scanned[i] !== '{' && scanned[i] !== '[') continue;
    tries++;
    const end = balancedEnd(scanned, i);
    if (end < 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(scanned.slice(i, end));
    } catch {
      continue; // prose in braces: an object may still open inside it
    }
    // An object inside a JSON array is not at the top level: the array is passed over whole.
    if (isRecord(value)) {
      if (quoted(scanned.slice(i, end), value)) skipped++;
      else last = value;
    }
    i = end - 1;
  }
  if (last) return { value: last };
  return { problem: skipped ? 'no JSON object of its own (only ones quoted from the reply)' : 'no JSON object' };
}
