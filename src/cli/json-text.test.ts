// JSON for a terminal: every UTF-16 unit, alone and in pairs, parses back the same, and nothing a
// terminal acts on or hides is left raw.
import { describe, expect, it } from 'vitest';
import { terminalSafeJson } from './json-text.js';

// With the `u` flag a surrogate here is a lone one: a pair (an emoji) is one character, shown.
const ACTED_ON = /[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ud800-\udfff]/u;

describe('terminalSafeJson', () => {
  it('parses to the same value for every BMP unit, and leaves none a terminal acts on', () => {
    const all = Array.from({ length: 0x10000 }, (_, i) => String.fromCharCode(i)).join('');
    const value = { all, pair: '\u{1F680}\u{E0041}', key: { [all.slice(0x80, 0xa0)]: all.slice(0x2020, 0x2070) } };
    const text = terminalSafeJson(JSON.stringify(value, null, 2));
    expect(JSON.parse(text)).toEqual(value);
    expect(ACTED_ON.exec(text)?.[0]).toBeUndefined();
    // The tag character (U+E0041, invisible) is escaped as its surrogate pair; the emoji is shown.
    expect(text).toContain('🚀\\udb40\\udc41');
  });

  it('leaves printable text as it is', () => {
    const text = JSON.stringify({ reply: 'café — ✅ 日本語 «quoted» x\u00a0y' });
    expect(terminalSafeJson(text)).toBe(text);
    expect(terminalSafeJson(JSON.stringify('a\u009bb\u202ec'))).toBe('"a\\u009bb\\u202ec"');
  });
});
