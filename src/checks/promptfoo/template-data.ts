// The values a promptfoo template works on, and the few operations on them: plain data only
// (text, numbers, booleans, null, lists and mappings, as YAML, JSON and CSV give them). A value
// is read by its own keys and items, never through what JavaScript would inherit, and nothing
// converts a value by calling one of its methods: lists and mappings become text here, as
// Nunjucks prints them. Every step is charged to one budget, so no template outlasts a bound.

/** A template's value: what YAML, JSON and CSV give, and what a template builds from it. */
export type Data = string | number | boolean | null | undefined | Data[] | DataObject;
export interface DataObject {
  [key: string]: Data;
}

/** Why a template did not render: outside the grammar, a value not set, a bound passed, or a mistake. */
export type TemplateErrorKind = 'refused' | 'unset' | 'limit' | 'invalid';

/** The evaluator's one error type: every failure of a template is one of these. */
export class TemplateError extends Error {
  constructor(
    readonly kind: TemplateErrorKind,
    message: string,
    /** The template's line (1-based), when known. */
    readonly line?: number,
  ) {
    super(message);
  }
}

/** The longest text a template may build or print (characters). */
export const MAX_TEXT = 16 * 1024 * 1024;
/** The most steps one rendering may take: nodes evaluated and loop turns. */
export const MAX_STEPS = 1_000_000;
/** The most characters (and items) one rendering may handle, over all its filters and joins. */
export const MAX_CHARS = 256 * 1024 * 1024;
/** The longest list a filter may build (items): a list is charged like a text, item by item. */
export const MAX_LIST = 1_000_000;
/** The deepest a value is printed, or an expression nested (a deeper one is refused, never a stack overflow). */
export const MAX_DEPTH = 200;

const tooMuch = (what: string): TemplateError =>
  new TemplateError(
    'limit',
    `it ${what}: expected a template that renders in one pass over its values (loops within loops over long lists, or long texts handled many times, pass the bound)`,
  );

/** What one rendering has spent: each step and each character handled is charged. */
export class Budget {
  private steps = 0;
  private chars = 0;

  step(): void {
    if (++this.steps > MAX_STEPS) throw tooMuch(`takes more than ${MAX_STEPS} steps`);
  }

  charge(units: number): void {
    this.chars += units;
    if (this.chars > MAX_CHARS) throw tooMuch(`handles more than ${MAX_CHARS} characters`);
  }

  /** A text about to be built: refused before it is, past MAX_TEXT, and charged. */
  room(length: number): void {
    this.fits(length);
    this.charge(length);
  }

  /** A list about to be built or walked by a filter: refused past MAX_LIST, and charged. */
  list(length: number): void {
    if (length > MAX_LIST) throw tooMuch(`builds a list of more than ${MAX_LIST} items`);
    this.charge(length);
  }

  /** A text about to be built: refused before it is, past MAX_TEXT. */
  fits(length: number): void {
    if (length > MAX_TEXT) throw tooMuch(`builds a text of more than ${MAX_TEXT} characters`);
  }
}

export const isList = (value: unknown): value is Data[] =>
  Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;

export function isMapping(value: unknown): value is DataObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A value handed to the template (a var): plain data, or refused. */
export function asData(value: unknown): Data {
  const t = typeof value;
  if (value === undefined || value === null || t === 'string' || t === 'boolean' || t === 'number')
    return value as Data;
  if (isList(value) || isMapping(value)) return value;
  throw new TemplateError('refused', 'it reads a value that is not data (text, a number, a list or a mapping)');
}

/** A new mapping with no prototype: a key such as `__proto__` is a key like any other. */
export function mapping(entries: [string, Data][] = []): DataObject {
  const out = Object.create(null) as DataObject;
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** A mapping's own keys, in JavaScript's order (for…in over plain data gives the same). */
export function keysOf(value: DataObject): string[] {
  return Object.keys(value);
}

/** The value of an own, enumerable data key of a list or mapping; undefined when there is none. */
function ownData(base: Data[] | DataObject, key: string): Data {
  const d = Object.getOwnPropertyDescriptor(base, key);
  return d && d.enumerable && 'value' in d ? asData(d.value) : undefined;
}

/**
 * `base.key` and `base[key]`: a mapping's own key or a list's item. A name the value has only
 * through JavaScript (a method, `constructor`, `length`, `__proto__`) is refused, saying so; one it
 * does not have at all is undefined, as in Nunjucks.
 */
export function member(base: Data, key: Data): Data {
  if (base === undefined || base === null) return undefined;
  if (typeof key !== 'string' && typeof key !== 'number')
    throw new TemplateError('invalid', `it reads a key that is ${describe(key)}: expected a text or a number`);
  const name = String(key);
  if (isList(base) || isMapping(base)) {
    if (Object.hasOwn(base, name)) {
      const d = Object.getOwnPropertyDescriptor(base, name)!;
      if (d.enumerable && 'value' in d) return asData(d.value);
    }
    if (!(name in base)) return undefined;
  } else if (typeof base === 'string' && /^(0|[1-9]\d*)$/.test(name)) {
    return base[Number(name)]; // a letter of a text, as `s[0]` reads it
  } else if (!(name in Object(base))) return undefined;
  throw new TemplateError(
    'refused',
    `it holds '${name}', which ${describe(base)} has only as JavaScript, not as its data: a template reads a mapping's own keys and a list's items (for a length, first or last item, use the filter)`,
  );
}

/** The `index`-th item of a list or letter of a text (a mapping's key `index`), as `x[0]` reads it. */
export function itemAt(base: Data, index: number): Data {
  if (typeof base === 'string') return base[index];
  if (isList(base) || isMapping(base)) return ownData(base, String(index));
  if (base === undefined || base === null)
    throw new TemplateError('invalid', `it reads item ${index} of a value that is not set`);
  return undefined;
}

/** The items a filter walks: a list's, a text's letters; anything else has none (Nunjucks reads `.length`). */
export function itemsOf(value: Data): Data[] {
  if (isList(value)) return value;
  if (typeof value === 'string') return value.split('');
  return [];
}

/** How a value is named in a message. */
export function describe(value: Data): string {
  if (value === undefined) return 'a value not set';
  if (value === null) return 'none';
  if (isList(value)) return 'a list';
  if (isMapping(value)) return 'a mapping';
  if (typeof value === 'string') return 'a text';
  return `a ${typeof value}`;
}

/** A value printed as Nunjucks prints it: nothing for null and undefined, lists comma-joined. */
export function toText(value: Data, budget: Budget, depth = 0): string {
  budget.charge(1);
  if (depth > MAX_DEPTH) throw new TemplateError('limit', `it prints a list nested more than ${MAX_DEPTH} deep`);
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isList(value)) {
    let out = '';
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const piece = item === undefined || item === null ? '' : toText(item, budget, depth + 1);
      budget.fits(out.length + piece.length + 1);
      budget.charge(piece.length);
      out += i === 0 ? piece : `,${piece}`;
    }
    return out;
  }
  return '[object Object]';
}

/** Refuses a value holding anything but plain data (or nested past MAX_DEPTH), each part charged. */
export function checkDeep(value: Data, budget: Budget, depth = 0): void {
  budget.charge(1);
  if (depth > MAX_DEPTH) throw new TemplateError('limit', `it handles a value nested more than ${MAX_DEPTH} deep`);
  if (isList(value)) for (const item of value) checkDeep(asData(item), budget, depth + 1);
  else if (isMapping(value)) for (const key of Object.keys(value)) checkDeep(asData(value[key]), budget, depth + 1);
  else asData(value);
}

/** JavaScript's String() for plain data (undefined is "undefined"), as a filter's argument is joined in. */
export function jsString(value: Data, budget: Budget): string {
  return value === undefined ? 'undefined' : value === null ? 'null' : toText(value, budget);
}

/** A list or mapping as the primitive JavaScript would convert it to (its text); primitives as they are. */
export function primitive(value: Data, budget: Budget): string | number | boolean | null | undefined {
  return isList(value) || isMapping(value) ? toText(value, budget) : value;
}

export function toNumber(value: Data, budget: Budget): number {
  return Number(primitive(value, budget));
}

/** `a + b` as JavaScript adds plain data (text joins, numbers add), lists and mappings as their text. */
export function plus(a: Data, b: Data, budget: Budget): Data {
  const x = primitive(a, budget);
  const y = primitive(b, budget);
  if (typeof x !== 'string' && typeof y !== 'string') return Number(x) + Number(y);
  const left = String(x);
  const right = String(y);
  budget.room(left.length + right.length);
  return left + right;
}

/** `a ~ b`: both as JavaScript's text of them (`undefined` prints as "undefined" there too). */
export function concat(a: Data, b: Data, budget: Budget): string {
  const left = jsString(a, budget);
  const right = jsString(b, budget);
  budget.room(left.length + right.length);
  return left + right;
}

/** A comparison as JavaScript makes it on plain data: lists and mappings by identity, or as their text against a primitive. */
export function compare(op: string, a: Data, b: Data, budget: Budget): boolean {
  const objects = (isList(a) || isMapping(a)) && (isList(b) || isMapping(b));
  const x = objects ? a : primitive(a, budget);
  const y = objects ? b : primitive(b, budget);
  // Nunjucks compiles == and != to JavaScript's loose equality.
  switch (op) {
    case '==':
      return x == y;
    case '!=':
      return x != y;
    case '===':
      return a === b;
    case '!==':
      return a !== b;
  }
  const p = (objects ? primitive(a, budget) : x) as number;
  const q = (objects ? primitive(b, budget) : y) as number;
  switch (op) {
    case '<':
      return p < q;
    case '>':
      return p > q;
    case '<=':
      return p <= q;
    default:
      return p >= q;
  }
}

/** `key in container`: an item of a list, a part of a text, a mapping's own key. */
export function contains(key: Data, container: Data, budget: Budget): boolean {
  if (isList(container)) {
    budget.charge(container.length);
    for (const item of container) if (item === key) return true;
    return false;
  }
  if (typeof container === 'string') {
    budget.charge(container.length);
    return container.includes(jsString(key, budget));
  }
  if (isMapping(container)) return Object.hasOwn(container, jsString(key, budget));
  throw new TemplateError(
    'invalid',
    `it asks whether a value is 'in' ${describe(container)}: expected a list, a text or a mapping on the right of 'in'`,
  );
}
