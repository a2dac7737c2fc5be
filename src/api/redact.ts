// Secrets must never come back out, whatever form they return in. One Redactor per run holds every
// secret the run knows (the API key and its Authorization value, a judge's key, header values and
// manifest values read from the environment, the GitHub token), and every sink (log, summary,
// outputs, files, comments, the terminal, --json) passes decoded text through it. It finds a
// secret raw, escaped by JSON (`\/`, `\uXXXX`), Markdown (`\|`), XML or HTML (`&amp;`, `&plus;`,
// `&#x2B;`) or percent-encoding, mixed as an encoder likes, in hex, and in base64 / base64url
// (alone or inside a longer encoded blob). So a sink may redact its final text, whatever format it wrote.
// It matches what a reader sees: characters a browser or a terminal draws as nothing (Unicode's
// Default_Ignorable_Code_Point: the soft hyphen, zero-width characters, variation selectors, the
// Hangul filler…), raw or as a reference, may sit between a secret's characters, and so may
// combining marks (a struck-through or underlined key is still read), styled letters (fullwidth
// `ｓｉｍ`, mathematical `𝐬𝐢𝐦`, enclosed `ⓢⓘⓜ`) stand for their ASCII letters, and the redaction
// covers the whole span. The base64 and hex forms are looked for the same way.

/** Shorter forms would redact ordinary words: a secret this short is not looked for in base64. */
const MIN_FORM_CHARS = 6;
/** Past this a secret is not one a person set; its regular expression would only cost time. */
const MAX_SECRET_CHARS = 8192;

/** The base64 text that encodes `bytes` wherever they sit in a longer encoded string. */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, '')];
  for (let offset = 0; offset < 3; offset++) {
    // With `offset` bytes before it, the first characters also carry those bytes' bits, and the
    // last group the bytes after it: keep only the characters that depend on the secret alone.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const skip = [0, 2, 3][offset];
    const whole = Math.floor((offset + bytes.length) / 3) * 4;
    cores.push(encoded.slice(skip, whole));
  }
  return cores;
}

// Unicode mode (the `u` flag, for \p{…}) refuses escapes of characters that are not syntax, such as `-`.
const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * One character of a secret in every spelling a JSON encoder, a URL encoder or a mix of them may
 * give it: itself, `\uXXXX` (either case), `\/` `\\` `\"`, `%XX` of each UTF-8 byte, `+` for a space.
 */
function characterForms(char: string): string {
  const code = char.codePointAt(0)!;
  const forms = [escapeRegExp(char)];
  if (code <= 0xffff) forms.push(`\\\\u${hexCaseless(code.toString(16).padStart(4, '0'))}`);
  else {
    // Outside the BMP JSON writes a surrogate pair.
    const [high, low] = [char.charCodeAt(0), char.charCodeAt(1)];
    forms.push(`\\\\u${hexCaseless(high.toString(16))}\\\\u${hexCaseless(low.toString(16))}`);
  }
  // A backslash before punctuation: JSON's `\/` `\\` `\"`, Markdown's `\|` `\*`.
  if (/[!-/:-@[-`{-~]/.test(char)) forms.push(`\\\\${escapeRegExp(char)}`);
  // XML and HTML character references: `&amp;`, `&plus;`, `&#43;`, `&#x2B;`.
  const named = NAMED_ENTITIES[char];
  if (named) forms.push(`&${named}`);
  // A browser reads a numeric reference without its semicolon too (`&#45demo`).
  forms.push(`&#0*${code};?`, `&#[xX]0*${hexCaseless(code.toString(16))};?`);
  if (char === '\n') forms.push('\\\\n');
  if (char === '\t') forms.push('\\\\t');
  const bytes = [...Buffer.from(char, 'utf8')].map((b) => `%${hexCaseless(b.toString(16).padStart(2, '0'))}`);
  forms.push(bytes.join(''));
  if (char === ' ') forms.push('\\+');
  return `(?:${forms.join('|')})`;
}

/**
 * HTML's named references for ASCII punctuation (`&plus;`, `&sol;`, `&equals;`…): a page renders
 * each as its character, so a key written with them is the key. The four of HTML 4 may also come
 * without the semicolon, in either case.
 */
const NAMED_ENTITIES: Record<string, string> = {
  '&': '(?:amp|AMP);?',
  '<': '(?:lt|LT);?',
  '>': '(?:gt|GT);?',
  '"': '(?:quot|QUOT);?',
  "'": 'apos;',
  '!': 'excl;',
  '#': 'num;',
  $: 'dollar;',
  '%': 'percnt;',
  '(': 'lpar;',
  ')': 'rpar;',
  '*': '(?:ast|midast);',
  '+': 'plus;',
  ',': 'comma;',
  '.': 'period;',
  '/': 'sol;',
  ':': 'colon;',
  ';': 'semi;',
  '=': 'equals;',
  '?': 'quest;',
  '@': 'commat;',
  '[': '(?:lsqb|lbrack);',
  '\\': 'bsol;',
  ']': '(?:rsqb|rbrack);',
  '^': 'Hat;',
  _: '(?:lowbar|UnderBar);',
  '`': '(?:grave|DiacriticalGrave);',
  '{': '(?:lcub|lbrace);',
  '|': '(?:verbar|vert|VerticalLine);',
  '}': '(?:rcub|rbrace);',
  '\n': 'NewLine;',
  '\t': 'Tab;',
};

const hexCaseless = (hex: string): string =>
  [...hex].map((c) => (/[a-f]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');

/**
 * One invisible character: raw, as an HTML reference (`&shy;`, `&#173;`, `&#x200B;`), JSON-escaped
 * (`\u00ad`) or percent-encoded (`%C2%AD`).
 */
const INVISIBLE = (() => {
  const codes = [0xad, 0x34f, 0x61c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180c, 0x180d, 0x180e, 0x180f];
  for (let c = 0x200b; c <= 0x200f; c++) codes.push(c);
  for (let c = 0x202a; c <= 0x202e; c++) codes.push(c);
  for (let c = 0x2060; c <= 0x206f; c++) codes.push(c);
  for (let c = 0xfe00; c <= 0xfe0f; c++) codes.push(c);
  codes.push(0x3164, 0xfeff, 0xffa0);
  const hex = codes.map((c) => c.toString(16));
  const encoded = codes.map((c) =>
    [...Buffer.from(String.fromCodePoint(c), 'utf8')].map((b) => `%${hexCaseless(b.toString(16))}`).join(''),
  );
  const forms = [
    '\\p{Default_Ignorable_Code_Point}',
    // Combining marks draw on the character before them (a strike, an underline): it stays legible.
    '\\p{M}',
    // `&shy` is one of HTML's legacy references, read without its semicolon too.
    '&shy;?',
    '&(?:ZeroWidthSpace|zwnj|zwj|lrm|rlm|NoBreak|InvisibleTimes|InvisibleComma|af|it|ic);',
    `&#0*(?:${codes.join('|')});?`,
    `&#[xX]0*(?:${hex.map(hexCaseless).join('|')});?`,
    `\\\\u(?:${hex.map((h) => hexCaseless(h.padStart(4, '0'))).join('|')})`,
    ...encoded,
  ];
  return new RegExp(forms.join('|'), 'gu');
})();

/**
 * Letters drawn in another style that read as ASCII (Unicode's compatibility forms): fullwidth
 * forms, mathematical alphanumerics (𝐬𝐢𝐦), enclosed letters and digits (ⓢ), superscripts and
 * subscripts. Each is read as the ASCII character its NFKC form is, when it is one.
 */
const STYLED = /[\uff01-\uff5e\u2070-\u209f\u2460-\u24ff]|[\u{1d400}-\u{1d7ff}\u{1f100}-\u{1f1ff}]/u;
const READ = new RegExp(`(${STYLED.source})|${INVISIBLE.source}`, 'gu');

const styledCache = new Map<string, string | undefined>();
/** The ASCII character a styled letter reads as, or undefined. */
function styledAs(char: string): string | undefined {
  if (styledCache.has(char)) return styledCache.get(char);
  const plain = char.normalize('NFKC');
  const ascii = /^[!-~]$/.test(plain) ? plain : undefined;
  styledCache.set(char, ascii);
  return ascii;
}

/**
 * The text as a reader sees it (its invisible characters dropped, styled letters read as ASCII),
 * and where in the text each code unit of it came from.
 */
function visible(text: string): { text: string; from: number[] } {
  const from: number[] = [];
  let out = '';
  let last = 0;
  for (const match of text.matchAll(READ)) {
    for (let i = last; i < match.index; i++) from.push(i);
    out += text.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[1] === undefined) continue; // invisible: dropped
    const plain = styledAs(match[0]);
    if (plain) {
      out += plain;
      from.push(match.index);
    } else {
      out += match[0];
      for (let i = match.index; i < last; i++) from.push(i);
    }
  }
  for (let i = last; i < text.length; i++) from.push(i);
  return { text: out + text.slice(last), from };
}

/**
 * The text as it is displayed where U+202E (RIGHT-TO-LEFT OVERRIDE) draws what follows it
 * backwards, up to U+202C (POP DIRECTIONAL FORMATTING), a line break or the end; and where in the
 * text each code unit of it came from. Without an override, the text itself (no map).
 */
function displayed(text: string): { text: string; from?: number[] } {
  if (!text.includes('\u202e')) return { text };
  const from: number[] = [];
  let out = '';
  let last = 0;
  for (const match of text.matchAll(/\u202e([^\u202c\n\r]*)/g)) {
    for (let i = last; i <= match.index; i++) from.push(i); // up to the override itself
    out += text.slice(last, match.index + 1);
    const points: [string, number][] = [];
    let at = match.index + 1;
    for (const point of match[1]) {
      points.push([point, at]);
      at += point.length;
    }
    for (const [point, start] of points.reverse()) {
      out += point;
      for (let k = 0; k < point.length; k++) from.push(start + k);
    }
    last = match.index + match[0].length;
  }
  for (let i = last; i < text.length; i++) from.push(i);
  return { text: out + text.slice(last), from };
}

/** Every literal form of each secret worth looking for (base64 ones), longest first. */
export function secretForms(secrets: string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    for (const core of base64Cores(Buffer.from(secret, 'utf8'))) {
      forms.add(core);
      forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...forms].filter((f) => f.length >= MIN_FORM_CHARS).sort((a, b) => b.length - a.length);
}

/** Text that may hold an invisible character in some form: raw, a reference, `\u`, percent-encoded. */
const MAY_HIDE = new RegExp(
  `\\p{Default_Ignorable_Code_Point}|\\p{M}|${STYLED.source}|&[#a-zA-Z]|\\\\u|%[cCdDeEfF]`,
  'u',
);

/** The run's one list of secrets and the function every sink applies. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private forms: string[] = [];
  private spelled?: RegExp;

  constructor(secrets: Iterable<string | undefined> = []) {
    this.add(...secrets);
  }

  /** Adds secrets as the run learns them (a judge's key read from the environment, say). */
  add(...values: (string | undefined)[]): this {
    let changed = false;
    for (const raw of values) {
      const value = raw?.trim();
      if (!value || value.length < MIN_FORM_CHARS || value.length > MAX_SECRET_CHARS || this.secrets.has(value))
        continue;
      this.secrets.add(value);
      changed = true;
    }
    if (changed) {
      const all = [...this.secrets].sort((a, b) => b.length - a.length);
      this.forms = secretForms(all);
      // A secret as a reader sees it too (its own marks or invisible characters dropped), so the
      // match on the visible text finds it; and its base64 and hex forms, through invisible ones.
      const spellings = [...new Set(all.flatMap((secret) => [secret, visible(secret).text]))]
        .filter((secret) => secret.length >= MIN_FORM_CHARS)
        .map((secret) => [...secret].map(characterForms).join(''));
      const encoded = [
        ...this.forms.map(escapeRegExp),
        ...all.map((secret) => hexCaseless(Buffer.from(secret, 'utf8').toString('hex'))),
      ];
      this.spelled = new RegExp([...spellings, ...encoded].join('|'), 'gu');
    }
    return this;
  }

  get size(): number {
    return this.secrets.size;
  }

  /** The text with every form of every secret replaced by `***`. */
  readonly redact = (text: string): string => {
    if (this.secrets.size === 0 || text === '') return text;
    let out = this.spelled ? this.redactThroughInvisible(text, this.spelled).replace(this.spelled, '***') : text;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join('***');
    return out;
  };

  /**
   * A secret with invisible characters between its characters, matched on the text as a reader
   * sees it; the whole span it covers in the original text (the invisible characters too) goes.
   */
  private redactThroughInvisible(text: string, spelled: RegExp): string {
    if (!MAY_HIDE.test(text)) return text;
    const shown = displayed(text);
    const seen = visible(shown.text);
    if (seen.text === text) return text;
    const at = (k: number): number => (shown.from ? shown.from[seen.from[k]] : seen.from[k]);
    // Each match's span in the text: every code unit it was read from (a run the override reversed
    // maps backwards), between the characters a reader sees around it.
    const spans = [...seen.text.matchAll(spelled)].map((m) => {
      let start = Infinity;
      let last = -1;
      for (let k = m.index; k < m.index + m[0].length; k++) {
        start = Math.min(start, at(k));
        last = Math.max(last, at(k));
      }
      // From the character a reader sees before it (an override or invisible character before the first goes too).
      const before = m.index > 0 ? at(m.index - 1) + 1 : 0;
      const next = m.index + m[0].length;
      const after = next < seen.from.length ? at(next) : text.length;
      return [before < start ? before : start, after > last ? after : last + 1];
    });
    // Spans a reversal interleaved are merged; then replaced from the end.
    const merged: number[][] = [];
    for (const span of spans.sort((a, b) => a[0] - b[0])) {
      const previous = merged.at(-1);
      if (previous && span[0] <= previous[1]) previous[1] = Math.max(previous[1], span[1]);
      else merged.push([...span]);
    }
    let out = text;
    for (const [start, end] of merged.reverse()) out = `${out.slice(0, start)}***${out.slice(end)}`;
    return out;
  }

  /** A JSON value with every string in it (keys too) redacted; a copy, the value is left as it was. */
  readonly redactJson = <T>(value: T): T => {
    if (this.secrets.size === 0) return value;
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') return this.redact(v);
      if (depth > 64 || v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
      // Only plain records: a Set, a Map or a class instance is the program's own, not text to show.
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return v;
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [this.redact(k), walk(item, depth + 1)]));
    };
    return walk(value, 0) as T;
  };
}

/** A function that replaces every form of the secrets with `***`. */
export function redactor(secrets: string[]): (text: string) => string {
  return new Redactor(secrets).redact;
}
