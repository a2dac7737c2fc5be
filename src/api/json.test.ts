import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingDepth, readJson } from './json.js';

describe('readJson', () => {
  it('reads ordinary JSON', () => {
    expect(readJson('{"a":[1,{"b":"}]"}]}')).toEqual({ ok: true, value: { a: [1, { b: '}]' }] } });
    expect(nestingDepth('{"a":"[[[[\\"[["}')).toBe(1);
  });

  it('refuses 10,000-deep JSON as unreadable, without overflowing the stack', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect(readJson(deep)).toEqual({ ok: false, reason: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
    expect(readJson(`${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}`).ok).toBe(true);
  });

  it('says when a body is not JSON', () => {
    expect(readJson('<html>')).toEqual({ ok: false, reason: 'a body that is not JSON' });
  });
});
