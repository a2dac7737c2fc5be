// The checks file: what it reads, and one error naming the file, the line and what was expected
// for every mistake in it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PlainAssertion, holds } from './assertions.js';
import { loadChecks, parseChecks } from './load.js';

const EXAMPLE = `defaults:
  timeout: 60s
  repeat: 1
checks:
  - name: greets the customer
    send: Hello
    assert:
      - type: icontains
        value: hello
      - type: latency
        threshold: 10s
  - name: refund flow
    claws: [claw-support-bot]
    repeat: 3
    min-pass: 2
    turns:
      - send: I want a refund
        assert:
          - type: regex
            value: '(?i)order number'
      - send: It is order 12345
        assert:
          - type: contains
            value: '12345'
          - type: not-icontains
            value: sorry
  - name: setup then json
    timeout: 5s
    turns:
      - send: Switch to JSON
      - send: Status?
        assert:
          - type: is-json
          - type: contains-any
            value: [ok, fine]
`;

describe('parseChecks', () => {
  it('reads the example of the README', () => {
    const suite = parseChecks('checks.yml', EXAMPLE);
    expect(suite.checks.map((c) => [c.name, c.turns.length, c.repeat, c.minPass, c.timeoutMs, c.claws])).toEqual([
      ['greets the customer', 1, 1, 1, 60_000, undefined],
      ['refund flow', 2, 3, 2, 60_000, ['claw-support-bot']],
      ['setup then json', 2, 1, 1, 5000, undefined],
    ]);
    const [greet, refund, setup] = suite.checks;
    expect(greet.turns[0]).toMatchObject({
      send: 'Hello',
      assert: [
        { type: 'icontains', value: 'hello' },
        { type: 'latency', thresholdMs: 10_000 },
      ],
    });
    expect(refund.turns[1].assert).toMatchObject([
      { type: 'contains', negate: false, value: '12345' },
      { type: 'icontains', negate: true, value: 'sorry' },
    ]);
    // The regex is RE2 and case-sensitive unless it says (?i).
    const regex = refund.turns[0].assert[0];
    expect(holds(regex as PlainAssertion, 'Your ORDER NUMBER please', 0)).toBe(true);
    expect(setup.turns[0].assert).toEqual([]);
  });

  it('reads a judge block: key from the environment, headers with {env}, defaults, and a check that overrides it', () => {
    const suite = parseChecks(
      'c.yml',
      `judge:
  url: https://judge.example.com/openai/v1/
  model: gpt-4.1-mini-2025-04-14
  api-key-env: JUDGE_KEY
  headers: {X-Team: claws, api-key: {env: AZURE_KEY}}
  query: {api-version: 2024-10-21}
checks:
  - name: a
    send: hi
    assert:
      - {type: llm-rubric, value: polite, threshold: 0.7}
      - type: contains-json
        value: '{"type": "object", "required": ["id"]}'
      - {type: word-count, value: {max: 50}}
      - {type: not-levenshtein, value: nope}
  - name: b
    send: hi
    judge: {claw: grader}
    assert: [{type: factuality, value: 30 days}]
`,
      { JUDGE_KEY: 'sk-1', AZURE_KEY: 'az-2' },
    );
    const [rubric, json, count, lev] = suite.checks[0].turns[0].assert;
    expect(rubric).toMatchObject({
      type: 'llm-rubric',
      threshold: 0.7,
      judge: {
        kind: 'endpoint',
        url: 'https://judge.example.com/openai/v1',
        apiKey: 'sk-1',
        headers: { 'X-Team': 'claws', 'api-key': 'az-2' },
        query: { 'api-version': '2024-10-21' },
        temperature: 0,
        seed: 0,
        maxTokens: 512,
        timeoutMs: 30_000,
        secrets: ['sk-1', 'az-2'],
      },
    });
    expect(json).toMatchObject({ type: 'contains-json', schema: { source: '{"type":"object","required":["id"]}' } });
    expect(count).toMatchObject({ type: 'word-count', max: 50 });
    expect(lev).toMatchObject({ type: 'levenshtein', negate: true, threshold: 5 });
    expect(suite.checks[1].turns[0].assert[0]).toMatchObject({
      type: 'factuality',
      categories: ['A', 'B', 'C', 'E'],
      judge: { kind: 'claw', clawId: 'grader' },
    });
    expect(suite.judges.map((j) => j.kind)).toEqual(['endpoint', 'claw']);
  });

  it('min-pass defaults to all of repeat, and a bare number value is text', () => {
    const suite = parseChecks(
      'c.yml',
      'defaults: {repeat: 3}\nchecks:\n  - {name: a, send: hi, assert: [{type: equals, value: 42}]}\n',
    );
    expect(suite.checks[0]).toMatchObject({ repeat: 3, minPass: 3 });
    expect(suite.checks[0].turns[0].assert[0]).toMatchObject({ value: '42' });
  });

  it('reads a latency threshold as a duration or as milliseconds', () => {
    const suite = parseChecks(
      'c.yml',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - {type: latency, threshold: 1500}\n      - {type: latency, threshold: 2s}\n',
    );
    expect(suite.checks[0].turns[0].assert).toMatchObject([{ thresholdMs: 1500 }, { thresholdMs: 2000 }]);
  });

  const BAD: [string, string, RegExp][] = [
    [
      'a YAML syntax error',
      'checks:\n  - name: a\n    send: [unclosed\n',
      /^c\.yml, line \d: the checks file is not valid YAML: /,
    ],
    [
      'an unknown top-level key',
      'check:\n  - name: a\n',
      /^c\.yml, line 1: unknown key 'check' in the checks file: expected 'defaults', 'judge', 'checks'\.$/,
    ],
    [
      'an unknown key in a check',
      'checks:\n  - name: a\n    sned: hi\n',
      /^c\.yml, line 3: unknown key 'sned' in check 1: expected 'name', 'claws', 'send', /,
    ],
    [
      'an unknown assertion type',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - type: contians\n        value: x\n',
      /^c\.yml, line 5: 'type' is "contians": expected one of the \d+ types; did you mean 'contains'\?$/,
    ],
    [
      'an assertion type near none',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - type: sentiment-analysis\n        value: x\n',
      /^c\.yml, line 5: 'type' is "sentiment-analysis": expected one of equals, contains, icontains, .*not-factuality\.$/,
    ],
    [
      'not-latency',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - {type: not-latency, threshold: 1s}\n',
      /^c\.yml, line 5: 'type' is "not-latency": expected one of /,
    ],
    [
      'a check with neither send nor turns',
      'checks:\n  - name: a\n  - name: b\n    assert: []\n',
      /^c\.yml, line 2: check "a" has neither 'send' nor 'turns': expected a message to send, or a list of turns\.$/,
    ],
    [
      'a check with no name',
      'checks:\n  - send: hi\n',
      /^c\.yml, line 2: check 1 has no 'name': expected a name for the report\.$/,
    ],
    [
      'min-pass above repeat',
      'checks:\n  - name: a\n    send: hi\n    repeat: 2\n    min-pass: 3\n',
      /^c\.yml, line 5: check "a": 'min-pass' 3 is above 'repeat' 2: expected at most 2\.$/,
    ],
    [
      'a regex RE2 refuses',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - type: regex\n        value: "(?=x)y"\n',
      /^c\.yml, line 6: 'value' is "\(\?=x\)y": expected a regular expression in RE2 syntax, without backreferences or lookaround \(/,
    ],
    [
      'a bad duration',
      'defaults:\n  timeout: soon\nchecks:\n  - {name: a, send: hi}\n',
      /^c\.yml, line 2: 'timeout' is "soon": expected a duration such as 60s, 1m30s or 500ms, or a number of seconds\.$/,
    ],
    [
      'a repeat that is not a whole number',
      'checks:\n  - {name: a, send: hi, repeat: 1.5}\n',
      /^c\.yml, line 2: 'repeat' is "1\.5": expected a whole number from 1 to 100\.$/,
    ],
    [
      'a list value that is not a list',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - {type: contains-any, value: ok}\n',
      /^c\.yml, line 5: 'value' is "ok": expected a list of strings\.$/,
    ],
    [
      'an assertion with no value',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - type: contains\n',
      /^c\.yml, line 5: a 'contains' assertion has no 'value': expected a string\.$/,
    ],
    [
      'a Claw id that is not an id',
      'checks:\n  - name: a\n    send: hi\n    claws: ["a/b"]\n',
      /^c\.yml, line 4: 'claws' holds "a\/b": expected an identifier/,
    ],
    [
      'no checks at all',
      'defaults: {repeat: 1}\n',
      /^c\.yml, line 1: the checks file has no 'checks': expected a list of checks\.$/,
    ],
    [
      'an llm-rubric without a judge',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - {type: llm-rubric, value: polite}\n',
      /^c\.yml, line 5: an 'llm-rubric' assertion needs a judge: expected a 'judge:' block at the top of the file or in the check/,
    ],
    [
      'a judge whose key variable is not set',
      'judge:\n  url: https://api.example.com/v1\n  model: m\n  api-key-env: NOT_SET_ANYWHERE\nchecks: [{name: a, send: hi}]\n',
      /^c\.yml, line 4: 'api-key-env' names NOT_SET_ANYWHERE, which is not set: expected the variable in the step's environment/,
    ],
    [
      'a judge over plain http to another host',
      'judge:\n  url: http://judge.example.com/v1\n  model: m\nchecks: [{name: a, send: hi}]\n',
      /^c\.yml, line 2: 'url' is "http:\/\/judge\.example\.com\/v1": expected an https URL .*http only for localhost/,
    ],
    [
      'a judge with both claw and url',
      'judge: {claw: g, url: "https://x.example.com"}\nchecks: [{name: a, send: hi}]\n',
      /^c\.yml, line 1: 'judge' has 'claw' beside endpoint keys/,
    ],
    [
      'a schema that does not compile',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - type: is-json\n        value: {type: objekt}\n',
      /^c\.yml, line 6: 'value' is .*expected a JSON Schema that compiles/,
    ],
    [
      'factuality categories holding D',
      'judge: {claw: g}\nchecks:\n  - name: a\n    send: hi\n    assert:\n      - {type: factuality, value: x, categories: [A, D]}\n',
      /^c\.yml, line 6: 'categories' is .*D, a disagreement, always fails/,
    ],
    [
      'a threshold on contains',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - {type: contains, value: x, threshold: 2}\n',
      /^c\.yml, line 5: 'threshold' belongs to a latency, levenshtein or llm-rubric assertion, not 'contains'\.$/,
    ],
    [
      'an llm-rubric threshold above 1',
      'judge: {claw: g}\nchecks:\n  - name: a\n    send: hi\n    assert:\n      - {type: llm-rubric, value: x, threshold: 7}\n',
      /^c\.yml, line 6: 'threshold' is "7": expected a number from 0 to 1\.$/,
    ],
    [
      'a word-count range upside down',
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - {type: word-count, value: {min: 9, max: 3}}\n',
      /^c\.yml, line 5: 'value' is .*'min' at most 'max'/,
    ],
    [
      'two checks with one name',
      'checks:\n  - {name: a, send: hi}\n  - {name: a, send: ho}\n',
      /^c\.yml, line 3: two checks are named "a": expected unique names\.$/,
    ],
  ];
  it.each(BAD)('refuses %s with one error naming the file and the line', (_, text, message) => {
    expect(() => parseChecks('c.yml', text)).toThrow(message);
  });
});

describe('loadChecks', () => {
  it('reads the file relative to the workspace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'claw-checks-'));
    writeFileSync(join(dir, 'checks.yml'), EXAMPLE);
    expect((await loadChecks('checks.yml', dir)).checks).toHaveLength(3);
  });

  it('says so when the file is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'claw-checks-'));
    await expect(loadChecks('.github/claw-checks.yml', dir)).rejects.toThrow(
      'The checks file ".github/claw-checks.yml" could not be read (no such file in the workspace): expected a YAML file, relative to the workspace (did the job check out the repository?).',
    );
  });
});
