// A user's YAML file (checks, manifest, config, tests or vars file) is parsed only within a bound of
// tokens counted by the lexer first: 4 MiB of `[a,a,…]` or `- a` lines once built a document of 2
// million items (20 s, 2.2 GB) before any bound. Work is asserted, not time: the document builder
// is never called past the bound, and the lexer's pass stops where the bound is passed.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FileError,
  MAX_BLOCK_DEPTH,
  MAX_YAML_TOKENS,
  YamlFile,
  parseYamlValue,
  yamlShapeProblem,
} from './yaml-file.js';

/** Calls of the document builders, counted by a wrapper around the real ones. */
const built = vi.hoisted(() => ({ parseDocument: 0, parse: 0 }));
vi.mock('yaml', async (importOriginal) => {
  const real = await importOriginal<typeof import('yaml')>();
  return {
    ...real,
    parseDocument: (...args: Parameters<typeof real.parseDocument>) => {
      built.parseDocument += 1;
      return real.parseDocument(...args);
    },
    parse: (...args: Parameters<typeof real.parse>) => {
      built.parse += 1;
      return real.parse(...args);
    },
  };
});

const MiB = 1 << 20;
/** Flat documents of about 4 MiB (under the file size bound), each millions of tokens. */
const shapes: Record<string, string> = {
  '`[a,a,…]`': `[${'a,'.repeat(2 * MiB - 2)}a]`,
  '`- a` lines': '- a\n'.repeat(MiB),
  'a mapping of short keys': Array.from({ length: 400_000 }, (_, i) => `${i}: 1`).join('\n'),
  'empty lines': '\n'.repeat(4 * MiB),
  'comment lines': '#\n'.repeat(2 * MiB),
  '`[,,,…]`': `[${','.repeat(4 * MiB - 2)}]`,
};

beforeEach(() => {
  built.parseDocument = 0;
  built.parse = 0;
});

describe(`a YAML text of more than ${MAX_YAML_TOKENS} tokens is refused before its document is built`, () => {
  it.each(Object.entries(shapes))('%s: one error with the file, the line and the bound', (_name, text) => {
    expect(text.length).toBeLessThanOrEqual(4 * MiB);
    let error: unknown;
    try {
      YamlFile.parse('checks.yml', text, 'checks file');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FileError);
    expect((error as Error).message).toMatch(
      /^checks\.yml, line \d+: the checks file has more than 250,000 YAML tokens \(values, keys, indicators, spaces and line breaks\): expected at most 250,000\.$/,
    );
    expect(built.parseDocument).toBe(0);
    // The lexer's pass stopped at the bound: well before the end of the text.
    const shape = yamlShapeProblem(text)!;
    expect(shape.offset).toBeLessThan(MAX_YAML_TOKENS * 3);
    expect(shape.offset).toBeLessThan(text.length / 4);
  });

  it('the line named is where the bound is passed', () => {
    const text = '- a\n'.repeat(MAX_YAML_TOKENS);
    // Four tokens a line (`-`, a space, `a`, the line break): the bound passes on the line after 62,500.
    expect(() => YamlFile.parse('f.yml', text, 'manifest')).toThrow(/^f\.yml, line 62501: the manifest has more than/);
  });

  it('the count is exact: at the bound the text is parsed, one token past it is refused', () => {
    const at = '- a\n'.repeat(MAX_YAML_TOKENS / 4);
    expect(yamlShapeProblem(at)).toBeUndefined();
    expect(yamlShapeProblem(`${at}-`)?.problem).toMatch(/more than 250,000 YAML tokens/);
  });

  it('control: a file within the bound is parsed, once', () => {
    const file = YamlFile.parse('checks.yml', 'checks:\n  - name: a\n    send: hi\n', 'checks file');
    expect(file.doc.toJS()).toEqual({ checks: [{ name: 'a', send: 'hi' }] });
    expect(built.parseDocument).toBe(1);
  });

  it('a value read from a file a config names (parseYamlValue) is held to the same bound, with its line', () => {
    expect(() => parseYamlValue(shapes['`- a` lines'])).toThrow(
      /^it has more than 250,000 YAML tokens .* by line 62501: expected at most 250,000$/,
    );
    expect(built.parse).toBe(0);
    expect(parseYamlValue('a: [1, 2]')).toEqual({ a: [1, 2] });
    expect(built.parse).toBe(1);
  });

  it('deep flow nesting is still refused at its line', () => {
    expect(() => YamlFile.parse('f.yml', `a: 1\nb: ${'['.repeat(300)}`, 'checks file')).toThrow(
      /^f\.yml, line 2: the checks file is nested \[ \] or \{ \} deeper than 256 levels: expected at most 256\.$/,
    );
    expect(built.parseDocument).toBe(0);
  });
});

describe('plain data through anchor chains (a JSON Schema in each of many assertions)', () => {
  /** `length` values, each a mapping naming the one before it by its anchor: value i expands to i+1 mappings. */
  const chain = (length: number) =>
    Array.from({ length }, (_, i) => (i === 0 ? '- &a0 {type: object}' : `- &a${i} {items: *a${i - 1}}`)).join('\n');

  it('finds every alias’s anchor in one pass over the file, never one walk of the document per alias', async () => {
    const { Alias } = await import('yaml');
    const resolve = vi.spyOn(Alias.prototype, 'resolve');
    const file = YamlFile.parse('checks.yml', chain(50), 'checks file');
    const items = (file.doc.contents as unknown as { items: Parameters<YamlFile['plain']>[0][] }).items;
    const last = file.plain(items[49]) as Record<string, unknown>;
    let depth = 0;
    for (let at = last; at.items; at = at.items as Record<string, unknown>) depth += 1;
    expect(depth).toBe(49);
    expect(resolve).not.toHaveBeenCalled();
    resolve.mockRestore();
  });

  it('bounds the values all of a file’s plain values expand to, each under its own bound', () => {
    // 800 values of up to 801 mappings each: about 320,000 in all, past the file's bound.
    const file = YamlFile.parse('checks.yml', chain(800), 'checks file');
    const items = (file.doc.contents as unknown as { items: Parameters<YamlFile['plain']>[0][] }).items;
    let read = 0;
    const all = () => {
      for (const item of items) {
        file.plain(item);
        read += 1;
      }
    };
    expect(all).toThrow(FileError);
    expect(all).toThrow(
      /checks\.yml, line \d+: the file's values written as plain data expand to more than 250,000 values/,
    );
    expect(read).toBeLessThan(800);
  });
});

describe(`block nesting deeper than ${MAX_BLOCK_DEPTH} levels is refused before its document is built`, () => {
  const indented = (levels: number): string =>
    Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' end\n';
  const shapes: Record<string, string> = {
    '`- - - …` on one line': `a: 1\nb:\n  ${'- '.repeat(900)}x\n`,
    'indentation 900 deep': indented(900),
    'a sequence indented 900 deep': Array.from({ length: 900 }, (_, i) => `${' '.repeat(i * 2)}-`).join('\n') + ' x\n',
  };
  it.each(Object.entries(shapes))('%s: one error with the file, the line and the bound', (_name, text) => {
    let error: unknown;
    try {
      YamlFile.parse('f.yml', text, 'checks file');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FileError);
    expect((error as Error).message).toMatch(
      /^f\.yml, line \d+: the checks file is nested deeper than 256 block levels \(indentation, or `- - …` on a line\): expected at most 256\.$/,
    );
    expect(built.parseDocument).toBe(0);
  });

  it('names the line where the bound is passed, and the count is exact', () => {
    expect(() => YamlFile.parse('f.yml', indented(300), 'checks file')).toThrow(/^f\.yml, line 257: /);
    expect(yamlShapeProblem(indented(MAX_BLOCK_DEPTH))).toBeUndefined();
    expect(yamlShapeProblem(indented(MAX_BLOCK_DEPTH + 1))?.problem).toMatch(/deeper than 256 block levels/);
    expect(yamlShapeProblem(`x: ${'- '.repeat(MAX_BLOCK_DEPTH - 1)}y`)).toBeUndefined();
  });

  it('control: ordinary nesting, block scalars, quoted lines and flow collections are within it', () => {
    const text = "a:\n  - b: |\n      x\n        y\n    c: 'q\n      r' # n\n  - [1, '- 2']\n  - - - z\n";
    expect(yamlShapeProblem(text)).toBeUndefined();
    expect(YamlFile.parse('f.yml', text, 'checks file').doc.toJS()).toEqual({
      a: [{ b: 'x\n  y\n', c: 'q r' }, [1, '- 2'], [['z']]],
    });
  });
});
