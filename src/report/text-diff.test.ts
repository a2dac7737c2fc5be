// Long and multi-line values as a line diff: context, skip markers, and wrapping that keeps one
// edited sentence to one changed line.
import { describe, expect, it } from 'vitest';
import { isLongText, textDiff, textLines } from './text-diff.js';

const PERSONALITY = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the personality: be kind and precise.`);

describe('textDiff', () => {
  it('a 40-line personality with two lines edited: two - and two + lines, with context and skip markers', () => {
    const after = [...PERSONALITY];
    after[9] = 'Line 10 of the personality: be kind, precise and brief.';
    after[29] = 'Line 30: never promise a refund before checking the order.';
    const lines = textDiff(PERSONALITY.join('\n'), after.join('\n'));
    expect(lines.filter((l) => l.mark === '-').map((l) => l.text)).toEqual([PERSONALITY[9], PERSONALITY[29]]);
    expect(lines.filter((l) => l.mark === '+').map((l) => l.text)).toEqual([after[9], after[29]]);
    // 3 lines of context each side, the rest folded with how many were skipped.
    expect(lines.map((l) => (l.mark === '…' ? `… ${l.text}` : l.mark))).toEqual([
      '… 6 unchanged line(s)',
      ' ',
      ' ',
      ' ',
      '-',
      '+',
      ' ',
      ' ',
      ' ',
      '… 13 unchanged line(s)',
      ' ',
      ' ',
      ' ',
      '-',
      '+',
      ' ',
      ' ',
      ' ',
      '… 7 unchanged line(s)',
    ]);
  });

  it('a 2,000-character one-line paragraph with one sentence changed: one changed wrapped line', () => {
    const sentences = Array.from(
      { length: 31 },
      (_, i) => `Sentence ${i + 1} says something useful about refunds and orders here.`,
    );
    const before = sentences.join(' ');
    expect(before.length).toBeGreaterThanOrEqual(2000);
    expect(before.includes('\n')).toBe(false);
    const edited = [...sentences];
    edited[12] = 'Sentence 13 now says that refunds need an order number, which is far longer than it was before.';
    const lines = textDiff(before, edited.join(' '));
    expect(lines.filter((l) => l.mark === '-')).toHaveLength(1);
    expect(lines.filter((l) => l.mark === '+')).toEqual([{ mark: '+', text: `${edited[12]} ` }]);
    // No line compared is over 200 characters.
    expect(Math.max(...textLines(before).map((l) => l.length))).toBeLessThanOrEqual(200);
  });

  it('wraps a sentence longer than 200 characters at word boundaries, and a word longer still hard', () => {
    const long = `${'word '.repeat(100)}end.`;
    expect(textLines(long).every((l) => l.length <= 200)).toBe(true);
    expect(textLines(long).join('')).toBe(long);
    expect(textLines('x'.repeat(450)).map((l) => l.length)).toEqual([200, 200, 50]);
  });

  it('is for strings with a newline or over 80 characters', () => {
    expect(isLongText('short')).toBe(false);
    expect(isLongText('a\nb')).toBe(true);
    expect(isLongText('x'.repeat(81))).toBe(true);
    expect(isLongText(42)).toBe(false);
  });
});
