// A fork's config naming Object.prototype's members where the reader looks a name up in a table
// (top-level keys, test options, factuality's categories): each is refused as an unknown name,
// never read as the table's inherited member (round 5's attack on the assertion registry).
import { describe, expect, it } from 'vitest';
import { parseChecks } from '../load.js';

const KEY = { OPENAI_API_KEY: 'sk-test-0123456789abcdef' };
const error = (text: string): string => {
  try {
    parseChecks('promptfooconfig.yaml', text, KEY);
  } catch (err) {
    return (err as Error).message;
  }
  return 'read without an error';
};
const config = (extra: string, options = ''): string =>
  `prompts: ["{{q}}"]\n${extra}tests:\n  - vars: {q: a}\n${options}    assert: [{type: factuality, value: a}]\n`;

describe('names inherited from Object.prototype', () => {
  // `__proto__` is not among them: the YAML reader does not make it an own key, so it reads as absent.
  for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    it(`a top-level key '${name}' is unknown, not refused with a function's text`, () => {
      const message = error(config(`${name}: 1\n`));
      expect(message).toMatch(/^promptfooconfig\.yaml, line 2: .*unknown/i);
      expect(message).not.toMatch(/function|native code|\[object/);
    });

    it(`a test option '${name}' is an option the reader does not know, not refused with a function's text`, () => {
      expect(error(config('', `    options: {${name}: 1}\n`))).not.toMatch(/function|native code|\[object/);
    });

    it(`a factuality category '${name}' is an error naming the categories`, () => {
      const message = error(config('', `    options: {factuality: {${name}: 1}}\n`));
      expect(message).toMatch(
        /'factuality' has .*expected scores for subset, superset, agree, disagree, differButFactual/,
      );
    });
  }

  it('control: a known category and option read as before', () => {
    expect(error(config('', '    options: {factuality: {disagree: 1}}\n'))).toBe('read without an error');
  });
});

describe('a __proto__ key in a config', () => {
  // Assigned, it set the mapping's prototype: its keys passed every allow-list (read by
  // Object.keys) yet were read through (a refused key, an assertion's type).
  it('at the top is an unknown key at its line, not a prototype', () => {
    expect(error(config('__proto__: {redteam: {purpose: x}}\n'))).toMatch(
      /^promptfooconfig\.yaml, line 2: .*unknown.*'__proto__'/i,
    );
  });

  it("in an assertion is an unknown key, not the assertion's type", () => {
    const text = `prompts: ["{{q}}"]\ntests:\n  - vars: {q: a}\n    assert:\n      - __proto__: {type: equals, value: zzz}\n`;
    expect(error(text)).toMatch(/^promptfooconfig\.yaml, line 5: unknown key '__proto__' in an assertion/);
  });

  it('control: a merge key still merges', () => {
    const text = `prompts: ["{{q}}"]\nbase: &b {type: contains, value: a}\ntests:\n  - vars: {q: a}\n    assert:\n      - <<: *b\n`;
    expect(error(text)).not.toMatch(/'<<'|__proto__/);
  });
});

describe("metadata.tolerance from a fork's config", () => {
  const tolerance = (value: string): string =>
    error(`prompts: ["{{q}}"]\ndefaultTest:\n  metadata:\n    tolerance: ${value}\ntests:\n  - vars: {q: a}\n`);
  it('a huge number, a string, a negative share and __proto__ are each one error at the line', () => {
    for (const value of ['{passRate: 1e308}', '{passRate: "lots"}', '{passRate: -5%}', '{__proto__: {passRate: 0.9}}'])
      expect(tolerance(value), value).toMatch(/^promptfooconfig\.yaml, line 4: .*'metadata\.tolerance/);
  });

  it('control: 5% reads', () => {
    expect(tolerance('{passRate: 5%}')).toBe('read without an error');
  });
});
