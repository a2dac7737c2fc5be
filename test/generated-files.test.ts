// action.yml's inputs and docs/reference.md's table are generated from the input rows: a row
// changed without `npm run generate` fails here (and in CI's `npm run generate -- --check`).
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUTS } from '../src/inputs.ts';
import { COMMANDS } from '../src/run.ts';
import { generatedFiles, staleFiles } from './generated-files.ts';

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
