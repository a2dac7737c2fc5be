// compare's baseline file under a hostile hand: 4 MiB of tiny items. JSON is read as JSON; the
// YAML document (for a file that is not JSON, or to name a mistake's line) is built only within the
// YAML reader's bound of tokens: past it a YAML file is refused at its line, and a JSON file's
// mistake is named by its path alone. Work is asserted, not time: the builder is never called.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseBaselineFile } from './baseline-file.js';

const built = vi.hoisted(() => ({ documents: 0 }));
vi.mock('yaml', async (importOriginal) => {
  const real = await importOriginal<typeof import('yaml')>();
  return {
    ...real,
    parseDocument: (...args: Parameters<typeof real.parseDocument>) => {
      built.documents += 1;
      return real.parseDocument(...args);
    },
  };
});

beforeEach(() => {
  built.documents = 0;
});

const MiB = 1 << 20;

describe('a baseline file of 4 MiB of tiny items', () => {
  it('JSON with 2 million results: its mistake is named by its path, and no YAML document is built', () => {
    const text = `{"results": {"results": [${'0,'.repeat(2 * MiB - 20)}0]}}`;
    expect(text.length).toBeLessThanOrEqual(4 * MiB);
    expect(() => parseBaselineFile('before.json', text, 'c1')).toThrow(
      /^before\.json: results\.results: expected at most 5000 results\.$/,
    );
    expect(built.documents).toBe(0);
  });

  it('YAML with a million items: refused at the line of the bound, before its document is built', () => {
    const text = `results:\n  results:\n${'    - a\n'.repeat(MiB / 2)}`;
    expect(() => parseBaselineFile('before.yml', text, 'c1')).toThrow(
      /^before\.yml, line \d+: the baseline file has more than 250,000 YAML tokens .*: expected at most 250,000\.$/,
    );
    expect(built.documents).toBe(0);
  });

  it("control: a small JSON file's mistake still names its line", () => {
    expect(() => parseBaselineFile('before.json', '{\n"results": {"results": 5}}', 'c1')).toThrow(
      /^before\.json, line 2: results\.results: expected a checks output/,
    );
    expect(built.documents).toBe(1);
  });
});
