import { describe, expect, it } from 'vitest';
import { capMarkdown, code, escapeText, link, table } from './markdown.js';

/** Cells of a table row as GitHub splits them: on pipes not escaped by a backslash. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/);
}

const HOSTILE = [
  'a | b | c',
  'x\r| y',
  'line\nbreak',
  '`code` end',
  '``` fence',
  '<img src=x onerror=alert(1)>',
  '[Re-authenticate](https://evil.example/login)',
  '![pixel](https://evil.example/p.png)',
  'https://evil.example/auto',
  'www.evil.example',
  'a\\|b',
  'ends with \\',
  '<script>alert(1)</script>',
  '&lt;already&gt;',
  '**bold** _em_ ~~strike~~',
];

describe('escapeText and code', () => {
  it.each(HOSTILE)('a cell holding %j keeps the table whole and renders nothing', (value) => {
    for (const cell of [escapeText(value), code(value)]) {
      const row = `| ${cell} | next |`;
      expect(cells(row)).toHaveLength(2);
      expect(cell).not.toMatch(/[\r\n]/);
      expect(cell).not.toMatch(/<(?!\/?code>)/); // no HTML but our own code element
      expect(cell).not.toMatch(/\]\(|https?:\/\/|www\./); // no link, image or autolink
    }
  });

  it('shows plain ids as a backtick code span', () => {
    expect(code('dep_0001')).toBe('`dep_0001`');
    expect(code('rolling_out')).toBe('`rolling_out`');
  });
});

describe('link', () => {
  it('links only http(s) URLs, encoded so they cannot end the link or the cell', () => {
    expect(link('x', 'https://dash.example/d/1')).toBe('[x](https://dash.example/d/1)');
    expect(link('x', 'javascript:alert(1)')).toBe('x');
    expect(link('x', 'data:text/html,hi')).toBe('x');
    expect(link('x', 'https://dash.example/a)b|c')).toBe('[x](https://dash.example/a%29b%7Cc)');
  });
});

describe('capMarkdown', () => {
  it('cuts at a line and says how much was left out', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [String(i), 'x'.repeat(100)]);
    const markdown = table(['n', 'text'], rows);
    const capped = capMarkdown(markdown, 64 * 1024);
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(64 * 1024);
    expect(capped).toMatch(/\d+ more line\(s\) left out: the summary is capped at 64 KiB/);
    expect(capMarkdown('short')).toBe('short');
  });
});
