// The files generated from the input rows (src/inputs.ts and each feature's inputs.ts): action.yml's
// `inputs:` and docs/reference.md's table of inputs. `npm run generate` writes them;
// `npm run generate -- --check` (CI) and test/generated-files.test.ts fail when one is stale.
// Run by Node 24 with the sources' loader (package.json's script).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import prettier from 'prettier';
import { stringify } from 'yaml';
import { INPUTS } from '../src/inputs.ts';

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

/** Each generated file as it should be, formatted as prettier keeps the repository. */
export async function generatedFiles(): Promise<{ path: string; text: string }[]> {
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
  return Promise.all(
    files.map(async ({ path, start, end, body, parser }) => {
      const file = join(ROOT, path);
      const options = { ...(await prettier.resolveConfig(file)), parser };
      const text = between(readFileSync(file, 'utf8'), start, end, body, path);
      return { path, text: await prettier.format(text, options) };
    }),
  );
}

/** The generated files whose text differs from what the rows give. */
export async function staleFiles(): Promise<string[]> {
  const files = await generatedFiles();
  return files.filter(({ path, text }) => readFileSync(join(ROOT, path), 'utf8') !== text).map((f) => f.path);
}

if (import.meta.main) {
  if (process.argv.includes('--check')) {
    const stale = await staleFiles();
    if (stale.length) {
      console.error(`Generated from the input rows and stale: ${stale.join(', ')}. Run 'npm run generate' and commit.`);
      process.exit(1);
    }
    console.log('generated files: action.yml and docs/reference.md match the input rows.');
  } else {
    for (const { path, text } of await generatedFiles()) writeFileSync(join(ROOT, path), text);
    console.log('Wrote action.yml and docs/reference.md from the input rows.');
  }
}
