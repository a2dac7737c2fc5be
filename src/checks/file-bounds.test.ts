// The checks file under an unlucky or hostile hand: schema patterns on RE2 (a pattern RE2 cannot
// run is named with its line), YAML aliases in a schema read as YAML defines them (or refused with
// their line), ceilings on repeat, checks and turns, and judge headers checked as a request would
// send them, before any request. Input controlled by: the workflow's author (and, on a pull
// request, its author).
import { describe, expect, it } from 'vitest';
import { holds } from './assertions.js';
import { MAX_CHECKS, MAX_REPEAT } from './check.js';
import { parseChecks } from './load.js';
import { MAX_SCHEMA_NODES_PER_FILE, schemaCompiles } from './schema.js';

const schemaCheck = (schema: string): string => `checks:
  - name: shape
    send: hi
    assert:
      - type: is-json
        value:
${schema.replace(/^/gm, '          ')}
`;

/** The one is-json assertion of a file with `schema`, as a predicate on a reply. */
function validator(schema: string): (reply: string) => boolean {
  const [assertion] = parseChecks('checks.yml', schemaCheck(schema)).checks[0].turns[0].assert;
  if (assertion.type !== 'is-json') throw new Error('expected is-json');
  return (reply) => holds(assertion, reply, 0);
}

describe('schema patterns run on RE2', () => {
  it('a hostile reply against a backtracking pattern is answered at once', () => {
    const valid = validator("type: object\nproperties:\n  name: {type: string, pattern: '^(\\w+\\s?)*$'}");
    expect(valid('{"name": "alpha beta"}')).toBe(true);
    expect(valid(`{"name": "${'a'.repeat(5000)}!"}`)).toBe(false);
  });

  it('a pattern RE2 cannot run is refused with its own line', () => {
    expect(() => parseChecks('checks.yml', schemaCheck("type: string\npattern: '(?=order)\\d+'"))).toThrow(
      /^checks\.yml, line 8: the schema's pattern "\(\?=order\)\\\\d\+" is not RE2: expected a regular expression in RE2 syntax/,
    );
    expect(() =>
      parseChecks('checks.yml', schemaCheck("type: object\npatternProperties:\n  '^(a)\\1$': {type: string}")),
    ).toThrow(/^checks\.yml, line 9: the schema's pattern .* is not RE2/);
  });
});

describe('YAML aliases in a schema', () => {
  it('resolve as YAML defines them: the schema validates exactly like its written-out form', () => {
    const aliased = validator(
      'type: object\nproperties:\n  name: &str {type: string, minLength: 2}\n  other: *str\nrequired: [name, other]',
    );
    const written = validator(
      'type: object\nproperties:\n  name: {type: string, minLength: 2}\n  other: {type: string, minLength: 2}\nrequired: [name, other]',
    );
    for (const reply of [
      '{"name": "ab", "other": "cd"}',
      '{"name": "ab", "other": 5}',
      '{"name": "ab", "other": "c"}',
    ]) {
      expect(aliased(reply)).toBe(written(reply));
    }
    expect(aliased('{"name": "ab", "other": 5}')).toBe(false);
  });

  it('an alias to a value it sits in is refused with its line', () => {
    expect(() => parseChecks('checks.yml', schemaCheck('&s\ntype: object\nproperties:\n  next: *s'))).toThrow(
      /^checks\.yml, line 10: the alias \*s refers to a value it sits in: expected a value without a cycle\.$/,
    );
  });

  it('aliases that expand past the bound are refused, not expanded', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(() => parseChecks('checks.yml', schemaCheck(`type: object\n$defs:\n${bomb.replace(/^/gm, '  ')}`))).toThrow(
      /expands to more than 10000 values \(through its aliases\)/,
    );
  });

  it('outside a schema an alias is refused with its line, never read as something else', () => {
    expect(() =>
      parseChecks('checks.yml', 'checks:\n  - name: &n greets\n    send: hi\n  - name: other\n    send: *n\n'),
    ).toThrow(/^checks\.yml, line 5: 'send' is the alias \*n: expected a message to send, written out/);
  });
});

describe('ceilings', () => {
  it(`'repeat' and 'min-pass' above ${MAX_REPEAT} are refused with their line`, () => {
    expect(() => parseChecks('c.yml', 'checks:\n  - {name: a, send: hi, repeat: 1e300}\n')).toThrow(
      /^c\.yml, line 2: 'repeat' is "1e\+300": expected a whole number from 1 to 100\.$/,
    );
    expect(() => parseChecks('c.yml', 'defaults: {repeat: 101}\nchecks:\n  - {name: a, send: hi}\n')).toThrow(
      /^c\.yml, line 1: 'repeat' is "101": expected a whole number from 1 to 100\.$/,
    );
  });

  it(`more than ${MAX_CHECKS} checks, or 50 turns, are refused`, () => {
    const many = Array.from({ length: MAX_CHECKS + 1 }, (_, i) => `  - {name: c${i}, send: hi}`).join('\n');
    expect(() => parseChecks('c.yml', `checks:\n${many}\n`)).toThrow(
      /^c\.yml, line 2: 'checks' holds 501 checks: expected at most 500/,
    );
    const turns = Array.from({ length: 51 }, () => '      - send: hi').join('\n');
    expect(() => parseChecks('c.yml', `checks:\n  - name: long\n    turns:\n${turns}\n`)).toThrow(
      /^c\.yml, line 4: check "long" has 51 turns: expected at most 50\.$/,
    );
  });
});

describe('a promptfoo config under the same ceiling', () => {
  it(`one that makes more than ${MAX_CHECKS} checks (tests × prompts) is refused`, () => {
    const tests = Array.from({ length: 251 }, (_, i) => `  - vars: {n: ${i}}`).join('\n');
    expect(() => parseChecks('promptfooconfig.yaml', `prompts: ['a {{n}}', 'b {{n}}']\ntests:\n${tests}\n`)).toThrow(
      /^promptfooconfig\.yaml, line 1: the config makes 502 checks \(its tests, each with each prompt\): expected at most 500\.$/,
    );
  });
});

describe('judge headers, checked as a request would send them', () => {
  const judged = (headers: string, env: NodeJS.ProcessEnv = {}, key = '') =>
    parseChecks(
      'checks.yml',
      `judge:\n  url: https://judge.example.com/v1\n  model: m\n${key}  headers:\n${headers}checks:\n  - {name: a, send: b, assert: [{type: llm-rubric, value: c}]}\n`,
      env,
    );

  it('a value from the environment with a trailing newline: refused, naming the header and the variable, never the value', () => {
    const secret = 'azure-key-0123456789';
    let message = '';
    try {
      judged('    api-key: {env: AZURE_OPENAI_KEY}\n', { AZURE_OPENAI_KEY: `${secret}\n` });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(
      /^checks\.yml, line 5: header 'api-key' reads AZURE_OPENAI_KEY, whose value holds a line break: expected one line of text/,
    );
    expect(message).not.toContain(secret);
  });

  it('a written value or a name no header can carry is refused with its line', () => {
    expect(() => judged('    x-team: "a\\u0000b"\n')).toThrow(
      /^checks\.yml, line 5: 'x-team' is .*expected a header value on one line/,
    );
    expect(() => judged('    "bad name": x\n')).toThrow(/^checks\.yml, line 5: header "bad name" is not a header name/);
  });

  it("a key in 'api-key-env' with a space or control character inside is refused, never echoed", () => {
    expect(() => judged('    x: y\n', { KEY: 'sk-abc def' }, '  api-key-env: KEY\n')).toThrow(
      /^checks\.yml, line 4: 'api-key-env' names KEY, whose value holds a space: expected a key on one line, without spaces\.$/,
    );
  });

  it('the genuine flow: a clean value from the environment is read and masked', () => {
    const suite = judged('    api-key: {env: AZURE_OPENAI_KEY}\n', { AZURE_OPENAI_KEY: 'azure-key-0123456789' });
    expect(suite.judges[0]).toMatchObject({
      headers: { 'api-key': 'azure-key-0123456789' },
      secrets: ['azure-key-0123456789'],
    });
  });
});

describe('the JSON Schemas of one file', () => {
  /** 60 schemas chained by anchors, each one level deeper, then `count` assertions of `value`. */
  const chained = (count: number, value: (i: number) => string): string => {
    const anchors = Array.from({ length: 60 }, (_, i) =>
      i === 0
        ? '      - type: is-json\n        value: &a0 {type: object}'
        : `      - type: is-json\n        value: &a${i} {items: *a${i - 1}}`,
    );
    const repeats = Array.from({ length: count }, (_, i) => `      - type: is-json\n        value: ${value(i)}`);
    return `checks:\n  - name: shape\n    send: hi\n    assert:\n${[...anchors, ...repeats].join('\n')}\n`;
  };

  it('are compiled once per distinct schema: the same one written 3,000 times is compiled once', () => {
    const before = schemaCompiles.count;
    // JSON text, 20 levels deep: the plain-value bound on YAML values does not count it.
    let deep = '{"type": "object"}';
    for (let i = 1; i < 20; i++) deep = `{"items": ${deep}}`;
    const file = chained(3000, () => `'${deep}'`);
    expect(file.length).toBeGreaterThan(500_000);
    const read = parseChecks('checks.yml', file);
    expect(read.checks[0].turns[0].assert).toHaveLength(3060);
    // The 60 anchored schemas, and the repeated one once.
    expect(schemaCompiles.count - before).toBeLessThanOrEqual(61);
  });

  it('are refused past MAX_SCHEMA_NODES_PER_FILE values, with the line where the bound is passed', () => {
    const before = schemaCompiles.count;
    // Each differs (its title), YAML and JSON text alike: each would be compiled anew.
    const file = chained(3000, (i) =>
      i % 2 ? `{items: *a59, title: t${i}}` : `'{"items": {"items": {"type": "string"}}, "title": "j${i}"}'`,
    );
    let message = '';
    try {
      parseChecks('checks.yml', file);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(
      new RegExp(`^checks\\.yml, line \\d+: .*JSON Schemas of at most ${MAX_SCHEMA_NODES_PER_FILE} values in all`),
    );
    // Compiling stopped at the bound: a pair of them holds 5 + 62 values.
    expect(schemaCompiles.count - before).toBeLessThan(MAX_SCHEMA_NODES_PER_FILE / 30);
  });
});
