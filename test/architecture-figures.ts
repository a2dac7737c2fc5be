// ARCHITECTURE.md's figures, counted from src/ rather than written by hand: the "lines" column of
// its folders table (non-test TypeScript, as `wc -l` counts), a generated column like dist/.
// `npm run docs:figures` writes them; `--check` (run by .ci/run, as check-dist is) fails when the
// page holds others. test/architecture.test.ts holds only that every file of src/ has a row, so an
// ordinary change of src/ fails no test.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './structure/imports.ts';

export const PAGE = join(ROOT, 'ARCHITECTURE.md');
const SRC = join(ROOT, 'src');

/** Every non-test TypeScript file of src/, relative to it (`checks/suite.ts`), and its lines. */
function sourceLines(): Map<string, number> {
  const lines = new Map<string, number>();
  (function walk(dir: string) {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name))
        lines.set(relative(SRC, path), readFileSync(path, 'utf8').split('\n').length - 1);
    }
  })(SRC);
  return lines;
}

const ROW = /^\|(.*?)\|(.*)\|(.*)\|$/;

/**
 * The page with its folders table's last column counted afresh. A row's first cell names root
 * files (`main.ts`) and folders (`cli/`); the row that names `*.ts` takes the root files no other
 * row names. Throws when a file of src/ falls in no row.
 */
export function withFigures(page: string): string {
  const lines = page.split('\n');
  const start = lines.indexOf('## Folders');
  const rows: number[] = [];
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('## '); i++) if (ROW.test(lines[i])) rows.push(i);
  if (start < 0 || rows.length < 3) throw new Error('ARCHITECTURE.md has no "## Folders" table');
  const files = sourceLines();
  const named = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const counted = new Set<string>();
  const owns = (names: string[], file: string): boolean =>
    names.some((n) => (n.endsWith('/') ? file.startsWith(n) : file === n));
  const body = rows.slice(2).map((i) => named(ROW.exec(lines[i])![1]));
  for (const names of body) for (const file of files.keys()) if (owns(names, file)) counted.add(file);
  const total = (names: string[]): number => {
    let sum = 0;
    for (const [file, n] of files) {
      const rest = names.includes('*.ts') && !file.includes('/') && !counted.has(file);
      if (owns(names, file) || rest) sum += n;
    }
    return sum;
  };
  const unowned = [...files.keys()].filter((f) => !counted.has(f) && f.includes('/'));
  if (unowned.length) throw new Error(`ARCHITECTURE.md's folders table has no row for src/${unowned[0]}`);
  const figures = body.map((names) => String(total(names)));
  const width = Math.max('lines'.length, ...figures.map((f) => f.length));
  const cell = (i: number): string => ['lines', '-'.repeat(width - 1) + ':', ...figures][i];
  rows.forEach((line, i) => {
    const [, first, middle] = ROW.exec(lines[line])!;
    lines[line] = `|${first}|${middle}| ${cell(i).padStart(width)} |`;
  });
  return lines.join('\n');
}

if (import.meta.main) {
  const page = readFileSync(PAGE, 'utf8');
  const counted = withFigures(page);
  const write = process.argv.includes('--write');
  if (write && counted !== page) writeFileSync(PAGE, counted);
  const stale = write ? 'figures written' : 'figures stale (npm run docs:figures writes them)';
  console.log(`ARCHITECTURE.md: ${counted === page ? 'figures current' : stale}`);
  if (!write && counted !== page && process.argv.includes('--check')) process.exitCode = 1;
}
