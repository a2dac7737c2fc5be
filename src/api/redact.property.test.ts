// The redactor against generated encodings of a generated key (issue 39, item 9): a key written
// through any chain of the transformations a reader decodes (escapes, nested percent-encoding,
// look-alikes, fullwidth, invisible characters and marks between characters, hex with separators
// in either case, base64 wrapped or of UTF-16LE) never survives redaction; text without the key
// comes back unchanged. 200 cases in CI; PROPERTY_RUNS=N for more.
import fc from 'fast-check';
import confusables from 'unhomoglyph/data.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { Redactor } from './redact.js';

const RUNS = Number(process.env.PROPERTY_RUNS) || 200;

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-/';
const key = fc
  .array(fc.constantFrom(...KEY_CHARS), { minLength: 12, maxLength: 40 })
  .map((chars) => chars.join(''))
  // A key is not all digits or letters of one kind: give it a mark of its own so texts never hold it by chance.
  .map((k) => `${k.slice(0, 6)}Q7${k.slice(6)}`);

/** Cyrillic and Greek letters confusables.txt maps to each ASCII character's own prototype. */
const LOOKALIKES = (() => {
  const table = confusables as Record<string, string>;
  const map = new Map<string, string[]>();
  for (const c of KEY_CHARS) {
    const prototype = table[c] ?? c;
    const like = Object.keys(table).filter(
      (k) => /^[\u0370-\u04ff]$/u.test(k) && table[k] === prototype && k.normalize('NFD') === k,
    );
    if (like.length) map.set(c, like);
  }
  map.set('-', ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\ufe58', '\ufe63', '\uff0d']);
  return map;
})();

const INVISIBLE = ['\u200b', '\u00ad', '\u2060', '\ufeff', '\u034f', '&shy;', '&#x200B;', '\\u200b', '%E2%80%8B'];
const MARKS = ['\u0336', '\u0332', '\u0301'];
const hex2 = (n: number): string => n.toString(16).padStart(2, '0');

/** One character of the key as a reader still reads it. */
const characterForm = (c: string): fc.Arbitrary<string> => {
  const code = c.charCodeAt(0);
  return fc.oneof(
    fc.constant(c),
    fc.constant(`\\u${code.toString(16).padStart(4, '0')}`),
    fc.constant(`\\u{${code.toString(16)}}`),
    fc.constant(`\\x${hex2(code)}`),
    fc.constant(`%${hex2(code)}`.toUpperCase()),
    fc.constant(`%u${code.toString(16).padStart(4, '0')}`),
    fc.constant(`&#${code};`),
    fc.constant(`&#x${code.toString(16)};`),
    fc.constant(String.fromCharCode(code + 0xfee0)), // fullwidth
    ...(LOOKALIKES.has(c) ? [fc.constantFrom(...LOOKALIKES.get(c)!)] : []),
    fc.constantFrom(...MARKS).map((mark) => `${c}${mark}`),
  );
};

/** Percent-encodes every `%` of the text `times` more times (`%73` → `%2573` → `%252573`). */
const percentAgain = (text: string, times: number): string =>
  times === 0 ? text : percentAgain(text.replace(/%/g, '%25'), times - 1);

/** The key spelled character by character, with invisible characters sprinkled between. */
const spelled = (k: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.tuple(...[...k].map(characterForm)),
      fc.array(fc.constantFrom('', '', '', ...INVISIBLE), { minLength: k.length, maxLength: k.length }),
      fc.integer({ min: 0, max: 2 }),
    )
    .map(([chars, between, times]) => percentAgain(chars.map((c, i) => `${c}${between[i]}`).join(''), times));

/** The key as hex or base64, with separators, line breaks, case and invisible characters. */
const encoded = (k: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc
      .tuple(fc.constantFrom('', ':', ' ', '-', ',', ', '), fc.constantFrom('', '0x'), fc.boolean())
      .map(([sep, prefix, upper]) => {
        const text = [...Buffer.from(k)].map((b) => `${prefix}${hex2(b)}`).join(sep);
        return upper ? text.toUpperCase().replace(/0X/g, '0x') : text;
      }),
    fc
      .tuple(
        fc.constantFrom<BufferEncoding>('utf8', 'utf16le'),
        fc.constantFrom<BufferEncoding>('base64', 'base64url'),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: 80 }),
        fc.constantFrom('\n', '\r\n', ' ', '\u200b', '\u00ad'),
      )
      .map(([charset, alphabet, offset, width, breaker]) => {
        const text = Buffer.concat([Buffer.from('x'.repeat(offset)), Buffer.from(k, charset)]).toString(alphabet);
        return text.match(new RegExp(`.{1,${width}}`, 'g'))!.join(breaker);
      }),
  );

const words = fc
  .array(fc.constantFrom('the', 'reply', 'said', 'ok', 'id:', 'token', '—', '(', ')', '🙂', 'é'), { maxLength: 6 })
  .map((w) => w.join(' '));

describe('the redactor against generated encodings of a generated key', () => {
  it('never lets the key through, and keeps the text around it', () => {
    fc.assert(
      fc.property(
        key.chain((k) => fc.tuple(fc.constant(k), spelled(k), words, words)),
        ([k, form, before, after]) => {
          const out = new Redactor([k]).redact(`${before} ${form} ${after}`);
          expect(out).toBe(`${before} *** ${after}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('never lets the key through in hex or base64, wherever it sits in the blob', () => {
    fc.assert(
      fc.property(
        key.chain((k) => fc.tuple(fc.constant(k), encoded(k), words, words)),
        ([k, form, before, after]) => {
          const out = new Redactor([k]).redact(`${before} ${form} ${after}`);
          expect(out.startsWith(`${before} `) && out.endsWith(` ${after}`)).toBe(true);
          // What is left of the form: at most the edge characters that also carry the bytes around the key.
          const left = out.slice(before.length + 1, out.length - after.length - 1).replace(/[\s\u200b\u00ad]/g, '');
          expect(left.length).toBeLessThanOrEqual(3 + 2 * 4);
          expect(out).toContain('***');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('returns text without the key unchanged', () => {
    fc.assert(
      fc.property(key, fc.string({ unit: 'binary', maxLength: 300 }), (k, text) => {
        expect(new Redactor([k]).redact(text)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });
});
