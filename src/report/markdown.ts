// The job summary's Markdown. GitHub renders it as Markdown with HTML, so every value from the
// service goes through `escapeText`: it can neither break a table, nor start a link, an image or
// an HTML element, nor leave its code span.
import { flattenControls } from '../shared/format.js';
import { httpUrl } from '../shared/identifiers.js';

/** Entities for every character Markdown or HTML could read as syntax. */
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '|': '&#124;',
  '`': '&#96;',
  '[': '&#91;',
  ']': '&#93;',
  '(': '&#40;',
  ')': '&#41;',
  '\\': '&#92;',
  '*': '&#42;',
  _: '&#95;',
  '~': '&#126;',
  '#': '&#35;',
  '!': '&#33;',
  ':': '&#58;',
  '@': '&#64;',
  $: '&#36;',
};

/** Literal text in a cell or inline: one line, nothing interpreted. */
export function escapeText(value: string): string {
  return flattenControls(value)
    .replace(/[&<>"'|`[\]()\\*_~#!:@$]/g, (c) => ENTITY[c])
    .replace(/www\./gi, (w) => `${w.slice(0, 3)}&#46;`); // no `www.` autolink either
}

/** Characters that mean nothing to Markdown or HTML, even in a table, and no autolink. */
const PLAIN = /^(?!.*www\.)[\w .,;@/+=%?~-]+$/i;

/**
 * A value shown as code: a backtick span when it is plain, otherwise an HTML code element around
 * escaped text, so no backtick, pipe or backslash can end the span or the cell.
 */
export function code(value: string): string {
  return PLAIN.test(value) && value.trim() === value && value !== ''
    ? `\`${value}\``
    : `<code>${escapeText(value)}</code>`;
}

/** `text` (already escaped) linked to `url` when it is http(s); the text alone otherwise. */
export function link(text: string, url: string | undefined): string {
  const href = httpUrl(url);
  if (!href) return text;
  // The href is a parsed URL; percent-encode what could end the Markdown link or the table cell.
  const safe = href.replace(
    /[()<>|[\]"'`\\ ]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
  return `[${text}](${safe})`;
}

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The summary stays well under GitHub's 1 MiB limit for a step's summary. */
export const MAX_SUMMARY_BYTES = 256 * 1024;
/** A plan's summary holds its values whole, up to what GitHub keeps of a step's summary (1 MiB), less a margin. */
export const MAX_PLAN_SUMMARY_BYTES = 1000 * 1024;

/** Cuts Markdown at a line boundary to at most `maxBytes`, with a line saying what was left out. */
export function capMarkdown(markdown: string, maxBytes = MAX_SUMMARY_BYTES, whereWhole = ''): string {
  if (Buffer.byteLength(markdown, 'utf8') <= maxBytes) return markdown;
  const lines = markdown.split('\n');
  const where = whereWhole ? ` ${escapeText(whereWhole)}` : '';
  const note = (left: number): string =>
    `\n\n_${left} more line(s) left out: the summary is capped at ${Math.round(maxBytes / 1024)} KiB._${where}\n`;
  let bytes = 0;
  let kept = 0;
  for (; kept < lines.length; kept++) {
    const size = Buffer.byteLength(lines[kept], 'utf8') + 1;
    if (bytes + size + Buffer.byteLength(note(lines.length), 'utf8') > maxBytes) break;
    bytes += size;
  }
  return `${lines.slice(0, kept).join('\n')}${note(lines.length - kept)}`;
}
