import { describe, expect, it } from 'vitest';
import { compilePattern } from './pattern.js';

describe('compilePattern', () => {
  it('matches case-insensitively anywhere in the reply', () => {
    expect(compilePattern('pong').test('Sure: PONG!')).toBe(true);
    expect(compilePattern('^pong$').test('no')).toBe(false);
  });

  it('answers a catastrophic pattern on a hostile reply at once', () => {
    const pattern = compilePattern('^(\\w+\\s?)*$');
    const reply = `${'a'.repeat(5000)}!`;
    // A backtracking engine would never return here (2^5000 paths); RE2 is linear in the reply.
    expect(pattern.test(reply)).toBe(false);
  });

  it.each(['(a)\\1', '(?=x)y', '(?<=a)b', '(?!x)'])('refuses %s, which needs backtracking', (source) => {
    expect(() => compilePattern(source)).toThrow();
  });
});
