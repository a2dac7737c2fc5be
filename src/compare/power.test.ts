// The power line: what a suite of a given size can find, and the warning that names what to add.
import { describe, expect, it } from 'vitest';
import { detectableDrop, estimatedRate, passRatePower, referenceProfile } from './power.js';

describe('detectableDrop', () => {
  it('states what 50 questions × 3 repeats find on the reference profile: a 10% drop 7 times in 10', () => {
    const d = detectableDrop(50, 3);
    expect(d.line).toBe('50 questions × 3 repeats: a 10% drop in pass rate is found 7 times in 10');
    expect(d.power).toBeGreaterThan(0.7);
    expect(d.power).toBeLessThan(0.8);
    expect(d.warning).toBeUndefined();
  });

  it('warns a suite too small for a 20% drop, naming how many questions or repeats would do', () => {
    const d = detectableDrop(10, 3);
    expect(d.warning).toBe(
      '10 questions × 3 repeats is too small to find a 20% drop in pass rate 8 times in 10: add questions or repeats (18 questions × 3 repeats, or 10 questions × 6 repeats)',
    );
    expect(passRatePower(18, 3, { drop: 0.2 })).toBeGreaterThanOrEqual(0.8);
    expect(passRatePower(17, 3, { drop: 0.2 })).toBeLessThan(0.8);
    expect(detectableDrop(1, 1).line).toBe(
      '1 question × 1 repeat: a 10% drop in pass rate is found less than once in 10',
    );
    expect(detectableDrop(5, 1).line).toBe(
      '5 questions × 1 repeat: a 10% drop in pass rate is found less than once in 10',
    );
  });

  it('grows with questions and repeats, and shrinks with a tolerance', () => {
    expect(passRatePower(100, 3)).toBeGreaterThan(passRatePower(50, 3));
    expect(passRatePower(50, 5)).toBeGreaterThan(passRatePower(50, 3));
    expect(passRatePower(50, 3, { tolerance: 0.05 })).toBeLessThan(passRatePower(50, 3));
    expect(passRatePower(0, 3)).toBe(0);
  });

  it("reads the suite's own per-question rates when given: questions that never vary add nothing", () => {
    const flaky = Array.from({ length: 30 }, (_, q) => (q % 2 ? 0.6 : 0.98));
    const certain = Array.from({ length: 30 }, () => 1);
    expect(passRatePower(30, 3, { drop: 0.2, rates: flaky })).not.toBeCloseTo(passRatePower(30, 3, { drop: 0.2 }), 2);
    // Every question certain: a 20% drop turns certain passes into failures, found for sure.
    expect(passRatePower(30, 3, { drop: 0.2, rates: certain })).toBeGreaterThan(0.99);
    expect(estimatedRate(3, 3)).toBeCloseTo(3.5 / 4, 12);
  });

  it('uses a reference profile of 80% near-certain questions and 20% flaky ones, averaging the pass rate', () => {
    const profile = referenceProfile(0.9);
    expect(profile.map((p) => p.rate)).toEqual([0.99, expect.closeTo(0.54, 10)]);
    expect(profile.reduce((sum, p) => sum + p.share * p.rate, 0)).toBeCloseTo(0.9, 12);
  });
});
