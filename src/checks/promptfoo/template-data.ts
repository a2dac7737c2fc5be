// The values a promptfoo template works on, and the few operations on them: plain data only
// (text, numbers, booleans, null, lists and mappings, as YAML, JSON and CSV give them). A value
// is read by its own keys and items, never through what JavaScript would inherit, and nothing
// converts a value by calling one of its methods: lists and mappings become text here, as
// Nunjucks prints them. Every step is charged to one budget, so no template outlasts a bound.

/** A template's value: what YAML, JSON and CSV give, and what a template builds from it. */
export type Data = string | number | boolean | null | undefined | SafeText | Data[] | DataObject;
export interface DataObject {
  [key: string]: Data;
}

/**
 * A text marked safe, as Nunjucks' `safe` and `escape` return it (its SafeString): printed and
 * compared as its text, always true as a condition, and left as it is by `escape` and `safe`, so
 * `x | escape | escape` escapes once and `x | safe | escape` not at all. Our own value, frozen.
 */
export class SafeText {
  constructor(readonly text: string) {
    Object.freeze(this);
  }
}

export const isSafe = (value: unknown): value is SafeText => value instanceof SafeText;

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

// The cost model. One rendering spends work (units: a character read or written is 1, an item of a
// list or a key of a mapping read or written is ITEM_COST, a node of the tree evaluated is
// STEP_COST) and holds values (a text by its characters, a list by its items times ITEM_SIZE).
// Each operation charges what it reads and writes before it writes it; the limits are the same at
// load time and at grading time. 32 Mi units is under a second of the slowest work (measured per
// operation), and what one rendering may allocate stays far under 256 MiB.

/** The most work one rendering may do (units: characters and items read and written, nodes evaluated). */
export const WORK_LIMIT = 32 * 1024 * 1024;
/** The largest value one rendering may hold: a text of this many characters (a list of an eighth as many items). */
export const HOLD_LIMIT = 16 * 1024 * 1024;
/** What a node of the tree costs, evaluated (a walk step, a frame lookup, a loop turn's bindings). */
export const STEP_COST = 128;
/** What an item of a list, or a key of a mapping, costs read or written (a pointer, a callback, a comparison). */
export const ITEM_COST = 32;
/** What an item of a list weighs held: a pointer, as eight characters. */
export const ITEM_SIZE = 8;
/** The deepest a value is printed, or an expression nested (a deeper one is refused, never a stack overflow). */
export const MAX_DEPTH = 200;
/** How often (work units) a rendering looks at its deadline. */
const DEADLINE_EVERY = 1024 * 1024;

/** When a rendering must end by (the step's timeout), on the caller's clock. */
export interface Deadline {
  at: number;
  now(): number;
}

const MI = 1024 * 1024;

const tooMuch = (what: string): TemplateError =>
  new TemplateError(
    'limit',
    `it ${what}: expected a template that renders in one pass over its values (loops within loops over long lists, or long texts handled many times, pass the bound)`,
  );

/** What one rendering has spent and held: each operation charges the characters and items it handles. */
export class Budget {
  private spent = 0;
  private held = 0;
  private nextLook = DEADLINE_EVERY;

  constructor(private readonly deadline?: Deadline) {
    this.look();
  }

  /** The work done so far (units). */
  get work(): number {
    return this.spent;
  }

  /** The largest value built so far (units). */
  get largest(): number {
    return this.held;
  }

  /** A node evaluated. */
  step(): void {
    this.charge(STEP_COST);
  }

  /** Work done: characters read or written (or units computed by the caller). */
  charge(units: number): void {
    // Refused before it is done: what was spent never passes the limit.
    if (!(this.spent + units <= WORK_LIMIT))
      throw tooMuch(`handles more than ${WORK_LIMIT / MI} Mi characters and items (read and written)`);
    this.spent += units;
    if (this.spent >= this.nextLook) {
      this.nextLook = this.spent + DEADLINE_EVERY;
      this.look();
    }
  }

  private look(): void {
    if (this.deadline && this.deadline.now() >= this.deadline.at)
      throw new TemplateError('limit', "it was still rendering when the step's timeout ran out");
  }

  /** A text about to be built: refused before it is, past HOLD_LIMIT, and charged. */
  room(length: number): void {
    this.fits(length);
    this.charge(length);
  }

  /** Items about to be built or walked: refused past the hold limit, and charged. */
  list(length: number): void {
    this.fits(length * ITEM_SIZE, `builds a list of more than ${HOLD_LIMIT / ITEM_SIZE / MI} Mi items`);
    this.charge(length * ITEM_COST);
  }

  /** A value of `size` units about to be held: refused before it is, past HOLD_LIMIT. */
  fits(size: number, what = `builds a text of more than ${HOLD_LIMIT / MI} Mi characters`): void {
    if (!(size <= HOLD_LIMIT)) throw tooMuch(what);
    if (size > this.held) this.held = size;
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
  if (isList(value) || isMapping(value) || isSafe(value)) return value;
  throw new TemplateError('refused', 'it reads a value that is not data (text, a number, a list or a mapping)');
}

/** A new mapping with no prototype: a key such as `__proto__` is a key like any other. */
export function mapping(entries: [string, Data][] = []): DataObject {
  const out = Object.create(null) as DataObject;
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** A mapping's own keys, in JavaScript's order (for…in over plain data gives the same), charged as items. */
export function keysOf(value: DataObject, budget: Budget): string[] {
  const keys = Object.keys(value);
  budget.list(keys.length);
  return keys;
}

/** The value of an own, enumerable data key of a list or mapping; undefined when there is none. */
function ownData(base: Data[] | DataObject, key: string): Data {
  const d = Object.getOwnPropertyDescriptor(base, key);
  return d && d.enumerable && 'value' in d ? asData(d.value) : undefined;
}

/**
 * `base.key` and `base[key]`: a mapping's own key or a list's item. A name the value has only
 * through JavaScript (a method, `constructor`, `length`, `__proto__`) is refused, saying so; one it
 * does not have at all is undefined, as in Nunjucks. The key is read (hashed) once: charged.
 */
export function member(base: Data, key: Data, budget: Budget): Data {
  if (base === undefined || base === null) return undefined;
  if (isSafe(key)) key = key.text; // Nunjucks looks a key up by its text
  if (typeof key !== 'string' && typeof key !== 'number')
    throw new TemplateError('invalid', `it reads a key that is ${describe(key)}: expected a text or a number`);
  const name = String(key);
  budget.charge(name.length + 1);
  if (isSafe(base))
    throw new TemplateError(
      'refused',
      `it reads '${name}' of a text marked safe (by safe or escape), which Nunjucks reads as an object: read the text before marking it, or use a filter (length)`,
    );
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

/** The items a filter walks: a list's, a text's letters (built, so charged); anything else has none (Nunjucks reads `.length`). */
export function itemsOf(value: Data, budget: Budget): Data[] {
  if (isList(value)) return value;
  if (typeof value === 'string') {
    budget.list(value.length);
    return value.split('');
  }
  return [];
}

/** How a value is named in a message. */
export function describe(value: Data): string {
  if (value === undefined) return 'a value not set';
  if (value === null) return 'none';
  if (isList(value)) return 'a list';
  if (isMapping(value)) return 'a mapping';
  if (isSafe(value)) return 'a text marked safe';
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
  if (isSafe(value)) return value.text;
  if (isList(value)) {
    let out = '';
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const piece = item === undefined || item === null ? '' : toText(item, budget, depth + 1);
      budget.fits(out.length + piece.length + 1);
      budget.charge(piece.length + 1);
      out += i === 0 ? piece : `,${piece}`;
    }
    return out;
  }
  return '[object Object]';
}

/** Refuses a value holding anything but plain data (or nested past MAX_DEPTH), each part charged. */
export function checkDeep(value: Data, budget: Budget, depth = 0): void {
  budget.charge(ITEM_COST);
  if (depth > MAX_DEPTH) throw new TemplateError('limit', `it handles a value nested more than ${MAX_DEPTH} deep`);
  if (isList(value)) for (const item of value) checkDeep(asData(item), budget, depth + 1);
  else if (isMapping(value)) for (const key of Object.keys(value)) checkDeep(asData(value[key]), budget, depth + 1);
  else asData(value);
}

/** JavaScript's String() for plain data (undefined is "undefined"), as a filter's argument is joined in. */
export function jsString(value: Data, budget: Budget): string {
  return value === undefined ? 'undefined' : value === null ? 'null' : toText(value, budget);
}

/** A list, mapping or safe text as the primitive JavaScript would convert it to (its text); primitives as they are. */
export function primitive(value: Data, budget: Budget): string | number | boolean | null | undefined {
  return isList(value) || isMapping(value) || isSafe(value) ? toText(value, budget) : value;
}

/** A value as a number, as JavaScript's Number() reads it (a text is parsed whole: charged). */
export function toNumber(value: Data, budget: Budget): number {
  const p = primitive(value, budget);
  if (typeof p === 'string') budget.charge(p.length);
  return Number(p);
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

const isObject = (v: Data): boolean => isList(v) || isMapping(v) || isSafe(v);

/** What comparing two primitives costs: texts by the characters compared, a text read as a number whole. */
function chargeCompare(x: unknown, y: unknown, budget: Budget): void {
  const lx = typeof x === 'string' ? x.length : 0;
  const ly = typeof y === 'string' ? y.length : 0;
  budget.charge(1 + (typeof x === 'string' && typeof y === 'string' ? Math.min(lx, ly) : lx + ly));
}

/** Two texts marked safe compared as objects: Nunjucks compares their identity, which a template cannot see. */
function refuseSafePair(a: Data, b: Data): void {
  if (isSafe(a) && isSafe(b))
    throw new TemplateError(
      'refused',
      'it compares two texts marked safe (by safe or escape), which Nunjucks compares as objects, by identity: compare the texts before marking them',
    );
}

/** A comparison as JavaScript makes it on plain data: lists and mappings by identity, or as their text against a primitive. */
export function compare(op: string, a: Data, b: Data, budget: Budget): boolean {
  const objects = isObject(a) && isObject(b);
  // Nunjucks compiles == and != to JavaScript's loose equality.
  if (op === '===' || op === '!==') {
    refuseSafePair(a, b);
    chargeCompare(a, b, budget);
    return op === '===' ? a === b : a !== b;
  }
  if (objects && (op === '==' || op === '!=')) {
    refuseSafePair(a, b);
    budget.charge(1);
    return op === '==' ? a === b : a !== b;
  }
  const x = primitive(a, budget);
  const y = primitive(b, budget);
  chargeCompare(x, y, budget);
  switch (op) {
    case '==':
      return x == y;
    case '!=':
      return x != y;
    case '<':
      return (x as number) < (y as number);
    case '>':
      return (x as number) > (y as number);
    case '<=':
      return (x as number) <= (y as number);
    default:
      return (x as number) >= (y as number);
  }
}

/** `a === b` as a test or a list's search makes it: texts of the same length compared by their characters. */
export function same(a: Data, b: Data, budget: Budget): boolean {
  refuseSafePair(a, b);
  budget.charge(typeof a === 'string' && typeof b === 'string' && a.length === b.length ? a.length + 1 : 1);
  return a === b;
}

/** `key in container`: an item of a list, a part of a text, a mapping's own key. */
export function contains(key: Data, container: Data, budget: Budget): boolean {
  if (isList(container)) {
    for (const item of container) {
      budget.charge(ITEM_COST);
      if (same(item, key, budget)) return true;
    }
    return false;
  }
  if (typeof container === 'string') {
    const part = jsString(key, budget);
    // A search: at worst each character of the text compared with each of the part's (the engine's
    // search is not linear on every input), so a long part in a long text is charged what it may cost.
    budget.charge(container.length * Math.max(2, part.length) + part.length);
    return container.includes(part);
  }
  if (isMapping(container)) {
    const name = jsString(key, budget);
    budget.charge(name.length + 1);
    return Object.hasOwn(container, name);
  }
  throw new TemplateError(
    'invalid',
    `it asks whether a value is 'in' ${describe(container)}: expected a list, a text or a mapping on the right of 'in'`,
  );
}
