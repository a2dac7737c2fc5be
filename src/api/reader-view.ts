// A text as a reader may read it, built in one pass per step, each unit knowing the span of the
// source it came from. The redactor looks for secrets in these views and replaces the spans.
//
// Steps: escapes decoded (JSON `\uXXXX` `\u{…}` `\/`, `\xHH`, percent-encoding of UTF-8 bytes and
// `%uXXXX`, HTML/XML references, Markdown's `\|`), one layer at a time up to a fixed depth (so
// `%2573` is `%73` and then `s`); a right-to-left override's run drawn backwards; characters drawn
// as nothing (Unicode's default-ignorable code points) and combining marks dropped; letters drawn
// in another style (fullwidth, mathematical, circled) read as the ASCII of their NFKC form. Then
// three derived views: the skeleton (UTS #39 confusables, every dash a hyphen), the hex digits
// (separators and `0x` dropped, lower case) and the base64 characters (whitespace dropped).
import confusables from 'unhomoglyph/data.json' with { type: 'json' };

/** One reading of the text: its UTF-16 units, and the source span [start, end) of each. */
export interface Reading {
  readonly units: Uint16Array;
  readonly length: number;
  /** null: the units are the source's own, one for one. */
  readonly start: Int32Array | null;
  readonly end: Int32Array | null;
}

/** A view of a reading: its units, and the index in the reading each came from. */
export interface Derived {
  readonly units: Uint16Array;
  readonly length: number;
  readonly at: Int32Array;
}

const startOf = (r: Reading, i: number): number => (r.start ? r.start[i] : i);
const endOf = (r: Reading, i: number): number => (r.end ? r.end[i] : i + 1);

class ReadingBuilder implements Reading {
  units: Uint16Array;
  start: Int32Array;
  end: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.units = new Uint16Array(Math.max(16, capacity));
    this.start = new Int32Array(this.units.length);
    this.end = new Int32Array(this.units.length);
  }
  push(unit: number, start: number, end: number): void {
    if (this.length === this.units.length) {
      this.units = grown(this.units);
      this.start = grown(this.start);
      this.end = grown(this.end);
    }
    this.units[this.length] = unit;
    this.start[this.length] = start;
    this.end[this.length++] = end;
  }
  /** A code point, as one unit or a surrogate pair, both units spanning the whole source span. */
  pushPoint(point: number, start: number, end: number): void {
    if (point <= 0xffff) this.push(point, start, end);
    else {
      this.push(0xd800 + ((point - 0x10000) >> 10), start, end);
      this.push(0xdc00 + ((point - 0x10000) & 0x3ff), start, end);
    }
  }
}

class DerivedBuilder implements Derived {
  units: Uint16Array;
  at: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.units = new Uint16Array(Math.max(16, capacity));
    this.at = new Int32Array(this.units.length);
  }
  push(unit: number, at: number): void {
    if (this.length === this.units.length) {
      this.units = grown(this.units);
      this.at = grown(this.at);
    }
    this.units[this.length] = unit;
    this.at[this.length++] = at;
  }
}

function grown<T extends Uint16Array | Int32Array>(array: T): T {
  const bigger = new (array.constructor as new (n: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

export function unitsOf(text: string): Uint16Array {
  // Node's UTF-16LE encoder copies the code units as they are (lone surrogates too).
  const bytes = Buffer.from(text, 'utf16le');
  if (bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, text.length);
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

export function textOf(units: Uint16Array, length: number): string {
  let text = '';
  for (let i = 0; i < length; i += 8192) text += String.fromCharCode(...units.subarray(i, Math.min(length, i + 8192)));
  return text;
}

// ---- escapes, one layer -------------------------------------------------------------------------

const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const AMPERSAND = 0x26;

/** HTML's named references a key's characters (or invisible ones) may be written with. */
const NAMED = new Map<string, number>(
  Object.entries({
    amp: 0x26, AMP: 0x26, lt: 0x3c, LT: 0x3c, gt: 0x3e, GT: 0x3e, quot: 0x22, QUOT: 0x22, apos: 0x27,
    excl: 0x21, num: 0x23, dollar: 0x24, percnt: 0x25, lpar: 0x28, rpar: 0x29, ast: 0x2a, midast: 0x2a,
    plus: 0x2b, comma: 0x2c, period: 0x2e, sol: 0x2f, colon: 0x3a, semi: 0x3b, equals: 0x3d,
    quest: 0x3f, commat: 0x40, lsqb: 0x5b, lbrack: 0x5b, bsol: 0x5c, rsqb: 0x5d, rbrack: 0x5d,
    Hat: 0x5e, lowbar: 0x5f, UnderBar: 0x5f, grave: 0x60, DiacriticalGrave: 0x60, lcub: 0x7b,
    lbrace: 0x7b, verbar: 0x7c, vert: 0x7c, VerticalLine: 0x7c, rcub: 0x7d, rbrace: 0x7d,
    NewLine: 0x0a, Tab: 0x09, nbsp: 0xa0, shy: 0xad, hyphen: 0x2010, dash: 0x2010, ndash: 0x2013,
    mdash: 0x2014, minus: 0x2212, ZeroWidthSpace: 0x200b, zwnj: 0x200c, zwj: 0x200d, lrm: 0x200e,
    rlm: 0x200f, NoBreak: 0x2060, af: 0x2061, it: 0x2062, InvisibleTimes: 0x2062, ic: 0x2063,
    InvisibleComma: 0x2063,
  }), // prettier-ignore
);
/** HTML 4's references a browser reads without their semicolon. */
const LEGACY: [string, number][] = ['quot', 'QUOT', 'amp', 'AMP', 'nbsp', 'shy', 'lt', 'LT', 'gt', 'GT'].map((name) => [
  name,
  NAMED.get(name)!,
]);

function hexDigit(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
const isAlnum = (unit: number): boolean =>
  (unit >= 0x30 && unit <= 0x39) || ((unit | 0x20) >= 0x61 && (unit | 0x20) <= 0x7a);
const isPunctuation = (unit: number): boolean =>
  (unit >= 0x21 && unit <= 0x2f) ||
  (unit >= 0x3a && unit <= 0x40) ||
  (unit >= 0x5b && unit <= 0x60) ||
  (unit >= 0x7b && unit <= 0x7e);
const isCodePoint = (v: number): boolean => v > 0 && v <= 0x10ffff && (v < 0xd800 || v > 0xdfff);

/** A decoded escape: its code point and how many units it took, packed in one number; -1: none. */
const token = (point: number, length: number): number => point * 64 + length;

/** The value of `count` hex digits at `i`, or -1. */
function hexAt(u: Uint16Array, n: number, i: number, count: number): number {
  if (i + count > n) return -1;
  let value = 0;
  for (let k = i; k < i + count; k++) {
    const digit = hexDigit(u[k]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** One byte written `%HH` or `\xHH` at `i`: byte * 8 + units taken, or -1. */
function byteAt(u: Uint16Array, n: number, i: number): number {
  if (u[i] === PERCENT) {
    const b = hexAt(u, n, i + 1, 2);
    return b < 0 ? -1 : b * 8 + 3;
  }
  if (u[i] === BACKSLASH && i + 1 < n && u[i + 1] === 0x78) {
    const b = hexAt(u, n, i + 2, 2);
    return b < 0 ? -1 : b * 8 + 4;
  }
  return -1;
}

/** A UTF-8 sequence of escaped bytes at `i`; a `\xHH` that is not one is the code unit HH. */
function bytesAt(u: Uint16Array, n: number, i: number): number {
  const first = byteAt(u, n, i);
  if (first < 0) return -1;
  const lead = first >> 3;
  let length = first & 7;
  if (lead < 0x80) return token(lead, length);
  const need = lead >= 0xf0 && lead <= 0xf4 ? 3 : lead >= 0xe0 && lead < 0xf0 ? 2 : lead >= 0xc2 && lead < 0xe0 ? 1 : 0;
  let point = lead & [0, 0x1f, 0x0f, 0x07][need];
  let ok = need > 0;
  for (let k = 0; ok && k < need; k++) {
    const next = i + length < n ? byteAt(u, n, i + length) : -1;
    if (next < 0 || (next >> 3) >> 6 !== 2) ok = false;
    else {
      point = (point << 6) | ((next >> 3) & 0x3f);
      length += next & 7;
    }
  }
  if (ok && point >= [0, 0x80, 0x800, 0x10000][need] && isCodePoint(point)) return token(point, length);
  return u[i] === BACKSLASH ? token(lead, first & 7) : -1;
}

function backslashAt(u: Uint16Array, n: number, i: number): number {
  if (i + 1 >= n) return -1;
  const next = u[i + 1];
  if (next === 0x75 /* u */) {
    if (i + 2 < n && u[i + 2] === 0x7b /* { */) {
      let value = 0;
      let k = i + 3;
      while (k < n && k < i + 9 && hexDigit(u[k]) >= 0) value = value * 16 + hexDigit(u[k++]);
      return k > i + 3 && k < n && u[k] === 0x7d && isCodePoint(value) ? token(value, k + 1 - i) : -1;
    }
    const value = hexAt(u, n, i + 2, 4);
    return value < 0 ? -1 : token(value, 6);
  }
  if (next === 0x78 /* x */) return bytesAt(u, n, i);
  if (next === 0x6e /* n */) return token(0x0a, 2);
  if (next === 0x74 /* t */) return token(0x09, 2);
  if (next === 0x72 /* r */) return token(0x0d, 2);
  return isPunctuation(next) ? token(next, 2) : -1;
}

function percentAt(u: Uint16Array, n: number, i: number): number {
  if (i + 1 < n && (u[i + 1] | 0x20) === 0x75 /* %u */) {
    const value = hexAt(u, n, i + 2, 4);
    return value < 0 ? -1 : token(value, 6);
  }
  return bytesAt(u, n, i);
}

/** `&#N;` `&#xH;` (a browser reads them without the semicolon too) and named references. */
function referenceAt(u: Uint16Array, n: number, i: number): number {
  if (i + 1 < n && u[i + 1] === 0x23 /* # */) {
    let k = i + 2;
    const base = k < n && (u[k] | 0x20) === 0x78 ? 16 : 10;
    if (base === 16) k++;
    const digits = k;
    let value = 0;
    // Without a semicolon the digits' end is ambiguous (`&#3823` is `&23` in a key that holds
    // `&23`): the longest prefix that is printable ASCII is taken, else all of them.
    let ascii = -1;
    let asciiEnd = -1;
    while (k < n && k < digits + 8) {
      const digit = base === 16 ? hexDigit(u[k]) : u[k] >= 0x30 && u[k] <= 0x39 ? u[k] - 0x30 : -1;
      if (digit < 0) break;
      value = value * base + digit;
      k++;
      if (value >= 0x20 && value <= 0x7e) [ascii, asciiEnd] = [value, k];
    }
    if (k === digits) return -1;
    if (k < n && u[k] === 0x3b) return isCodePoint(value) ? token(value, k + 1 - i) : -1;
    if (ascii >= 0) return token(ascii, asciiEnd - i);
    return isCodePoint(value) ? token(value, k - i) : -1;
  }
  let k = i + 1;
  while (k < n && k <= i + 32 && isAlnum(u[k])) k++;
  if (k > i + 1 && k < n && u[k] === 0x3b) {
    const value = NAMED.get(textOf(u.subarray(i + 1, k), k - i - 1));
    if (value !== undefined) return token(value, k + 1 - i);
  }
  for (const [name, value] of LEGACY) {
    if (i + name.length >= n) continue;
    let same = true;
    for (let c = 0; same && c < name.length; c++) same = u[i + 1 + c] === name.charCodeAt(c);
    if (same) return token(value, name.length + 1);
  }
  return -1;
}

/** One layer of escapes decoded, or undefined when the reading holds none. */
export function decoded(r: Reading): Reading | undefined {
  const { units: u, length: n } = r;
  let i = 0;
  while (i < n && u[i] !== BACKSLASH && u[i] !== PERCENT && u[i] !== AMPERSAND) i++;
  if (i === n) return undefined;
  const out = new ReadingBuilder(n);
  for (let k = 0; k < i; k++) out.push(u[k], startOf(r, k), endOf(r, k));
  let any = false;
  while (i < n) {
    const unit = u[i];
    const found =
      unit === BACKSLASH ? backslashAt(u, n, i) : unit === PERCENT ? percentAt(u, n, i) : unit === AMPERSAND ? referenceAt(u, n, i) : -1; // prettier-ignore
    if (found < 0) {
      out.push(unit, startOf(r, i), endOf(r, i));
      i++;
      continue;
    }
    const length = found % 64;
    out.pushPoint(Math.floor(found / 64), startOf(r, i), endOf(r, i + length - 1));
    i += length;
    any = true;
  }
  return any ? out : undefined;
}

// ---- as drawn -----------------------------------------------------------------------------------

const OVERRIDE = 0x202e;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;

/**
 * The reading as displayed where U+202E (RIGHT-TO-LEFT OVERRIDE) draws what follows it backwards,
 * up to U+202C (POP DIRECTIONAL FORMATTING), a line break or the end.
 */
export function displayed(r: Reading): Reading {
  const { units: u, length: n } = r;
  if (!u.subarray(0, n).includes(OVERRIDE)) return r;
  const out = new ReadingBuilder(n);
  const copy = (k: number): void => out.push(u[k], startOf(r, k), endOf(r, k));
  for (let i = 0; i < n;) {
    copy(i);
    if (u[i++] !== OVERRIDE) continue;
    let end = i;
    while (end < n && u[end] !== 0x202c && u[end] !== 0x0a && u[end] !== 0x0d) end++;
    for (let k = end - 1; k >= i; k--) {
      // By code point: a surrogate pair keeps its order.
      if (isLow(u[k]) && k > i && isHigh(u[k - 1])) {
        copy(k - 1);
        copy(k);
        k--;
      } else copy(k);
    }
    i = end;
  }
  return out;
}

// ---- as seen ------------------------------------------------------------------------------------

/**
 * What a code point reads as, computed once per code point: undefined for itself, a string for
 * another (empty: nothing). A table indexed by code point, so hostile text of every code point
 * costs a bounded amount.
 */
class CodePointTable {
  private index?: Int32Array;
  private readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  constructor(private readonly compute: (char: string) => string | undefined) {}
  get(point: number): string | undefined {
    this.index ??= new Int32Array(0x110000);
    let id = this.index[point];
    if (id === 0) {
      const value = this.compute(String.fromCodePoint(point));
      if (value === undefined) id = -1;
      else {
        id = this.ids.get(value) ?? this.values.push(value);
        this.ids.set(value, id);
      }
      this.index[point] = id;
    }
    return id < 0 ? undefined : this.values[id - 1];
  }
}

const DRAWN_AS_NOTHING = /^[\p{Default_Ignorable_Code_Point}\p{M}]$/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** Invisible characters and marks: nothing; a styled letter: the ASCII of its NFKC form. */
const SEEN = new CodePointTable((char) => {
  if (DRAWN_AS_NOTHING.test(char)) return '';
  const plain = char.normalize('NFKC');
  return plain !== char && PRINTABLE_ASCII.test(plain) ? plain : undefined;
});

/** The reading without what is drawn as nothing, styled letters read as ASCII. */
export function visible(r: Reading): Reading {
  const { units: u, length: n } = r;
  let ascii = true;
  for (let i = 0; ascii && i < n; i++) ascii = u[i] < 0x80;
  if (ascii) return r;
  const out = new ReadingBuilder(n);
  for (let i = 0; i < n;) {
    const size = isHigh(u[i]) && i + 1 < n && isLow(u[i + 1]) ? 2 : 1;
    const point = size === 2 ? 0x10000 + ((u[i] - 0xd800) << 10) + (u[i + 1] - 0xdc00) : u[i];
    const seen = point < 0x80 ? undefined : SEEN.get(point);
    const [start, end] = [startOf(r, i), endOf(r, i + size - 1)];
    if (seen === undefined) for (let k = i; k < i + size; k++) out.push(u[k], start, end);
    else for (let k = 0; k < seen.length; k++) out.push(seen.charCodeAt(k), start, end);
    i += size;
  }
  return out;
}

// ---- derived views ------------------------------------------------------------------------------

/** Dashes and hyphens a reader takes for `-` (confusables.txt maps some to a katakana bar). */
const DASHES = new Set([0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xfe58, 0xfe63, 0xff0d]);
const PROTOTYPE = confusables as Record<string, string>;
const MARKS = /\p{M}/gu;

/** UTS #39's skeleton of one character, marks dropped; a space and `+` read alike (URL forms). */
const SKELETON = new CodePointTable((char) => {
  const point = char.codePointAt(0)!;
  if (DASHES.has(point)) return '-';
  if (char === ' ') return '+';
  const parts = [...char.normalize('NFD').replace(MARKS, '')].map((c) => PROTOTYPE[c] ?? c);
  const skeleton = parts.join('').normalize('NFD').replace(MARKS, '');
  return skeleton === char ? undefined : skeleton;
});

const ASCII_SKELETON = Array.from({ length: 0x80 }, (_, point) => SKELETON.get(point));

/** The reading as its UTS #39 skeleton. */
export function skeleton(r: Reading): Derived {
  const { units: u, length: n } = r;
  const out = new DerivedBuilder(n + (n >> 2));
  for (let i = 0; i < n;) {
    const size = isHigh(u[i]) && i + 1 < n && isLow(u[i + 1]) ? 2 : 1;
    const point = size === 2 ? 0x10000 + ((u[i] - 0xd800) << 10) + (u[i + 1] - 0xdc00) : u[i];
    const read = point < 0x80 ? ASCII_SKELETON[point] : SKELETON.get(point);
    if (read === undefined) for (let k = i; k < i + size; k++) out.push(u[k], i);
    else for (let k = 0; k < read.length; k++) out.push(read.charCodeAt(k), i);
    i += size;
  }
  return out;
}

const BREAK = 0; // stands for any run of characters no pattern of the view holds
const isSpace = (unit: number): boolean => unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
/** What may sit between a hex dump's bytes: `73:69`, `73 69`, `73-69`, `0x73,0x69`, `73.69`. */
const isHexSeparator = (unit: number): boolean =>
  isSpace(unit) || unit === 0x3a || unit === 0x2d || unit === 0x2c || unit === 0x3b || unit === 0x2e || unit === 0x5f;

/** The hex digits of the reading, in lower case, separators and `0x` prefixes dropped (`x` is no hex digit). */
export function hexDigits(r: Reading): Derived {
  const { units: u, length: n } = r;
  const out = new DerivedBuilder(n);
  // A digit after `0x` comes from the prefix on: a match covers it.
  let from = -1;
  for (let i = 0; i < n; i++) {
    const unit = u[i];
    const prefix = unit === 0x30 && i + 2 < n && (u[i + 1] | 0x20) === 0x78 && hexDigit(u[i + 2]) >= 0;
    if (prefix) from = i++;
    else if (hexDigit(unit) >= 0) {
      out.push(unit >= 0x41 && unit <= 0x46 ? unit | 0x20 : unit, from >= 0 ? from : i);
      from = -1;
    } else if (!isHexSeparator(unit) && (out.length === 0 || out.units[out.length - 1] !== BREAK)) out.push(BREAK, i);
  }
  return out;
}

const isBase64 = (unit: number): boolean =>
  isAlnum(unit) || unit === 0x2b || unit === 0x2f || unit === 0x3d || unit === 0x2d || unit === 0x5f;

/** The base64 (and base64url) characters of the reading, whitespace between them dropped. */
export function base64Characters(r: Reading): Derived {
  const { units: u, length: n } = r;
  const out = new DerivedBuilder(n);
  for (let i = 0; i < n; i++) {
    const unit = u[i];
    if (isBase64(unit)) out.push(unit, i);
    else if (!isSpace(unit) && (out.length === 0 || out.units[out.length - 1] !== BREAK)) out.push(BREAK, i);
  }
  return out;
}

/** How many layers of escapes are decoded: `%252573` is `s` after three. */
export const DECODE_DEPTH = 3;

/**
 * Calls `visit` with the text as seen after 0, 1, … up to DECODE_DEPTH layers of escapes are
 * decoded (while a layer decodes something). Every layer is looked at: an escape may swallow the
 * character before a secret (`%` then `4a…`), so the layer before it still shows the secret.
 */
export function forEachReading(text: string, visit: (seen: Reading) => void): void {
  let reading: Reading | undefined = { units: unitsOf(text), length: text.length, start: null, end: null };
  for (let depth = 0; reading && depth <= DECODE_DEPTH; depth++) {
    visit(visible(displayed(reading)));
    if (depth < DECODE_DEPTH) reading = decoded(reading);
  }
}

export { startOf, endOf };
