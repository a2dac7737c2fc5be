// The bench's figures that the docs cite, by name, in test/bench/figures.json: one source for every
// figure a doc quotes. Each part of the bench that docs cite records its figures there (with
// --write), replacing all it recorded before, with the run's date, Node version and command; the
// docs carry `<!-- figure:NAME -->text<!-- /figure -->` inline and `<!-- figures:NAME -->` …
// `<!-- /figures:NAME -->` blocks, which `npm run generate` fills from the file and
// `npm run generate -- --check` (CI) holds to it (test/generated-files.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const FIGURES_FILE = 'test/bench/figures.json';

/** One figure: a number and its text as the docs show it, or a block of Markdown lines (a table). */
export interface Figure {
  value?: number | string;
  text?: string;
  lines?: string[];
}

export interface RecordedFigure extends Figure {
  part: string;
}

export interface PartRun {
  /** When the part ran (ISO 8601), on which Node, by which command. */
  run: string;
  node: string;
  command: string;
}

export interface FiguresFile {
  parts: Record<string, PartRun>;
  figures: Record<string, RecordedFigure>;
}

/** What a part of the bench measured: its RESULTS.md lines and its named figures. */
export interface Measured {
  lines: string[];
  figures: Record<string, Figure>;
}

/** A share as the docs show it: `count` of `runs`, to one decimal. */
export const share = (count: number, runs: number, digits = 1): Figure => ({
  value: runs ? count / runs : NaN,
  text: `${runs ? ((100 * count) / runs).toFixed(digits) : '—'}%`,
});

/** A fraction (0.043) as a percentage. */
export const percent = (fraction: number, digits = 1): Figure => ({
  value: fraction,
  text: `${(100 * fraction).toFixed(digits)}%`,
});

/** A number with its unit. */
export const amount = (value: number, digits = 0, unit = ''): Figure => ({
  value,
  text: `${Number.isFinite(value) ? value.toFixed(digits) : '—'}${unit}`,
});

/** A ratio (2.41×). */
export const times = (value: number, digits = 2): Figure => amount(value, digits, '×');

export const text = (value: string): Figure => ({ value, text: value });

export const block = (lines: string[]): Figure => ({ lines });

export const figuresPath = (root: string): string => join(resolve(root), FIGURES_FILE);

export function readFigures(root: string): FiguresFile {
  try {
    return JSON.parse(readFileSync(figuresPath(root), 'utf8')) as FiguresFile;
  } catch {
    return { parts: {}, figures: {} };
  }
}

/** `file` with `part`'s figures replaced by `figures` (names sorted, so a rerun diffs by value). */
export function withPart(file: FiguresFile, part: string, run: PartRun, figures: Record<string, Figure>): FiguresFile {
  const kept = Object.entries(file.figures).filter(([, f]) => f.part !== part);
  const added = Object.entries(figures).map(([name, f]): [string, RecordedFigure] => [name, { part, ...f }]);
  for (const [name] of added)
    if (kept.some(([k]) => k === name)) throw new Error(`figure ${name} is recorded by another part`);
  const sorted = <T>(entries: [string, T][]) => Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
  return {
    parts: sorted([...Object.entries(file.parts).filter(([k]) => k !== part), [part, run]]),
    figures: sorted([...kept, ...added]),
  };
}

/** Records `part`'s figures in test/bench/figures.json, formatted as prettier keeps the repository. */
export async function recordFigures(
  root: string,
  part: string,
  command: string,
  figures: Record<string, Figure>,
): Promise<void> {
  const run = { run: new Date().toISOString(), node: process.version, command };
  // The docs say how and when their figures were measured from the same file.
  const about = {
    [`${part}.command`]: text(command),
    [`${part}.run`]: text(`${run.run.slice(0, 10)} on Node ${run.node}`),
  };
  const next = withPart(readFigures(root), part, run, { ...figures, ...about });
  const prettier = (await import('prettier')).default;
  const path = figuresPath(root);
  const options = { ...(await prettier.resolveConfig(path)), parser: 'json' };
  writeFileSync(path, await prettier.format(JSON.stringify(next), options));
}
