import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultiSearch } from './multi-search.js';
import { unitsOf } from './reader-view.js';

/** The longest pattern ending at each unit, by brute force. */
function naive(patterns: string[], text: string): [number, number][] {
  const found: [number, number][] = [];
  for (let end = 1; end <= text.length; end++) {
    const longest = Math.max(0, ...patterns.filter((p) => text.slice(0, end).endsWith(p)).map((p) => p.length));
    if (longest) found.push([end - 1, longest]);
  }
  return found;
}
function scanned(search: MultiSearch, text: string): [number, number][] {
  const found: [number, number][] = [];
  search.scan(unitsOf(text), text.length, (last, length) => found.push([last, length]));
  return found;
}

describe('MultiSearch (Aho–Corasick)', () => {
  it('reports the longest pattern ending at each unit, as a brute-force search does', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 40 }),
        (patterns, text) => {
          expect(scanned(new MultiSearch(patterns), text)).toEqual(naive(patterns, text));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps its moves in maps when a table would be too large (a long secret of many distinct characters)', () => {
    const long = Array.from({ length: 4000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    const search = new MultiSearch([long, 'ab', 'b']);
    const text = `xab ${long.slice(0, 100)} ${long}!`;
    expect(scanned(search, text)).toEqual([
      [2, 2],
      [text.length - 2, long.length],
    ]);
  });
});
