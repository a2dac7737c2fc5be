// Each assertion type and its `not-` form, on replies compared trimmed.
import { describe, expect, it } from 'vitest';
import { type Assertion, compileRegex, describeAssertion, holds } from './assertions.js';

const text = (type: 'equals' | 'contains' | 'icontains' | 'starts-with', value: string, negate = false): Assertion => ({
  type,
  negate,
  value,
});

describe('holds', () => {
  const REPLY = '  Hello! Your order 12345 is on its way.\n';
  it.each<[string, Assertion, boolean]>([
    ['equals, trimmed', text('equals', 'Hello! Your order 12345 is on its way.'), true],
    ['equals is exact', text('equals', 'hello! your order 12345 is on its way.'), false],
    ['contains', text('contains', 'order 12345'), true],
    ['contains is case-sensitive', text('contains', 'ORDER'), false],
    ['icontains ignores case', text('icontains', 'ORDER 12345'), true],
    ['icontains', text('icontains', 'refund'), false],
    ['starts-with, trimmed', text('starts-with', 'Hello!'), true],
    ['starts-with', text('starts-with', 'Your'), false],
    ['contains-any', { type: 'contains-any', negate: false, values: ['refund', '12345'] }, true],
    ['contains-any with none', { type: 'contains-any', negate: false, values: ['refund', 'sorry'] }, false],
    ['contains-all', { type: 'contains-all', negate: false, values: ['Hello', '12345'] }, true],
    ['contains-all with one missing', { type: 'contains-all', negate: false, values: ['Hello', 'refund'] }, false],
    ['regex', { type: 'regex', negate: false, pattern: compileRegex('order \\d{5}') }, true],
    ['regex is case-sensitive', { type: 'regex', negate: false, pattern: compileRegex('ORDER') }, false],
    ['regex with (?i)', { type: 'regex', negate: false, pattern: compileRegex('(?i)ORDER') }, true],
    ['is-json on text', { type: 'is-json', negate: false, value: '' }, false],
  ])('%s', (_, assertion, expected) => {
    expect(holds(assertion, REPLY, 100)).toBe(expected);
    // The not- form says the opposite.
    if (assertion.type !== 'latency') expect(holds({ ...assertion, negate: true }, REPLY, 100)).toBe(!expected);
  });

  it('is-json on a JSON reply, trimmed', () => {
    const isJson: Assertion = { type: 'is-json', negate: false, value: '' };
    expect(holds(isJson, ' {"status": "ok"} \n', 0)).toBe(true);
    expect(holds({ ...isJson, negate: true }, '{"status": "ok"}', 0)).toBe(false);
    expect(holds(isJson, '{"status": ', 0)).toBe(false);
  });

  it('latency holds up to its threshold, inclusive', () => {
    const latency: Assertion = { type: 'latency', negate: false, thresholdMs: 10_000 };
    expect(holds(latency, 'x', 10_000)).toBe(true);
    expect(holds(latency, 'x', 10_001)).toBe(false);
  });
});

describe('describeAssertion', () => {
  it('names the assertion as written', () => {
    expect(describeAssertion(text('icontains', 'sorry', true))).toBe('not-icontains "sorry"');
    expect(describeAssertion({ type: 'latency', negate: false, thresholdMs: 500 })).toBe('latency ≤ 500ms');
    expect(describeAssertion({ type: 'regex', negate: false, pattern: compileRegex('a+') })).toBe('regex /a+/');
  });
});
