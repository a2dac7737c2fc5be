// Each deterministic assertion type and its `not-` form, on replies compared trimmed.
import { describe, expect, it } from 'vitest';
import { type PlainAssertion, compileRegex, describeAssertion, holds, looksLikeRefusal } from './assertions.js';
import { MAX_SCHEMA_DEPTH, compileSchema } from './schema.js';

const text = (
  type: 'equals' | 'contains' | 'icontains' | 'starts-with' | 'ends-with',
  value: string,
  negate = false,
): PlainAssertion => ({ type, negate, value });

const ORDER_SCHEMA = compileSchema({
  type: 'object',
  required: ['order'],
  properties: { order: { type: 'integer' } },
});

describe('holds', () => {
  const REPLY = '  Hello! Your order 12345 is on its way.\n';
  it.each<[string, PlainAssertion, boolean]>([
    ['equals, trimmed', text('equals', 'Hello! Your order 12345 is on its way.'), true],
    ['equals is exact', text('equals', 'hello! your order 12345 is on its way.'), false],
    ['contains', text('contains', 'order 12345'), true],
    ['contains is case-sensitive', text('contains', 'ORDER'), false],
    ['icontains ignores case', text('icontains', 'ORDER 12345'), true],
    ['icontains', text('icontains', 'refund'), false],
    ['starts-with, trimmed', text('starts-with', 'Hello!'), true],
    ['starts-with', text('starts-with', 'Your'), false],
    ['ends-with, trimmed', text('ends-with', 'on its way.'), true],
    ['ends-with is case-sensitive', text('ends-with', 'ON ITS WAY.'), false],
    ['contains-any', { type: 'contains-any', negate: false, values: ['refund', '12345'] }, true],
    ['contains-any with none', { type: 'contains-any', negate: false, values: ['refund', 'sorry'] }, false],
    ['contains-all', { type: 'contains-all', negate: false, values: ['Hello', '12345'] }, true],
    ['contains-all with one missing', { type: 'contains-all', negate: false, values: ['Hello', 'refund'] }, false],
    ['icontains-any ignores case', { type: 'icontains-any', negate: false, values: ['REFUND', 'HELLO'] }, true],
    ['icontains-any with none', { type: 'icontains-any', negate: false, values: ['refund', 'sorry'] }, false],
    ['icontains-all ignores case', { type: 'icontains-all', negate: false, values: ['HELLO', 'Order'] }, true],
    ['icontains-all with one missing', { type: 'icontains-all', negate: false, values: ['hello', 'refund'] }, false],
    ['regex', { type: 'regex', negate: false, pattern: compileRegex('order \\d{5}') }, true],
    ['regex is case-sensitive', { type: 'regex', negate: false, pattern: compileRegex('ORDER') }, false],
    ['regex with (?i)', { type: 'regex', negate: false, pattern: compileRegex('(?i)ORDER') }, true],
    ['is-json on text', { type: 'is-json', negate: false }, false],
    ['contains-json on text without JSON', { type: 'contains-json', negate: false }, false],
    [
      'levenshtein within the threshold',
      { type: 'levenshtein', negate: false, value: 'Hello! Your order 12346 is on its way', threshold: 5 },
      true,
    ],
    ['levenshtein beyond the threshold', { type: 'levenshtein', negate: false, value: 'Goodbye', threshold: 5 }, false],
    ['word-count exact', { type: 'word-count', negate: false, min: 8, max: 8 }, true],
    ['word-count exact, off by one', { type: 'word-count', negate: false, min: 7, max: 7 }, false],
    ['word-count in a range', { type: 'word-count', negate: false, min: 5, max: 10 }, true],
    ['word-count over the max', { type: 'word-count', negate: false, max: 5 }, false],
    ['is-refusal on an answer', { type: 'is-refusal', negate: false }, false],
  ])('%s', (_, assertion, expected) => {
    expect(holds(assertion, REPLY, 100)).toBe(expected);
    // The not- form says the opposite.
    if (assertion.type !== 'latency') expect(holds({ ...assertion, negate: true }, REPLY, 100)).toBe(!expected);
  });

  it('is-json on a JSON reply, trimmed, and against a schema', () => {
    const isJson: PlainAssertion = { type: 'is-json', negate: false };
    expect(holds(isJson, ' {"order": 12345} \n', 0)).toBe(true);
    expect(holds({ ...isJson, negate: true }, '{"order": 12345}', 0)).toBe(false);
    expect(holds(isJson, '{"order": ', 0)).toBe(false);
    const withSchema: PlainAssertion = { type: 'is-json', negate: false, schema: ORDER_SCHEMA };
    expect(holds(withSchema, '{"order": 12345}', 0)).toBe(true);
    expect(holds(withSchema, '{"order": "12345"}', 0)).toBe(false);
    expect(holds({ ...withSchema, negate: true }, '{"order": "12345"}', 0)).toBe(true);
  });

  it('contains-json finds JSON inside prose, and one that matches the schema', () => {
    const reply = 'Here you go: {"note": "a {brace} in a string"} and then {"order": 7} done.';
    expect(holds({ type: 'contains-json', negate: false }, reply, 0)).toBe(true);
    expect(holds({ type: 'contains-json', negate: false, schema: ORDER_SCHEMA }, reply, 0)).toBe(true);
    expect(holds({ type: 'contains-json', negate: false, schema: ORDER_SCHEMA }, 'only {"note": 1}', 0)).toBe(false);
    expect(holds({ type: 'contains-json', negate: true, schema: ORDER_SCHEMA }, 'only {"note": 1}', 0)).toBe(true);
    // Thousands of unbalanced braces end quickly.
    expect(holds({ type: 'contains-json', negate: false }, '{'.repeat(100_000), 0)).toBe(false);
  });

  it("is-refusal: promptfoo's phrasings, curly quotes, an empty reply; not an ordinary answer", () => {
    for (const reply of [
      "I'm sorry, but I can't help with that.",
      'I can’t help with that.',
      'As an AI, I cannot…',
      'That is not appropriate for this channel.',
      '  ',
    ]) {
      expect(looksLikeRefusal(reply)).toBe(true);
      expect(holds({ type: 'is-refusal', negate: false }, reply, 0)).toBe(true);
      expect(holds({ type: 'is-refusal', negate: true }, reply, 0)).toBe(false);
    }
    // As promptfoo reads them: "can't" alone is no refusal, nor an apology in passing.
    for (const reply of [
      "I can't wait to help",
      'I can’t share that.',
      'Your refund is on its way; sorry for the wait.',
    ]) {
      expect(looksLikeRefusal(reply)).toBe(false);
    }
  });

  it('contains-json looks for an object, as promptfoo does: a bare array is not one', () => {
    expect(holds({ type: 'contains-json', negate: false }, '[1, 2]', 0)).toBe(false);
    expect(holds({ type: 'contains-json', negate: false }, 'rows: [{"id": 1}]', 0)).toBe(true);
  });

  it('latency holds up to its threshold, inclusive', () => {
    const latency: PlainAssertion = { type: 'latency', negate: false, thresholdMs: 10_000 };
    expect(holds(latency, 'x', 10_000)).toBe(true);
    expect(holds(latency, 'x', 10_001)).toBe(false);
  });
});

describe('describeAssertion', () => {
  it('names the assertion as written', () => {
    expect(describeAssertion(text('icontains', 'sorry', true))).toBe('not-icontains "sorry"');
    expect(describeAssertion({ type: 'latency', negate: false, thresholdMs: 500 })).toBe('latency ≤ 500ms');
    expect(describeAssertion({ type: 'regex', negate: false, pattern: compileRegex('a+') })).toBe('regex /a+/');
    expect(describeAssertion({ type: 'word-count', negate: false, min: 3, max: 3 })).toBe('word-count 3');
    expect(describeAssertion({ type: 'word-count', negate: true, max: 50 })).toBe('not-word-count 0..50');
    expect(describeAssertion({ type: 'levenshtein', negate: false, value: 'hi', threshold: 2 })).toBe(
      'levenshtein "hi" ≤ 2',
    );
  });
});

describe('a JSON Schema nested deeper than ajv compiles in linear time', () => {
  const nested = (depth: number): Record<string, unknown> => {
    let schema: Record<string, unknown> = { type: 'object' };
    for (let i = 1; i < depth; i++) schema = { items: schema };
    return schema;
  };
  it('is refused past MAX_SCHEMA_DEPTH levels before it is compiled, and compiles at the bound', () => {
    expect(() => compileSchema(nested(MAX_SCHEMA_DEPTH))).not.toThrow();
    expect(() => compileSchema(nested(MAX_SCHEMA_DEPTH + 1))).toThrow(
      `a JSON Schema nested at most ${MAX_SCHEMA_DEPTH} levels deep`,
    );
  });
});
