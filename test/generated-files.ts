// The files generated from the input rows (src/contract/inputs.ts and each feature's inputs.ts): action.yml's
// `inputs:` and docs/reference.md's table of inputs; and the bench's figures the docs cite, filled
// from test/bench/figures.json (test/bench/figures.ts) into every doc that names one. `npm run
// generate` writes them; `npm run generate -- --check` (CI) and test/generated-files.test.ts fail
// when one is stale or a doc names a figure the bench never recorded.
// Run by Node 24 with the sources' loader (package.json's script).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import prettier from 'prettier';
import { stringify } from 'yaml';
import { INPUTS } from '../src/contract/inputs.ts';
import { FIGURES_FILE, type FiguresFile, type RecordedFigure, readFigures } from './bench/figures.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** A YAML scalar as action.yml writes it: plain where YAML allows, else quoted. */
const scalar = (value: string): string => stringify(value, { lineWidth: 0, singleQuote: true }).trimEnd();

/** action.yml's `inputs:` block, from the rows. */
function actionInputs(): string {
  return INPUTS.map((i) =>
    [
      `  ${i.name}:`,
      `    description: ${scalar(i.description)}`,
      `    required: ${i.required ? 'true' : 'false'}`,
      ...(i.required ? [] : [`    default: ${scalar(i.default ?? '')}`]),
    ].join('\n'),
  ).join('\n');
}

/** docs/reference.md's table of inputs, from the rows. */
function referenceInputs(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [
    '| Input | Default | Meaning |',
    '| --- | --- | --- |',
    ...INPUTS.map(
      (i) =>
        `| \`${i.name}\` | ${i.required ? 'required' : i.default ? `\`${i.default}\`` : ''} | ${cell(i.reference)} |`,
    ),
  ].join('\n');
}

/** `text` with what lies between `start` (a line) and `end` replaced by `body`. */
function between(text: string, start: string, end: string, body: string, path: string): string {
  const a = text.indexOf(start);
  const b = a < 0 ? -1 : text.indexOf(end, a + start.length);
  if (a < 0 || b < 0) throw new Error(`${path}: no "${start.trim()}" … "${end.trim()}" to generate into`);
  return `${text.slice(0, a + start.length)}${body}${text.slice(b)}`;
}

/** An inline figure: `<!-- figure:NAME -->text<!-- /figure -->`. */
const INLINE = /<!-- figure:([\w.-]+) -->([\s\S]*?)<!-- \/figure -->/g;
/** A block of figures (a table, or a line shown as code): `<!-- figures:NAME -->` … `<!-- /figures:NAME -->`. */
const BLOCK = /<!-- figures:([\w.-]+) -->\n[\s\S]*?<!-- \/figures:\1 -->/g;

/** A block figure's Markdown: its lines, or its text as a code block. */
const blockOf = (f: RecordedFigure): string =>
  f.lines ? f.lines.join('\n') : ['```text', f.text ?? '', '```'].join('\n');

/**
 * `text` (the doc at `path`) with every figure it names filled from `figures`; throws naming each
 * figure it names that the bench never recorded (or recorded in the other form).
 */
export function fillFigures(text: string, figures: FiguresFile['figures'], path: string): string {
  // A line that starts with `<!--` opens an HTML block: Markdown would show the rest of the
  // paragraph unformatted (and prettier splits it off).
  const opening = /^[ \t]*<!-- figure:([\w.-]+)/m.exec(text);
  if (opening) throw new Error(`${path}: the figure ${opening[1]} starts a line; put a word before it`);
  const missing: string[] = [];
  const known = (name: string, inline: boolean): RecordedFigure | undefined => {
    const f = Object.hasOwn(figures, name) ? figures[name] : undefined;
    if (!f || (inline ? f.text === undefined : f.lines === undefined && f.text === undefined)) missing.push(name);
    return f;
  };
  const filled = text
    .replace(BLOCK, (whole, name: string) => {
      const f = known(name, false);
      return f ? `<!-- figures:${name} -->\n\n${blockOf(f)}\n\n<!-- /figures:${name} -->` : whole;
    })
    .replace(INLINE, (whole, name: string) => {
      const f = known(name, true);
      return f?.text !== undefined ? `<!-- figure:${name} -->${f.text}<!-- /figure -->` : whole;
    });
  if (missing.length)
    throw new Error(
      `${path} cites ${missing.join(', ')}: not in ${FIGURES_FILE}. Run the bench part that records it with --write (docs/comparing.md names the command).`,
    );
  return filled;
}

/** The docs that cite the bench's figures: README.md and docs/*.md naming one. */
function citingDocs(root: string): string[] {
  const docs = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)].filter((p) =>
    p.endsWith('.md'),
  );
  return docs.filter((p) => p !== 'docs/reference.md' && /<!-- figures?:/.test(readFileSync(join(root, p), 'utf8')));
}

/** Each generated file as it should be, formatted as prettier keeps the repository. */
export async function generatedFiles(): Promise<{ path: string; text: string }[]> {
  const figures = readFigures(ROOT).figures;
  const cited = await Promise.all(
    citingDocs(ROOT).map(async (path) => {
      const file = join(ROOT, path);
      const options = { ...(await prettier.resolveConfig(file)), parser: 'markdown' };
      return { path, text: await prettier.format(fillFigures(readFileSync(file, 'utf8'), figures, path), options) };
    }),
  );
  const files = [
    { path: 'action.yml', start: '\ninputs:\n', end: '\noutputs:', body: actionInputs(), parser: 'yaml' },
    {
      path: 'docs/reference.md',
      start: '\n## Inputs\n\n',
      end: '\n\nA bad input fails the step',
      body: referenceInputs(),
      parser: 'markdown',
    },
  ];
  const rows = await Promise.all(
    files.map(async ({ path, start, end, body, parser }) => {
      const file = join(ROOT, path);
      const options = { ...(await prettier.resolveConfig(file)), parser };
      const text = between(readFileSync(file, 'utf8'), start, end, body, path);
      return { path, text: await prettier.format(text, options) };
    }),
  );
  return [...rows, ...cited];
}

/** The generated files whose text differs from what the rows give. */
export async function staleFiles(): Promise<string[]> {
  const files = await generatedFiles();
  return files.filter(({ path, text }) => readFileSync(join(ROOT, path), 'utf8') !== text).map((f) => f.path);
}

if (import.meta.main) {
  const files = await generatedFiles().catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
  const names = files.map((f) => f.path).join(', ');
  if (process.argv.includes('--check')) {
    const stale = files.filter(({ path, text }) => readFileSync(join(ROOT, path), 'utf8') !== text).map((f) => f.path);
    if (stale.length) {
      console.error(
        `Generated from the input rows or ${FIGURES_FILE} and stale: ${stale.join(', ')}. Run 'npm run generate' and commit.`,
      );
      process.exit(1);
    }
    console.log(`generated files: ${names} match the input rows and ${FIGURES_FILE}.`);
  } else {
    for (const { path, text } of files) writeFileSync(join(ROOT, path), text);
    console.log(`Wrote ${names} from the input rows and ${FIGURES_FILE}.`);
  }
}
