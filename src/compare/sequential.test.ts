// The sequential rule: the looks' levels sum to the level, so a false `regressed` at any look is at
// most the level (Bonferroni); the chance of crossing the plan's boundary when nothing changed,
// computed here by a recursion on a grid, agrees with scipy's multivariate normal (recorded in
// test/compare/sequential-reference.json by sequential-reference.py) and stays under the level.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareSides } from './engine.js';
import { INTERIM_SHARE, crossingProbability, decisive, lookLevels } from './sequential.js';
import type { Attempt, Side } from './types.js';

const reference = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'test', 'compare', 'sequential-reference.json'), 'utf8'),
) as { level: number; interimShare: number; cases: { levels: number[]; times: number[]; crossing: number }[] };

describe('lookLevels', () => {
  it('spends the level once over every look, whatever their number', () => {
    for (const looks of [1, 2, 3, 5, 30]) {
      const levels = lookLevels(looks, 0.05);
      expect(levels).toHaveLength(looks);
      expect(levels.reduce((a, b) => a + b, 0)).toBeCloseTo(0.05, 12);
    }
    expect(lookLevels(3, 0.05)).toEqual([0.01, 0.01, 0.03].map((x) => expect.closeTo(x, 12)));
    // The engine's level scales every share: a smaller level, smaller looks.
    expect(lookLevels(3, 0.01).at(-1)).toBeCloseTo(0.006, 12);
  });

  it('is the plan the reference was recorded with', () => {
    expect(reference.interimShare).toBe(INTERIM_SHARE);
    for (const c of reference.cases)
      expect(lookLevels(c.levels.length, reference.level)).toEqual(c.levels.map((x) => expect.closeTo(x, 12)));
  });
});

describe('crossingProbability', () => {
  it.each(reference.cases.map((c) => [c.levels.length, c.times.join(','), c] as const))(
    '%i look(s) at %s: scipy agrees, and the level holds',
    (_looks, _times, c) => {
      const computed = crossingProbability(c.levels, c.times);
      expect(Math.abs(computed - c.crossing)).toBeLessThan(5e-4);
      expect(computed).toBeLessThanOrEqual(reference.level + 1e-9);
    },
  );
});

function side(label: string, passes: number[], repeats: number, latencyMs = 800): Side {
  const attempts: Attempt[] = [];
  passes.forEach((k, q) => {
    for (let r = 0; r < repeats; r++)
      attempts.push({ question: `q${q}`, outcome: r < k ? 'pass' : 'fail', latencyMs: latencyMs + 10 * r + q });
  });
  return { label, checks: [{ check: 'suite', attempts }] };
}

describe('decisive', () => {
  it('stops `regressed` on a release that broke its answers', () => {
    const before = side('before', Array(20).fill(1), 1);
    const after = side('after', Array(20).fill(0), 1);
    const look = compareSides(before, after, { level: lookLevels(3)[0] });
    expect(decisive(look)).toBe('regressed');
  });

  it('never stops `unchanged` at a pass-rate tolerance of 0 (the default): the close call runs on', () => {
    const same = side('before', Array(20).fill(1), 1);
    const look = compareSides(same, side('after', Array(20).fill(1), 1), { level: lookLevels(3)[0] });
    expect(look.behaviour).not.toBe('regressed');
    expect(decisive(look)).toBeUndefined();
  });

  it('stops `unchanged` when every primary interval lies inside a tolerance the suite gives', () => {
    const before = side('before', Array(60).fill(3), 3);
    const after = side('after', Array(60).fill(3), 3);
    const tolerance = { passRate: 0.3, latency: 0.5, unjudged: 0.3 };
    const look = compareSides(before, after, { level: lookLevels(3)[0], tolerance });
    expect(decisive(look, tolerance)).toBe('unchanged');
    expect(decisive(look, { passRate: 0.001, latency: 0.5, unjudged: 0.3 })).toBeUndefined();
  });
});
