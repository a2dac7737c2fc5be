// A long or multi-line string that changes (a system prompt, a personality) shown as a line diff:
// 3 lines of context around each change, `…` for the rest with how many were skipped, removed lines
// `-` and added `+`, so GitHub colours them. Long lines are wrapped before diffing, sentence by
// sentence and then at word boundaries, so one edited sentence in a one-line paragraph is one
// changed line rather than the whole paragraph. The diff itself is Myers' algorithm (`diff`).
import { diffArrays } from 'diff';

/** Strings longer than this, or holding a newline, are diffed line by line. */
export const LONG_TEXT_CHARS = 80;
/** Lines longer than this are wrapped before diffing. */
export const WRAP_CHARS = 200;
/** Unchanged lines shown around each change. */
export const CONTEXT_LINES = 3;

export function isLongText(value: unknown): value is string {
  return typeof value === 'string' && (value.includes('\n') || value.length > LONG_TEXT_CHARS);
}

/**
 * The line cut after each run of `.`, `!` or `?` that whitespace follows (the whitespace stays with
 * its sentence), by hand in one pass: a pattern for it backtracks quadratically over a long word.
 */
function sentences(line: string): string[] {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  while (i < line.length) {
    if (!'.!?'.includes(line[i])) {
      i++;
      continue;
    }
    while (i < line.length && '.!?'.includes(line[i])) i++;
    if (i < line.length && !/\s/.test(line[i])) continue;
    while (i < line.length && /\s/.test(line[i])) i++;
    out.push(line.slice(from, i));
    from = i;
  }
  if (from < line.length) out.push(line.slice(from));
  return out;
}

/** Splits one line longer than WRAP_CHARS at sentence ends, then at spaces (or hard, with none). */
function wrapLine(line: string): string[] {
  if (line.length <= WRAP_CHARS) return [line];
  const out: string[] = [];
  for (const sentence of sentences(line)) {
    let rest = sentence;
    while (rest.length > WRAP_CHARS) {
      const space = rest.lastIndexOf(' ', WRAP_CHARS);
      const cut = space > 0 ? space + 1 : WRAP_CHARS;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    if (rest) out.push(rest);
  }
  return out;
}

/** The text as the lines a diff compares: split at line ends, long lines wrapped. */
export function textLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/).flatMap(wrapLine);
}

export interface DiffLine {
  /** `' '` context, `-` removed, `+` added, `…` lines skipped. */
  mark: ' ' | '-' | '+' | '…';
  text: string;
}

/** The line diff of two texts with context and skip markers. */
export function textDiff(before: string, after: string): DiffLine[] {
  const entries: DiffLine[] = [];
  for (const part of diffArrays(textLines(before), textLines(after))) {
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const text of part.value) entries.push({ mark, text });
  }
  // Keep context lines within CONTEXT_LINES of a change; fold every other run of them.
  const near = entries.map(() => false);
  entries.forEach((e, i) => {
    if (e.mark === ' ') return;
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(entries.length - 1, i + CONTEXT_LINES); j++) {
      near[j] = true;
    }
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  const flush = (): void => {
    if (skipped > 0) out.push({ mark: '…', text: `${skipped} unchanged line(s)` });
    skipped = 0;
  };
  entries.forEach((e, i) => {
    if (e.mark === ' ' && !near[i]) {
      skipped += 1;
      return;
    }
    flush();
    out.push(e);
  });
  flush();
  return out;
}

/** How many lines each side has, and how many changed, for the line under the key. */
export function diffStats(lines: DiffLine[]): { removed: number; added: number } {
  return {
    removed: lines.filter((l) => l.mark === '-').length,
    added: lines.filter((l) => l.mark === '+').length,
  };
}
