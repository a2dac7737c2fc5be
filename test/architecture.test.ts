// ARCHITECTURE.md's figures are counted, not remembered: the page holds what the script counts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE, withFigures } from './architecture-figures.ts';

describe("ARCHITECTURE.md's figures", () => {
  // Within a tenth (or 50 lines): the page says how big each part is, and a change of a few
  // lines should not send every branch back to the script; a part that grew or shrank does.
  it('are the lines src/ holds now, within a tenth (npm run docs:figures writes them)', () => {
    const page = readFileSync(PAGE, 'utf8');
    const figures = (text: string): number[] =>
      [...text.slice(text.indexOf('## Folders')).matchAll(/\|\s+(\d+) \|$/gm)].map((m) => Number(m[1]));
    const [written, counted] = [figures(page), figures(withFigures(page))];
    expect(written.length, 'stale: run npm run docs:figures').toBe(counted.length);
    written.forEach((n, i) =>
      expect(
        Math.abs(n - counted[i]),
        `stale: run npm run docs:figures (${n} against ${counted[i]})`,
      ).toBeLessThanOrEqual(Math.max(50, counted[i] / 10)),
    );
  });

  it('change when a folder grows, and a file of src/ outside every row is refused', () => {
    const page = readFileSync(PAGE, 'utf8');
    const stale = page.replace(/(\| `checks\/` .*\| +)\d+ \|/, '$1 1 |');
    expect(stale).not.toBe(page);
    expect(withFigures(stale)).toBe(withFigures(page));
    const noChecksRow = page.replace(/^\| `checks\/` .*\n/m, '');
    expect(() => withFigures(noChecksRow)).toThrow(/no row for src\/checks\//);
  });
});
