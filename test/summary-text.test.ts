// The demo's summary renderer: what escapeText writes reads back as the text it escaped, and a
// report's table comes out as aligned columns.
import { describe, expect, it } from 'vitest';
import { code, escapeText, link, table } from '../src/report/markdown.ts';
import { summaryText, unescapeEntities } from './summary-text.ts';

describe('summaryText', () => {
  it('reads back every character escapeText escapes', () => {
    const hostile = 'dep_0001 is "live" & <b>|`[x](y)\\*~#!:@$ www.example.com \'q\'';
    expect(unescapeEntities(escapeText(hostile))).toBe(hostile);
    expect(summaryText(escapeText(hostile))).toBe(hostile);
  });

  it('renders a heading, a sentence and a table as a terminal shows them', () => {
    const markdown = [
      '### ✅ Deployment of Claw `claw-demo`: succeeded',
      '',
      `Deployment ${escapeText('dep_0001')} succeeded with status ${escapeText('"live"')}.`,
      '',
      table(
        ['Field', 'Value'],
        [
          ['Claw', code('claw-demo')],
          ['Deployment', link(code('dep_0001'), 'https://dashboard.example.com/d/1')],
          ['Outcome', '**succeeded**'],
          ['Reply', escapeText('a | b')],
        ],
      ),
      '',
      '<sub>[Workflow run](https://github.com/o/r/actions/runs/1)</sub>',
    ].join('\n');
    expect(summaryText(markdown)).toBe(
      [
        '✅ Deployment of Claw claw-demo: succeeded',
        '═'.repeat(42),
        '',
        'Deployment dep_0001 succeeded with status "live".',
        '',
        'Field       Value',
        `${'─'.repeat(10)}  ${'─'.repeat(44)}`,
        'Claw        claw-demo',
        'Deployment  dep_0001 <https://dashboard.example.com/d/1>',
        'Outcome     succeeded',
        'Reply       a | b',
        '',
        'Workflow run <https://github.com/o/r/actions/runs/1>',
      ].join('\n'),
    );
  });

  it('wraps a long last column under itself', () => {
    const text = summaryText(table(['Check', 'Failure'], [['refund', 'word '.repeat(30).trim()]]), 60);
    const lines = text.split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[3].startsWith(' '.repeat(8))).toBe(true);
  });
});
