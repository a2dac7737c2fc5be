// ARCHITECTURE.md's figures are counted, not remembered: the page holds what the script counts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE, withFigures } from './architecture-figures.ts';

describe("ARCHITECTURE.md's figures", () => {
  it('are the lines src/ holds now (npm run docs:figures writes them)', () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page, 'stale: run npm run docs:figures').toBe(withFigures(page));
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
