import { describe, expect, it } from 'vitest';
import {
  ASSERTION_TYPES,
  FAMILIES,
  JUDGE_GRADED,
  PROMPTFOO_ALIASES,
  PROMPTFOO_TYPES,
  buildRegistry,
  familyOf,
} from './registry.js';
import { RECIPE_TYPES } from './recipes.js';
import { wordCount } from './word-count.js';

describe('the assertion registry', () => {
  it('has a family for every type either file format names', () => {
    for (const type of ASSERTION_TYPES) {
      expect(familyOf(type).native, type).toBeDefined();
      expect(familyOf(type).describe, type).toBeDefined();
    }
    for (const type of PROMPTFOO_TYPES) expect(familyOf(PROMPTFOO_ALIASES[type] ?? type).promptfoo, type).toBeDefined();
  });

  it('fails at load when a type has no family, naming it', () => {
    const without = FAMILIES.filter((f) => f !== wordCount);
    expect(() => buildRegistry(without, ASSERTION_TYPES, PROMPTFOO_TYPES)).toThrow(
      "The assertion registry is incomplete: 'word-count' has no reader for the native checks file; 'word-count' has no promptfoo reader.",
    );
  });

  it('fails when a native type can be read but not evaluated, or a name is claimed twice', () => {
    const unevaluated = { ...wordCount, evaluation: undefined };
    const families = FAMILIES.map((f) => (f === wordCount ? unevaluated : f));
    expect(() => buildRegistry(families, ASSERTION_TYPES, PROMPTFOO_TYPES)).toThrow(
      "'word-count' has no evaluation or description",
    );
    expect(() => buildRegistry([...FAMILIES, wordCount], ASSERTION_TYPES, PROMPTFOO_TYPES)).toThrow(
      "'word-count' is claimed by two families",
    );
  });
});

describe('the judge-graded types', () => {
  it("are every family's that says gradedBy: 'judge', and only those", () => {
    expect([...JUDGE_GRADED].sort()).toEqual(['factuality', 'llm-rubric', ...RECIPE_TYPES].sort());
    expect(JUDGE_GRADED).not.toContain('javascript');
  });
});
