// action.yml's inputs and docs/reference.md's table are generated from the input rows, and the
// bench's figures the docs cite from test/bench/figures.json: a row or a figure changed without
// `npm run generate` fails here (and in CI's `npm run generate -- --check`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUTS } from '../src/contract/inputs.ts';
import { COMMANDS } from '../src/core/run.ts';
import { type PartRun, readFigures, withPart } from './bench/figures.ts';
import { fillFigures, generatedFiles, staleFiles } from './generated-files.ts';

describe('the files generated from the input rows', () => {
  it('are what the rows give', async () => {
    expect(await staleFiles()).toEqual([]);
  });

  it("give action.yml every row, with its words and default, in the rows' order", async () => {
    const action = (await generatedFiles()).find((f) => f.path === 'action.yml')!;
    const inputs = (parse(action.text) as { inputs: Record<string, Record<string, unknown>> }).inputs;
    expect(Object.keys(inputs)).toEqual(INPUTS.map((i) => i.name));
    for (const row of INPUTS) {
      expect(inputs[row.name].description).toBe(row.description);
      expect(inputs[row.name].required).toBe(row.required === true);
      if (!row.required) expect(inputs[row.name].default).toBe(row.default ?? '');
    }
  });

  it("name every command in the command input's words", () => {
    const row = INPUTS.find((i) => i.name === 'command')!;
    for (const { name } of COMMANDS) {
      expect(row.description, `action.yml's command names ${name}`).toMatch(new RegExp(`\\b${name}\\b`));
      expect(row.reference, `docs/reference.md's command names ${name}`).toContain(`\`${name}\``);
    }
  });

  it('fail when a row changes and the files do not follow', async () => {
    const row = INPUTS.find((i) => i.name === 'bake')! as { description: string };
    const kept = row.description;
    row.description = `${kept} Changed.`;
    try {
      expect(await staleFiles()).toEqual(['action.yml']);
    } finally {
      row.description = kept;
    }
  });
});

describe("the bench's figures in the docs", () => {
  const root = join(import.meta.dirname, '..');
  const recorded = readFigures(root);

  it('cite in docs/comparing.md only figures the bench recorded, each as recorded', async () => {
    const doc = (await generatedFiles()).find((f) => f.path === 'docs/comparing.md')!;
    const inline = [...doc.text.matchAll(/<!-- figure:([\w.-]+) -->([\s\S]*?)<!-- \/figure -->/g)];
    const blocks = [...doc.text.matchAll(/<!-- figures:([\w.-]+) -->/g)].map((m) => m[1]);
    expect(inline.length).toBeGreaterThan(10);
    expect(blocks.length).toBeGreaterThan(3);
    for (const [, name, shown] of inline) expect(shown, name).toBe(recorded.figures[name]?.text);
    for (const name of blocks) expect(recorded.figures[name], name).toBeDefined();
    expect(doc.text).toBe(readFileSync(join(root, 'docs/comparing.md'), 'utf8'));
  });

  it('record for every figure the part that measured it, and that part its run and command', () => {
    for (const [name, f] of Object.entries(recorded.figures)) {
      const run = recorded.parts[f.part];
      expect(run, name).toBeDefined();
      expect(run.command).toMatch(new RegExp(`^npm run bench -- --only ${f.part} --runs \\d+ --write$`));
      expect(Date.parse(run.run)).not.toBeNaN();
    }
  });

  const figures = {
    'a.share': { part: 'a', value: 0.045, text: '4.5%' },
    'a.table': { part: 'a', lines: ['| x | y |', '|---|---|', '| 1 | 2 |'] },
    'a.line': { part: 'a', value: 'Comparing …', text: 'Comparing …' },
  };

  it('replace a stale figure with the recorded one, inline and in blocks', () => {
    const doc = [
      'False alarms: <!-- figure:a.share -->4.8%<!-- /figure -->, and',
      '<!-- figures:a.table -->',
      '| old |',
      '<!-- /figures:a.table -->',
      '<!-- figures:a.line -->',
      '<!-- /figures:a.line -->',
    ].join('\n');
    expect(fillFigures(doc, figures, 'x.md')).toBe(
      [
        'False alarms: <!-- figure:a.share -->4.5%<!-- /figure -->, and',
        '<!-- figures:a.table -->\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n<!-- /figures:a.table -->',
        '<!-- figures:a.line -->\n\n```text\nComparing …\n```\n\n<!-- /figures:a.line -->',
      ].join('\n'),
    );
  });

  it('refuse a figure the bench never recorded, or a table cited inline', () => {
    expect(() => fillFigures('x <!-- figure:a.gone -->6.3%<!-- /figure -->', figures, 'x.md')).toThrow(
      /x\.md cites a\.gone: not in test\/bench\/figures\.json/,
    );
    expect(() => fillFigures('x <!-- figure:a.table -->?<!-- /figure -->', figures, 'x.md')).toThrow(/a\.table/);
    expect(() => fillFigures('x <!-- figure:toString -->?<!-- /figure -->', figures, 'x.md')).toThrow(/toString/);
  });

  it('refuse an inline figure that starts a line (Markdown would read an HTML block)', () => {
    expect(() =>
      fillFigures('found\n<!-- figure:a.share -->4.5%<!-- /figure --> of the time', figures, 'x.md'),
    ).toThrow(/x\.md: the figure a\.share starts a line/);
  });

  it("replace a part's figures when it runs again, dropping the names it no longer records", () => {
    const run: PartRun = {
      run: '2026-12-02T00:00:00.000Z',
      node: 'v24.0.0',
      command: 'npm run bench -- --only a --runs 3 --write',
    };
    const file = withPart({ parts: { a: run }, figures }, 'a', run, { 'a.share': { value: 0.05, text: '5.0%' } });
    expect(file.figures).toEqual({ 'a.share': { part: 'a', value: 0.05, text: '5.0%' } });
    expect(() => withPart(file, 'b', run, { 'a.share': { text: '1%' } })).toThrow(/recorded by another part/);
  });
});
