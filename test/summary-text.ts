// The job summary as a person reads it, for a terminal: `npm run demo` shows what GitHub would
// render, not the Markdown it is written in. Only what the reports write is handled: headings,
// tables (aligned columns, the last one wrapped), code spans, bold, links (text, then the address),
// the few HTML elements (sub, details, summary, code, br) and the entities escapeText writes.
import { columnsOf, wrapColumns } from '../src/cli/terminal.ts';

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Entities back to their characters: `&#95;` → `_`, `&quot;` → `"`. */
export function unescapeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** One line of inline Markdown as plain text. */
export function inlineText(markdown: string): string {
  const text = markdown
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/<\/?(sub|sup|code|summary|details|b|strong|em|i|kbd)(\s[^>]*)?>/gi, '')
    .replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (_, label: string, url: string) => `${label} <${url}>`)
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/(^|\W)_(\S.*?)_(?=\W|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1');
  return unescapeEntities(text);
}

/** Cells of one Markdown table row (`| a | b |`), with escaped pipes kept in their cell. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => inlineText(cell.trim()));
}

/** A table as aligned columns; the last column wraps to what is left of `width`. */
function tableText(rows: string[][], width: number): string[] {
  const count = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: count }, (_, i) => Math.max(...rows.map((row) => columnsOf(row[i] ?? ''))));
  const lead = widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0);
  // A narrow last column reads worse than a wide table: it keeps at least 40 columns.
  const last = Math.max(40, width - lead);
  const lines: string[] = [];
  rows.forEach((row, index) => {
    const pad = (cell: string, i: number): string => cell + ' '.repeat(widths[i] - columnsOf(cell));
    const head = row.slice(0, -1).map((cell, i) => pad(cell, i));
    const [first, ...rest] = wrapColumns(row[count - 1] ?? '', last);
    lines.push([...head, first].join('  ').trimEnd());
    for (const more of rest) lines.push(`${' '.repeat(lead)}${more}`);
    if (index === 0) lines.push(widths.map((w, i) => '─'.repeat(i === count - 1 ? Math.min(w, last) : w)).join('  '));
  });
  return lines;
}

/** The summary's Markdown as terminal text, at most `width` columns where it can wrap. */
export function summaryText(markdown: string, width = 100): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim().startsWith('|')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i].trim().startsWith('|'); i++) {
        if (!/^\|?\s*:?-{3,}/.test(lines[i].trim())) rows.push(cells(lines[i]));
      }
      i -= 1;
      out.push(...tableText(rows, width));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const title = inlineText(heading[2]);
      out.push(title, (heading[1].length <= 3 ? '═' : '─').repeat(columnsOf(title)));
      continue;
    }
    const text = inlineText(line);
    if (text.trim() === '') {
      if (out.length > 0 && out[out.length - 1] !== '') out.push('');
      continue;
    }
    out.push(...wrapColumns(text, width));
  }
  return out.join('\n').trimEnd();
}
