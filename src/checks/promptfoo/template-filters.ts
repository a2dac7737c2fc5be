// The filters and tests a promptfoo template may use: Nunjucks' built-in ones (and promptfoo's
// `load`), each rewritten for plain data so that it gives Nunjucks' text for text, numbers, lists
// and mappings. A fixed table with no prototype: a name not in it is refused before anything
// renders. No filter calls a method its value holds or looks a name up on it past its own keys,
// and each charges what it handles to the rendering's budget.
import {
  type Budget,
  type Data,
  TemplateError,
  checkDeep,
  compare,
  describe,
  isList,
  isMapping,
  itemAt,
  itemsOf,
  jsString,
  keysOf,
  mapping,
  member,
  plus,
  primitive,
  toNumber,
  toText,
} from './template-data.js';

/** What a filter is given beside its arguments. */
export interface FilterKit {
  budget: Budget;
  /** A value not set is a mistake (read time), rather than nothing (grading time). */
  strict: boolean;
}

export interface FilterDef {
  /** Parameter names after the value, for a filter that takes `name=value` (Nunjucks' sort and int). */
  params?: string[];
  run(kit: FilterKit, value: Data, args: Data[]): Data;
}

const fail = (message: string): never => {
  throw new TemplateError('invalid', message);
};

/** Nunjucks' `normalize`: null, undefined and false become the default. */
const normalize = (value: Data, fallback: Data): Data =>
  value === null || value === undefined || value === false ? fallback : value;

/** A filter that works on text: given anything else, Nunjucks fails (or prints JavaScript), so it is a mistake. */
function textOf(name: string, value: Data, kit: FilterKit): string {
  if (typeof value !== 'string') return fail(`the filter '${name}' is given ${describe(value)}: expected a text`);
  kit.budget.charge(value.length);
  return value;
}

function listOf(name: string, value: Data): Data[] {
  if (!isList(value)) return fail(`the filter '${name}' is given ${describe(value)}: expected a list`);
  return value;
}

/** Items of a list or text; a value not set fails, as Nunjucks fails reading its length. */
function sequence(name: string, value: Data): Data[] {
  if (value === undefined || value === null) return fail(`the filter '${name}' is given a value that is not set`);
  return itemsOf(value);
}

/** `item[attr]` (join, sum, selectattr): an own key; an item not set fails, as in Nunjucks. */
function field(name: string, item: Data, attr: Data): Data {
  if (item === undefined || item === null)
    return fail(`the filter '${name}' reads '${String(attr)}' of an item that is not set`);
  return member(item, attr);
}

/** Nunjucks' getAttrGetter (groupby, sort): a dotted path of own keys; undefined past a missing one. */
function path(name: string, item: Data, attr: Data): Data {
  const parts = !attr ? [] : typeof attr === 'string' ? attr.split('.') : [attr];
  let value = item;
  for (const part of parts) {
    if (value === undefined || value === null)
      return fail(`the filter '${name}' reads '${String(attr)}' of an item that is not set`);
    value = member(value, part);
    if (value === undefined) return undefined;
  }
  return value;
}

/** ' ' n times (Nunjucks' lib.repeat, which repeats while i < n), within the bound. */
function spaces(n: number, kit: FilterKit): string {
  const count = n > 0 ? Math.ceil(n) : 0;
  kit.budget.room(count);
  return ' '.repeat(count);
}

const capitalizeText = (s: string): string => {
  const lower = s.toLowerCase();
  return lower.charAt(0).toUpperCase() + lower.slice(1);
};

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
  '\\': '&#92;',
};
const escapeText = (s: string): string => s.replace(/[&"'<>\\]/g, (c) => ESCAPES[c]);

function escapeFilter(kit: FilterKit, value: Data): string {
  const s = value === null || value === undefined ? '' : toText(value, kit.budget);
  const out = escapeText(s); // at most six times the text, built once
  kit.budget.room(out.length);
  return out;
}

/** JavaScript's `a < b` and `a > b` on plain data (lists and mappings as their text). */
const lt = (a: Data, b: Data, kit: FilterKit): boolean => compare('<', a, b, kit.budget);
const gt = (a: Data, b: Data, kit: FilterKit): boolean => compare('>', a, b, kit.budget);

function sortBy<T>(items: T[], order: (a: T, b: T) => number, kit: FilterKit): T[] {
  kit.budget.charge(items.length * Math.max(1, Math.ceil(Math.log2(items.length + 1))));
  return [...items].sort(order);
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** A line without its leading and trailing spaces (`^ +| +$` backtracks on a long run of spaces). */
function trimSpaces(line: string): string {
  let start = 0;
  let end = line.length;
  while (start < end && line[start] === ' ') start++;
  while (end > start && line[end - 1] === ' ') end--;
  return line.slice(start, end);
}

/** Nunjucks' striptags regexes, by hand in one pass: tags and comments out, then spaces squashed. */
function stripTags(input: string, preserveLinebreaks: boolean): string {
  let out = '';
  let i = 0;
  let closes = true; // whether a '-->' may still follow
  let gts = true; // whether a '>' may still follow
  while (i < input.length && (closes || gts)) {
    const lt = input.indexOf('<', i);
    if (lt === -1) break;
    out += input.slice(i, lt);
    let end = -1;
    if (closes && input.startsWith('<!--', lt)) {
      const close = input.indexOf('-->', lt + 4);
      if (close === -1) closes = false;
      else end = close + 3;
    }
    if (end === -1 && gts) {
      let j = lt + 1;
      if (input[j] === '/') j++;
      if (j < input.length && isLetter(input.charCodeAt(j))) {
        while (j < input.length && (isLetter(input.charCodeAt(j)) || isDigit(input.charCodeAt(j)))) j++;
        if (j >= input.length || input[j] !== '_') {
          const gt = input.indexOf('>', j);
          if (gt === -1) gts = false;
          else end = gt + 1;
        }
      }
    }
    if (end === -1) {
      out += '<';
      i = lt + 1;
    } else i = end;
  }
  out += input.slice(i);
  const trimmed = out.trim();
  if (!preserveLinebreaks) return trimmed.replace(/\s+/g, ' ');
  // `^ +| +$` per line (multiline: a line ends at \n, \r, U+2028 or U+2029), then the rest.
  const lines = trimmed.split(/([\n\r\u2028\u2029])/);
  const stripped = lines.map((part, n) => (n % 2 === 1 ? part : trimSpaces(part))).join('');
  return stripped
    .replace(/ +/g, ' ')
    .replace(/(\r\n)/g, '\n')
    .replace(/\n\n\n+/g, '\n\n');
}

const table = Object.create(null) as Record<string, FilterDef>;
const def = (names: string[], filter: FilterDef): void => {
  for (const name of names) table[name] = filter;
};

def(['abs'], { run: (kit, v) => Math.abs(toNumber(v, kit.budget)) });
def(['batch'], {
  run: (kit, v, [linecount, fillWith]) => {
    const items = sequence('batch', v);
    const n = toNumber(linecount, kit.budget);
    const rows: Data[] = [];
    let row: Data[] = [];
    kit.budget.charge(items.length);
    for (let i = 0; i < items.length; i++) {
      if (i % n === 0 && row.length) {
        rows.push(row);
        row = [];
      }
      row.push(items[i]);
    }
    if (row.length) {
      if (fillWith) {
        const missing = n - row.length;
        kit.budget.list(missing > 0 ? Math.ceil(missing) : 0);
        for (let i = row.length; i < n; i++) row.push(fillWith);
      }
      rows.push(row);
    }
    return rows;
  },
});
def(['capitalize'], { run: (kit, v) => capitalizeText(textOf('capitalize', normalize(v, ''), kit)) });
def(['center'], {
  run: (kit, v, [width]) => {
    const s = textOf('center', normalize(v, ''), kit);
    const w = toNumber(width || 80, kit.budget);
    if (s.length >= w) return s;
    const gap = w - s.length;
    return spaces(gap / 2 - (gap % 2), kit) + s + spaces(gap / 2, kit);
  },
});
def(['default', 'd'], {
  run: (_kit, v, [fallback, bool]) => (bool ? v || fallback : v !== undefined ? v : fallback),
});
def(['dictsort'], {
  run: (kit, v, [caseSensitive, by]) => {
    if (!isMapping(v)) return fail(`the filter 'dictsort' is given ${describe(v)}: expected a mapping`);
    const at = by === undefined || by === 'key' ? 0 : by === 'value' ? 1 : undefined;
    if (at === undefined) return fail("the filter 'dictsort' sorts by 'key' or 'value' only");
    const pairs: [string, Data][] = keysOf(v).map((k) => [k, v[k]]);
    const fold = (x: Data): Data => (!caseSensitive && typeof x === 'string' ? x.toUpperCase() : x);
    return sortBy(
      pairs,
      (p, q) => {
        const a = fold(p[at]);
        const b = fold(q[at]);
        return gt(a, b, kit) ? 1 : a === b ? 0 : -1;
      },
      kit,
    );
  },
});
def(['dump'], {
  run: (kit, v, [indent]) => {
    const charge = (_key: string, value: unknown): unknown => {
      kit.budget.charge(typeof value === 'string' ? value.length + 1 : 1);
      return value;
    };
    const space = typeof indent === 'number' || typeof indent === 'string' ? indent : undefined;
    checkDeep(v, kit.budget);
    const out = JSON.stringify(v, charge, space) as string | undefined;
    if (out !== undefined) kit.budget.room(out.length);
    return out;
  },
});
def(['escape', 'e', 'forceescape'], { run: (kit, v) => escapeFilter(kit, v) });
def(['first'], {
  run: (_kit, v) =>
    v === undefined || v === null ? fail("the filter 'first' is given a value that is not set") : itemAt(v, 0),
});
def(['float'], {
  run: (kit, v, [fallback]) => {
    const n = parseFloat(jsString(v, kit.budget));
    return Number.isNaN(n) ? fallback : n;
  },
});
def(['groupby'], {
  run: (kit, v, [attr]) => {
    const groups = mapping();
    for (const item of sequence('groupby', v)) {
      kit.budget.charge(1);
      const key = path('groupby', item, attr);
      if (key === undefined && kit.strict)
        return fail(`the filter 'groupby': attribute "${String(attr)}" is not set on every item`);
      const name = jsString(key, kit.budget);
      const group = Object.hasOwn(groups, name) ? (groups[name] as Data[]) : (groups[name] = []);
      group.push(item);
    }
    return groups;
  },
});
def(['indent'], {
  run: (kit, v, [width, indentfirst]) => {
    const s = textOf('indent', normalize(v, ''), kit);
    if (s === '') return '';
    const lines = s.split('\n');
    const pad = spaces(toNumber(width || 4, kit.budget), kit);
    kit.budget.room(s.length + pad.length * lines.length);
    return lines.map((line, i) => (i === 0 && !indentfirst ? line : pad + line)).join('\n');
  },
});
def(['int'], {
  params: ['default', 'base'],
  run: (kit, v, [fallback, base]) => {
    const n = parseInt(jsString(v, kit.budget), base === undefined ? 10 : toNumber(base, kit.budget));
    return Number.isNaN(n) ? fallback : n;
  },
});
def(['join'], {
  run: (kit, v, [separator, attr]) => {
    let items = listOf('join', v);
    if (attr) items = items.map((item) => field('join', item, attr));
    return joinTexts(items, separator || '', kit);
  },
});
def(['last'], {
  run: (_kit, v) => {
    if (v === undefined || v === null) return fail("the filter 'last' is given a value that is not set");
    return typeof v === 'string' || isList(v) ? itemAt(v, v.length - 1) : undefined;
  },
});
def(['length'], {
  run: (_kit, v) => {
    const value = normalize(v, '');
    if (isMapping(value)) return keysOf(value).length;
    return typeof value === 'string' || isList(value) ? value.length : undefined;
  },
});
def(['list'], {
  run: (kit, v) => {
    if (typeof v === 'string') return textOf('list', v, kit).split('');
    if (isMapping(v))
      return keysOf(v).map((key) =>
        mapping([
          ['key', key],
          ['value', v[key]],
        ]),
      );
    if (isList(v)) return v;
    return fail(`the filter 'list' is given ${describe(v)}: expected a list, a text or a mapping`);
  },
});
def(['load'], {
  run: (kit, v) => {
    const text = jsString(v, kit.budget);
    kit.budget.charge(text.length);
    try {
      return JSON.parse(text) as Data;
    } catch {
      return fail("the filter 'load' is given text that is not JSON");
    }
  },
});
def(['lower'], { run: (kit, v) => textOf('lower', normalize(v, ''), kit).toLowerCase() });
def(['nl2br'], {
  run: (kit, v) => {
    if (v === null || v === undefined) return '';
    const s = textOf('nl2br', v, kit);
    const out = s.replace(/\r\n|\n/g, '<br />\n'); // at most seven times the text, built once
    kit.budget.room(out.length);
    return out;
  },
});
def(['rejectattr'], {
  run: (_kit, v, [attr]) => listOf('rejectattr', v).filter((item) => !field('rejectattr', item, attr)),
});
def(['replace'], {
  run: (kit, v, [old, replacement, maxCount]) => {
    if (typeof old === 'number') old = String(old);
    else if (typeof old !== 'string') return v;
    const str = typeof v === 'number' ? String(v) : v;
    if (typeof str !== 'string') return v;
    kit.budget.charge(str.length);
    const by = jsString(replacement, kit.budget);
    if (old === '') {
      kit.budget.room((str.length + 1) * by.length + str.length);
      return by + str.split('').join(replacement === undefined ? ',' : by) + by;
    }
    const max = maxCount === undefined ? -1 : primitive(maxCount, kit.budget);
    let next = str.indexOf(old);
    if (max === 0 || next === -1) return str;
    let out = '';
    let pos = 0;
    let count = 0;
    while (next > -1 && (max === -1 || count < (max as number))) {
      kit.budget.fits(out.length + (next - pos) + by.length);
      kit.budget.charge(next - pos + by.length);
      out += str.substring(pos, next) + by;
      pos = next + old.length;
      count++;
      next = str.indexOf(old, pos);
    }
    if (pos < str.length) out += str.substring(pos);
    return out;
  },
});
def(['reverse'], {
  run: (kit, v) => {
    if (typeof v === 'string') return textOf('reverse', v, kit).split('').reverse().join('');
    return isList(v) ? [...v].reverse() : [];
  },
});
def(['round'], {
  run: (kit, v, [precision, method]) => {
    const factor = Math.pow(10, toNumber(precision || 0, kit.budget));
    const rounder = method === 'ceil' ? Math.ceil : method === 'floor' ? Math.floor : Math.round;
    return rounder(toNumber(v, kit.budget) * factor) / factor;
  },
});
def(['safe'], { run: (kit, v) => (v === null || v === undefined ? '' : toText(v, kit.budget)) });
def(['selectattr'], {
  run: (_kit, v, [attr]) => listOf('selectattr', v).filter((item) => !!field('selectattr', item, attr)),
});
def(['sort'], {
  params: ['reverse', 'case_sensitive', 'attribute'],
  run: (kit, v, [reversed, caseSensitive, attr]) => {
    const items = typeof v === 'string' || isList(v) ? itemsOf(v) : [];
    return sortBy(
      items,
      (a, b) => {
        let x = attr ? path('sort', a, attr) : a;
        let y = attr ? path('sort', b, attr) : b;
        if (kit.strict && attr && (x === undefined || y === undefined))
          return fail(`the filter 'sort': attribute "${String(attr)}" is not set on every item`);
        if (!caseSensitive && typeof x === 'string' && typeof y === 'string') {
          x = x.toLowerCase();
          y = y.toLowerCase();
        }
        if (lt(x, y, kit)) return reversed ? 1 : -1;
        if (gt(x, y, kit)) return reversed ? -1 : 1;
        return 0;
      },
      kit,
    );
  },
});
def(['string'], {
  run: (kit, v) =>
    v === null || v === undefined
      ? fail("the filter 'string' is given a value that is not set")
      : toText(v, kit.budget),
});
def(['striptags'], {
  run: (kit, v, [preserveLinebreaks]) => stripTags(textOf('striptags', normalize(v, ''), kit), !!preserveLinebreaks),
});
def(['sum'], {
  run: (kit, v, [attr, start]) => {
    let items = listOf('sum', v);
    if (attr) items = items.map((item) => field('sum', item, attr));
    let total: Data = 0;
    for (const item of items) total = plus(total, item, kit.budget);
    return plus(start === undefined ? 0 : start, total, kit.budget);
  },
});
def(['title'], {
  run: (kit, v) => textOf('title', normalize(v, ''), kit).split(' ').map(capitalizeText).join(' '),
});
def(['trim'], { run: (kit, v) => textOf('trim', v, kit).trim() });
def(['truncate'], {
  run: (kit, v, [length, killwords, end]) => {
    const s = textOf('truncate', normalize(v, ''), kit);
    const n = toNumber(length || 255, kit.budget);
    if (s.length <= n) return s;
    let cut: string;
    if (killwords) cut = s.substring(0, n);
    else {
      const space = s.lastIndexOf(' ', n);
      cut = s.substring(0, space === -1 ? n : space);
    }
    return cut + (end !== undefined && end !== null ? jsString(end, kit.budget) : '...');
  },
});
def(['upper'], { run: (kit, v) => textOf('upper', normalize(v, ''), kit).toUpperCase() });
def(['urlencode'], {
  run: (kit, v) => {
    const enc = (x: Data): string => {
      try {
        return encodeURIComponent(jsString(x, kit.budget));
      } catch {
        return fail("the filter 'urlencode' is given text with a lone surrogate");
      }
    };
    if (typeof v === 'string') return enc(textOf('urlencode', v, kit));
    const pairs: [Data, Data][] = isList(v)
      ? v.map((item) => {
          if (isList(item)) return [item[0], item[1]];
          if (typeof item === 'string') return [...item].slice(0, 2) as [Data, Data];
          return fail(`the filter 'urlencode' is given a list holding ${describe(item)}: expected [key, value] pairs`);
        })
      : isMapping(v)
        ? keysOf(v).map((k) => [k, v[k]])
        : [];
    return pairs.map(([k, val]) => `${enc(k)}=${enc(val)}`).join('&');
  },
});
def(['wordcount'], {
  run: (kit, v) => {
    const s = textOf('wordcount', normalize(v, ''), kit);
    return s ? (s.match(/\w+/g)?.length ?? null) : null;
  },
});

/** `items.join(separator)` for plain data: a list's items as their text, none for null and undefined. */
function joinTexts(items: Data[], separator: Data, kit: FilterKit): string {
  const sep = jsString(separator, kit.budget);
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const piece = item === undefined || item === null ? '' : toText(item, kit.budget);
    kit.budget.fits(out.length + sep.length + piece.length);
    kit.budget.charge(piece.length + sep.length);
    out += i === 0 ? piece : sep + piece;
  }
  return out;
}

/** The filters, by name (a fixed table: nothing is added at run time). */
export const FILTERS: Readonly<Record<string, FilterDef>> = Object.freeze(table);

/** `x is name(args)`: Nunjucks' tests for plain data, by name. */
const tests = Object.create(null) as Record<string, (kit: FilterKit, value: Data, arg: Data) => boolean>;
tests.defined = (_k, v) => v !== undefined;
tests.undefined = (_k, v) => v === undefined;
tests.null = (_k, v) => v === null;
tests.number = (_k, v) => typeof v === 'number';
tests.string = (_k, v) => typeof v === 'string';
tests.mapping = (_k, v) => isMapping(v);
tests.odd = (k, v) => toNumber(v, k.budget) % 2 === 1;
tests.even = (k, v) => toNumber(v, k.budget) % 2 === 0;
tests.divisibleby = (k, v, n) => toNumber(v, k.budget) % toNumber(n, k.budget) === 0;
tests.truthy = (_k, v) => !!v;
tests.falsy = (_k, v) => !v;
tests.equalto = (_k, v, x) => v === x;
tests.eq = tests.equalto;
tests.sameas = tests.equalto;
tests.ne = (_k, v, x) => v !== x;
tests.lt = (k, v, x) => compare('<', v, x, k.budget);
tests.lessthan = tests.lt;
tests.gt = (k, v, x) => compare('>', v, x, k.budget);
tests.greaterthan = tests.gt;
tests.le = (k, v, x) => compare('<=', v, x, k.budget);
tests.ge = (k, v, x) => compare('>=', v, x, k.budget);

export const TESTS: Readonly<Record<string, (kit: FilterKit, value: Data, arg: Data) => boolean>> =
  Object.freeze(tests);
