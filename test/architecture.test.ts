// ARCHITECTURE.md's folders table covers src/: every file falls in a row. Its "lines" column is
// generated (npm run docs:figures) and checked fresh by .ci/run, not here: a test holding the
// figures failed on every branch that grew a folder.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE, withFigures } from './architecture-figures.ts';

describe("ARCHITECTURE.md's folders table and its figures", () => {
  it('has a row for every file of src/, and a figure in each row', () => {
    const page = readFileSync(PAGE, 'utf8');
    const figures = (text: string): number[] =>
      [...text.slice(text.indexOf('## Folders')).matchAll(/\|\s+(\d+) \|$/gm)].map((m) => Number(m[1]));
    const counted = figures(withFigures(page));
    expect(figures(page).length).toBe(counted.length);
    expect(counted.every((n) => n > 0)).toBe(true);
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
