import { describe, expect, it } from 'vitest';
import { encodedForms } from '../../test/support/encoded-forms.ts';
import { Redactor, redactor } from './redact.js';

const KEY = 'sk_live_9f8e7d6c5b4a3210';
const AUTH = `Bearer ${KEY}`;

describe('redactor', () => {
  const redact = redactor([KEY, AUTH]);
  it.each([KEY, AUTH])('removes every encoded form of %s', (secret) => {
    for (const form of encodedForms(secret)) {
      const out = redact(`before ${form} after`);
      for (const plain of [KEY, Buffer.from(KEY).toString('base64').slice(2, 20)]) expect(out).not.toContain(plain);
      expect(out).toContain('***');
    }
  });

  it('leaves text without the key alone', () => {
    expect(redact('deployment dep_1 is live')).toBe('deployment dep_1 is live');
  });
});

describe('Redactor: the run-wide list, on decoded text', () => {
  const key = 'ams/Key+0123456789';
  const redactor = new Redactor([key]);
  it.each([
    ['raw', key],
    ['\\/-escaped', 'ams\\/Key+0123456789'],
    ['\\u-escaped', 'ams\\/Key\\u002B0123456789'],
    [
      '\\u lower case, every character',
      [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    ],
    ['percent-encoded', encodeURIComponent(key)],
    ['percent-encoded, lower-case hex', encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['base64', Buffer.from(key).toString('base64')],
  ])('removes the key %s', (_name, form) => {
    const out = redactor.redact(`error: ${form} was refused`);
    expect(out).toBe('error: *** was refused');
  });

  it('removes the key inside a longer base64url blob (the edge characters carry other bytes too)', () => {
    const out = redactor.redact(Buffer.from(`xy${key}z`).toString('base64url'));
    expect(out).toContain('***');
    expect(out.length).toBeLessThan(12);
  });

  it('finds a JSON-escaped key once JSON.parse has decoded it, and in JSON values', () => {
    const decoded = JSON.parse('{"message":"bad key ams\\/Key\\u002B0123456789"}') as { message: string };
    expect(redactor.redact(decoded.message)).toBe('bad key ***');
    expect(redactor.redactJson({ [key]: [decoded] })).toEqual({ '***': [{ message: 'bad key ***' }] });
  });

  it('learns secrets as the run reads them, trims them, and ignores ones too short to look for', () => {
    const r = new Redactor();
    expect(r.redact('judge-key-123456')).toBe('judge-key-123456');
    r.add('judge-key-123456\n', 'abc', '', undefined);
    expect(r.size).toBe(1);
    expect(r.redact('x judge-key-123456 y')).toBe('x *** y');
  });

  it('keeps ordinary text and is quick on a large body', () => {
    const text = 'a'.repeat(2_000_000);
    const began = performance.now();
    expect(redactor.redact(text)).toBe(text);
    // A figure, not a speed test: it only must not be quadratic.
    expect(performance.now() - began).toBeLessThan(20_000);
  });
});

describe('Redactor on a sink’s final text', () => {
  const key = 'ams/Key+01&23<456789';
  const redactor = new Redactor([key]);
  it.each([
    ['XML', 'ams/Key+01&amp;23&lt;456789'],
    ['numeric references', 'ams&#47;Key&#x2b;01&#38;23&#60;456789'],
    ["HTML's named references", 'ams&sol;Key&plus;01&AMP;23&LT456789'],
    ['references without their semicolon', 'ams&#47Key&#x2B01&#3823&#x3c456789'],
    ['Markdown escapes', 'ams\\/Key\\+01\\&23\\<456789'],
    ['JSON.stringify', JSON.stringify(key).slice(1, -1)],
  ])('removes the key in %s', (_name, form) => {
    expect(redactor.redact(`<failure message="${form}"/>`)).toBe('<failure message="***"/>');
  });
});

describe('a key with invisible characters between its characters, as a reader sees it', () => {
  const redact = redactor([KEY]);
  const spelled = (between: string): string => [...KEY].join(between);
  it.each([
    ['soft hyphen', '\u00ad'],
    ['combining grapheme joiner', '\u034f'],
    ['Mongolian vowel separator', '\u180e'],
    ['variation selector 16', '\ufe0f'],
    ['Hangul filler', '\u3164'],
    ['zero-width space', '\u200b'],
    ['zero-width joiner', '\u200d'],
    ['word joiner', '\u2060'],
    ['byte order mark', '\ufeff'],
    ['variation selector 17 (astral)', '\u{e0100}'],
    ['&shy;', '&shy;'],
    ['&shy without its semicolon', '&shy'],
    ['&#173;', '&#173;'],
    ['&#x200B;', '&#x200B;'],
    ['JSON \\u00ad', '\\u00ad'],
    ['percent %C2%AD', '%C2%AD'],
  ])('redacts the key with a %s between every character, and only its span', (_name, between) => {
    expect(redact(`id=${spelled(between)} end`)).toBe('id=*** end');
    // One invisible character anywhere, or a run of them.
    expect(redact(`<${KEY.slice(0, 5)}${between}${between}${KEY.slice(5)}>`)).toBe('<***>');
  });
  it('leaves text that is not the key alone, invisible characters and all', () => {
    expect(redact(`sk_live\u00ad_other a\u200bb`)).toBe(`sk_live\u00ad_other a\u200bb`);
    expect(redact(`${KEY.slice(0, -1)}\u00adX`)).toBe(`${KEY.slice(0, -1)}\u00adX`);
  });
});

describe('a key a reader still reads: marks on it, fullwidth, hex, base64 through invisible characters', () => {
  const redact = redactor([KEY]);
  const b64 = Buffer.from(KEY).toString('base64');
  const fullwidth = (text: string): string =>
    [...text].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');
  it.each([
    ['struck through (U+0336 on each character)', [...KEY].map((c) => `${c}\u0336`).join('')],
    ['underlined (U+0332)', [...KEY].map((c) => `${c}\u0332`).join('')],
    ['enclosed (U+20DD)', [...KEY].map((c) => `${c}\u20dd`).join('')],
    ['fullwidth', fullwidth(KEY)],
    ['half fullwidth', `${fullwidth(KEY.slice(0, 8))}${KEY.slice(8)}`],
    [
      'in mathematical bold',
      [...KEY].map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97) : c)).join(''),
    ],
    ['in mathematical monospace digits', KEY.replace(/\d/g, (d) => String.fromCodePoint(0x1d7f6 + Number(d)))],
    [
      'enclosed (circled letters)',
      [...KEY].map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(0x24d0 + c.charCodeAt(0) - 97) : c)).join(''),
    ],
    ['hex', Buffer.from(KEY).toString('hex')],
    ['HEX', Buffer.from(KEY).toString('hex').toUpperCase()],
    ['base64 with zero-width spaces', [...b64].join('\u200b')],
    ['base64 with soft hyphens', [...b64].join('\u00ad')],
  ])('redacts the key %s', (_name, form) => {
    const out = redact(`id=${form} end`);
    expect(out).toBe('id=*** end');
  });
  it('leaves fullwidth text, accents and hex that are not the key alone', () => {
    const text = `${fullwidth('hello')} café naïve ${Buffer.from('not the key').toString('hex')} 𝐱² ⓐ 𝛂 ①`;
    expect(redact(text)).toBe(text);
  });
  it('redacts a secret holding its own combining mark, raw or with invisible characters between', () => {
    const accented = 'cafe\u0301-secret-42';
    const r = redactor([accented]);
    expect(r(`x ${accented} y`)).toBe('x *** y');
    expect(r(`x ${[...accented].join('\u00ad')} y`)).toBe('x *** y');
  });
});

describe('a key drawn backwards by a right-to-left override reads as the key', () => {
  const redact = redactor([KEY]);
  const backwards = (text: string): string => [...text].reverse().join('');
  it('redacts the key reversed after U+202E, alone, up to U+202C, or half of it', () => {
    expect(redact(`id=\u202e${backwards(KEY)}`)).toBe('id=***');
    expect(redact(`id=\u202e${backwards(KEY)}\u202c end`)).toBe('id=*** end');
    expect(redact(`id=${KEY.slice(0, 7)}\u202e${backwards(KEY.slice(7))}\u202c end`)).toBe('id=*** end');
    expect(redact(`a\u202e${backwards(`x ${KEY} y`)}\u202c b`)).not.toContain(KEY.slice(3, 12));
  });
  it('leaves an override around other text alone, and the key written backwards without one', () => {
    expect(redact('\u202eolleh\u202c')).toBe('\u202eolleh\u202c');
    expect(redact(backwards(KEY))).toBe(backwards(KEY));
  });
});

describe('the key in every form a reader decodes (issue 39)', () => {
  const key = 'sk-live-Qx7Zr9Wv2Lp4ace0';
  const redact = redactor([key]);
  const bytes = Buffer.from(key);
  const hex = (sep: string, prefix = '', upper = false) =>
    [...bytes]
      .map((b) => `${prefix}${b.toString(16).padStart(2, '0')}`[upper ? 'toUpperCase' : 'toLowerCase']())
      .join(sep);
  const b64 = bytes.toString('base64');
  const cyrillic: Record<string, string> = {
    a: 'а',
    c: 'с',
    e: 'е',
    o: 'о',
    p: 'р',
    x: 'х',
    i: 'і',
    s: 'ѕ',
    Z: 'Ζ',
  };
  it.each([
    ...['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\ufe58', '\ufe63', '\uff0d'].map(
      (dash) => [`with U+${dash.charCodeAt(0).toString(16).toUpperCase()} for each hyphen`, key.replace(/-/g, dash)],
    ),
    ['with Cyrillic and Greek look-alikes', [...key].map((c) => cyrillic[c] ?? c).join('')],
    ['with a Cyrillic O for the zero and l for the one', key.replace('0', 'О')],
    ['in hex with colons', hex(':')],
    ['in hex with spaces', hex(' ')],
    ['in hex with dashes, upper case', hex('-', '', true)],
    ['in hex as 0x73,0x6b', hex(',', '0x')],
    ['in hex as 0x73, 0x6B', hex(', ', '0X', true)],
    ['in base64 wrapped every 4 characters', b64.match(/.{1,4}/g)!.join('\n')],
    ['in base64 with spaces between characters', [...b64].join(' ')],
    ['in base64 wrapped with CRLF', b64.match(/.{1,7}/g)!.join('\r\n')],
    ['in base64 of its UTF-16LE', Buffer.from(key, 'utf16le').toString('base64')],
    ['in base64url of its UTF-16LE', Buffer.from(key, 'utf16le').toString('base64url')],
    ['percent-encoded twice (%2573)', [...key].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join('')],
    ['percent-encoded three times (%252573)', [...key].map((c) => `%2525${c.charCodeAt(0).toString(16)}`).join('')],
    ['as %uHHHH', [...key].map((c) => `%u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['as \\xHH', [...key].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join('')],
    ['as \\u{HH}', [...key].map((c) => `\\u{${c.charCodeAt(0).toString(16)}}`).join('')],
    ['as &#x2D; between JSON escapes', key.replace(/-/g, '&#x2D;').replace(/Q/g, '\\u0051')],
  ])('redacts the key %s', (_name, form) => {
    expect(redact(`id=${form} end`)).toBe('id=*** end');
  });
  it('leaves text that only looks like the key or its encodings alone', () => {
    const text = [
      'sk—live—other Cyrillic: привет мир, Greek: αβγ',
      hex(':').slice(0, -6),
      `${b64.slice(0, 12)}\n${b64.slice(14)}`,
      '%2541%u0041\\x41\\u{41} 0x41,0x42 — – -',
    ].join('\n');
    expect(redact(text)).toBe(text);
  });
});
