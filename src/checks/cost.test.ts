// The cost said before a comparison, and max-requests: the most messages as written, fewer
// expected, the time at the limit; a suite that could send more cut to the repeats that fit, or
// refused when not even one round does.
import { describe, expect, it } from 'vitest';
import { detectableDrop } from '../compare/index.js';
import type { CheckSuite } from './check.js';
import { comparisonCost, fitRequests } from './cost.js';

function suite(questions: number, repeat: number): CheckSuite {
  const checks = Array.from({ length: questions }, (_, i) => ({
    name: `q${i + 1}`,
    turns: [{ send: `q${i + 1}`, assert: [] }],
    repeat,
    minPass: repeat,
    timeoutMs: 10_000,
  }));
  return { checks } as unknown as CheckSuite;
}

describe('comparisonCost', () => {
  it('says the most as written, fewer expected, and the time at the documented limit before any header', () => {
    const s = suite(30, 3);
    const cost = comparisonCost(s, detectableDrop(30, 3), { sides: 2 });
    expect(cost.most).toBe(180);
    expect(cost.expected).toBeLessThan(180);
    expect(cost.expected).toBeGreaterThan(90);
    expect(cost.fromHeaders).toBe(false);
    expect(cost.line).toContain('at most 180 message(s)');
    expect(cost.line).toContain('60 requests a minute (the documented default');
    // 180 messages at 54 a minute (a tenth kept for the team): 3m20s.
    expect(cost.line).toContain('3m20s at most');
    expect(cost.line).toContain('30 questions × 3 repeats');
  });

  it("reckons the time at the team's limit once the headers said it", () => {
    const cost = comparisonCost(suite(30, 3), detectableDrop(30, 3), { sides: 2, limit: 300 });
    expect(cost.line).toContain("300 requests a minute (the team's limit");
    expect(cost.line).toContain('40s at most');
  });
});

describe('fitRequests', () => {
  it('leaves a suite that fits as written', () => {
    expect(fitRequests(suite(10, 3), 60, { sides: 2 })).toBeUndefined();
    expect(fitRequests(suite(10, 3), 0, { sides: 2 })).toBeUndefined();
  });

  it('cuts the repeats to the most that fit, min-pass in proportion', () => {
    const s = suite(10, 5);
    expect(fitRequests(s, 65, { sides: 2 })).toEqual({ repeats: 3, most: 60 });
    expect(s.checks.every((c) => c.repeat === 3 && c.minPass === 3)).toBe(true);
  });

  it('refuses a bound below one round of the questions, saying the least that would do', () => {
    const s = suite(10, 3);
    expect(fitRequests(s, 15, { sides: 2 })).toEqual({
      refused: "at least 20: one round of the suite's questions on both sides",
    });
    expect(s.checks[0].repeat).toBe(3);
  });
});
