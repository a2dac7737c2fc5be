// Secrets must never come back out, whatever form they return in. One Redactor per run holds every
// secret the run knows (the API key and its Authorization value, a judge's key, header values and
// manifest values read from the environment, the GitHub token), and every sink (log, summary,
// outputs, files, comments, the terminal, --json) passes decoded text through it.
//
// It matches what a reader decodes, in one pass per view (reader-view.ts): escapes of JSON
// (`\/`, `\uXXXX`, `\u{…}`), JavaScript and C (`\xHH`), URLs (`%XX` of each UTF-8 byte, `%uXXXX`,
// nested up to three layers: `%2573`), XML and HTML (`&amp;`, `&plus;`, `&#x2B;`, without the
// semicolon too) and Markdown (`\|`), mixed as an encoder likes; characters drawn as nothing
// (Unicode's default-ignorable code points) and combining marks between a secret's characters;
// styled letters (fullwidth, mathematical, circled) and look-alikes (UTS #39 confusables: Cyrillic
// and Greek letters, every dash) read as the letters they look like; a right-to-left override read
// as drawn; hex with or without separators, in either case; base64 and base64url of the secret's
// UTF-8 or UTF-16LE, alone or inside a longer blob, through whitespace and line breaks. Every form
// of every secret is found in each view by one automaton (multi-search.ts), and the output is the
// text with each matched span (the invisible characters around it too) replaced by `***`.
import { MultiSearch } from './multi-search.js';
import {
  type Derived,
  type Reading,
  base64Characters,
  endOf,
  forEachReading,
  hexDigits,
  skeleton,
  startOf,
  textOf,
} from './reader-view.js';

/** Shorter forms would redact ordinary words: a secret this short is not looked for in base64. */
const MIN_FORM_CHARS = 6;
/** Past this a secret is not one a person set; its automaton would only cost memory. */
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

/** The searches of one set of secrets: its skeletons, its hex and its base64 forms. */
interface Searches {
  skeleton: MultiSearch;
  hex: MultiSearch;
  base64: MultiSearch;
}

function searchesFor(secrets: string[]): Searches {
  const skeletons = new Set<string>();
  const hex = new Set<string>();
  const base64 = new Set<string>();
  for (const secret of secrets) {
    // The secret as the text's views read it (a secret holding `%41` or a mark is read the same way).
    forEachReading(secret, (seen) => {
      const form = skeleton(seen);
      if (form.length >= MIN_FORM_CHARS) skeletons.add(textOf(form.units, form.length));
    });
    hex.add(Buffer.from(secret, 'utf8').toString('hex'));
    for (const encoding of ['utf8', 'utf16le'] as const)
      for (const core of base64Cores(Buffer.from(secret, encoding))) {
        base64.add(core);
        base64.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
      }
  }
  const long = (forms: Set<string>) => [...forms].filter((f) => f.length >= MIN_FORM_CHARS);
  return {
    skeleton: new MultiSearch(long(skeletons)),
    hex: new MultiSearch(long(hex)),
    base64: new MultiSearch(long(base64)),
  };
}

/** The run's one list of secrets and the function every sink applies. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private searches?: Searches;

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
    if (changed) this.searches = searchesFor([...this.secrets]);
    return this;
  }

  get size(): number {
    return this.secrets.size;
  }

  /** The text with every form of every secret replaced by `***`, in time linear in the text. */
  readonly redact = (text: string): string => {
    const searches = this.searches;
    if (!searches || text === '') return text;
    // covered[k] - covered[k-1]: how many matched spans of the text begin (or end) at k.
    const covered = new Int32Array(text.length + 1);
    let any = false;
    forEachReading(text, (seen) => {
      any = coverMatches(seen, searches, text.length, covered) || any;
    });
    if (!any) return text;
    const parts: string[] = [];
    let depth = 0;
    let kept = 0;
    for (let k = 0; k < text.length; k++) {
      const before = depth;
      depth += covered[k];
      if (before === 0 && depth > 0) parts.push(text.slice(kept, k), '***');
      else if (before > 0 && depth === 0) kept = k;
    }
    if (depth === 0) parts.push(text.slice(kept));
    return parts.join('');
  };

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

/**
 * Marks in `covered` (a difference array over the text) the source span of every secret found in
 * one reading's views: each run of the reading a match covers, from the character a reader sees
 * before it to the one after it (invisible characters around the secret go too). Linear in the
 * reading: the searches report one match per position, each marked in O(1), and runs are swept once.
 */
function coverMatches(seen: Reading, searches: Searches, textLength: number, covered: Int32Array): boolean {
  const inReading = new Int32Array(seen.length + 1);
  let found = false;
  const mark = (view: Derived) => (last: number, length: number) => {
    inReading[view.at[last - length + 1]]++;
    inReading[view.at[last] + 1]--;
    found = true;
  };
  const views: [Derived, MultiSearch][] = [
    [skeleton(seen), searches.skeleton],
    [hexDigits(seen), searches.hex],
    [base64Characters(seen), searches.base64],
  ];
  for (const [view, search] of views) search.scan(view.units, view.length, mark(view));
  if (!found) return false;
  let depth = 0;
  let first = -1;
  let low = 0;
  let high = 0;
  for (let k = 0; k <= seen.length; k++) {
    depth += inReading[k];
    if (k < seen.length && depth > 0) {
      // A run reversed by an override maps backwards: its span is the least start to the greatest end.
      if (first < 0) [first, low, high] = [k, startOf(seen, k), endOf(seen, k)];
      low = Math.min(low, startOf(seen, k));
      high = Math.max(high, endOf(seen, k));
      continue;
    }
    if (first < 0) continue;
    const before = first > 0 ? endOf(seen, first - 1) : 0;
    const after = k < seen.length ? startOf(seen, k) : textLength;
    covered[Math.min(low, before)]++;
    covered[Math.max(high, after)]--;
    first = -1;
  }
  return true;
}

/** A function that replaces every form of the secrets with `***`. */
export function redactor(secrets: string[]): (text: string) => string {
  return new Redactor(secrets).redact;
}
