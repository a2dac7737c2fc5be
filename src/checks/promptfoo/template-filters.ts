// The filters and tests a promptfoo template may use: Nunjucks' built-in ones (and promptfoo's
// `load`), each rewritten for plain data so that it gives Nunjucks' text for text, numbers, lists
// and mappings. A fixed table with no prototype: a name not in it is refused before anything
// renders. No filter calls a method its value holds or looks a name up on it past its own keys,
// and each charges what it handles to the rendering's budget.
import {
  type Budget,
  type Data,
  ITEM_COST,
  ITEM_SIZE,
  SafeText,
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
  same,
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
  /**
   * Given a text marked safe (safe, escape): 'keeps' runs on its text and marks the result (Nunjucks'
   * copySafeness), 'drops' runs on its text, 'own' takes it as it is; absent, the filter refuses it
   * (Nunjucks reads it as an object: no items, its keys `val` and `length`).
   */
  safe?: 'keeps' | 'drops' | 'own';
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

/** A text a filter built, charged as written (its size was bounded before it was built). */
function wrote(kit: FilterKit, text: string): string {
  kit.budget.room(text.length);
  return text;
}

/**
 * `transform` over `text` a piece at a time, each piece charged and the whole held within the
 * bound as it grows, for a filter that writes several characters for one (escape, nl2br,
 * urlencode): it never builds past the bound before it is refused. Pieces end before a
 * character that could pair with the next (a line break, a surrogate).
 */
function piecewise(kit: FilterKit, text: string, transform: (piece: string) => string): string {
  const PIECE = 64 * 1024;
  const parts: string[] = [];
  let size = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + PIECE);
    while (end < text.length && end > start + 1 && /[\r\ud800-\udbff]/.test(text[end - 1])) end--;
    const out = transform(text.slice(start, end));
    size += out.length;
    kit.budget.fits(size);
    kit.budget.charge(end - start + out.length);
    parts.push(out);
    start = end;
  }
  return parts.join('');
}

function listOf(name: string, value: Data): Data[] {
  if (!isList(value)) return fail(`the filter '${name}' is given ${describe(value)}: expected a list`);
  return value;
}

/** Items of a list or text; a value not set fails, as Nunjucks fails reading its length. */
function sequence(name: string, value: Data, kit: FilterKit): Data[] {
  if (value === undefined || value === null) return fail(`the filter '${name}' is given a value that is not set`);
  return itemsOf(value, kit.budget);
}

/** `item[attr]` (join, sum, selectattr): an own key; an item not set fails, as in Nunjucks. */
function field(name: string, item: Data, attr: Data, kit: FilterKit): Data {
  if (item === undefined || item === null)
    return fail(`the filter '${name}' reads '${String(attr)}' of an item that is not set`);
  kit.budget.charge(ITEM_COST);
  return member(item, attr, kit.budget);
}

/** Nunjucks' getAttrGetter (groupby, sort): a dotted path of own keys; undefined past a missing one. */
function path(name: string, item: Data, attr: Data, kit: FilterKit): Data {
  kit.budget.charge(ITEM_COST + (typeof attr === 'string' ? attr.length : 0));
  const parts = !attr ? [] : typeof attr === 'string' ? attr.split('.') : [attr];
  let value = item;
  kit.budget.charge(parts.length * ITEM_COST);
  for (const part of parts) {
    if (value === undefined || value === null)
      return fail(`the filter '${name}' reads '${String(attr)}' of an item that is not set`);
    value = member(value, part, kit.budget);
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

/** Nunjucks' escape: a text marked safe as it is; anything else escaped, and marked safe. */
function escapeFilter(kit: FilterKit, value: Data, force: boolean): SafeText {
  if (value instanceof SafeText && !force) return value;
  const s = value === null || value === undefined ? '' : toText(value, kit.budget);
  // A replacement per character escaped: charged as an item each, beside what is read and written.
  return new SafeText(
    piecewise(kit, s, (piece) => {
      const out = escapeText(piece);
      kit.budget.charge(((out.length - piece.length) / 3) * ITEM_COST);
      return out;
    }),
  );
}

/** JavaScript's `a < b` and `a > b` on plain data (lists and mappings as their text). */
const lt = (a: Data, b: Data, kit: FilterKit): boolean => compare('<', a, b, kit.budget);
const gt = (a: Data, b: Data, kit: FilterKit): boolean => compare('>', a, b, kit.budget);

/** A sort: each comparison charged an item, beside what the order itself charges. */
function sortBy<T>(items: T[], order: (a: T, b: T) => number, kit: FilterKit): T[] {
  kit.budget.list(items.length);
  return [...items].sort((a, b) => {
    kit.budget.charge(ITEM_COST);
    return order(a, b);
  });
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

def(['abs'], { safe: 'drops', run: (kit, v) => Math.abs(toNumber(v, kit.budget)) });
def(['batch'], {
  run: (kit, v, [linecount, fillWith]) => {
    const items = sequence('batch', v, kit);
    const n = toNumber(linecount, kit.budget);
    const rows: Data[] = [];
    let row: Data[] = [];
    kit.budget.list(items.length);
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
def(['capitalize'], {
  safe: 'keeps',
  run: (kit, v) => wrote(kit, capitalizeText(textOf('capitalize', normalize(v, ''), kit))),
});
def(['center'], {
  safe: 'keeps',
  run: (kit, v, [width]) => {
    const s = textOf('center', normalize(v, ''), kit);
    const w = toNumber(width || 80, kit.budget);
    if (s.length >= w) return s;
    const gap = w - s.length;
    const left = spaces(gap / 2 - (gap % 2), kit);
    const right = spaces(gap / 2, kit);
    kit.budget.room(left.length + s.length + right.length);
    return left + s + right;
  },
});
def(['default', 'd'], {
  safe: 'own',
  run: (_kit, v, [fallback, bool]) => (bool ? v || fallback : v !== undefined ? v : fallback),
});
def(['dictsort'], {
  run: (kit, v, [caseSensitive, by]) => {
    if (!isMapping(v)) return fail(`the filter 'dictsort' is given ${describe(v)}: expected a mapping`);
    const at = by === undefined || by === 'key' ? 0 : by === 'value' ? 1 : undefined;
    if (at === undefined) return fail("the filter 'dictsort' sorts by 'key' or 'value' only");
    const pairs: [string, Data][] = keysOf(v, kit.budget).map((k) => [k, v[k]]);
    kit.budget.list(pairs.length * 2);
    const fold = (x: Data): Data => (!caseSensitive && typeof x === 'string' ? wrote(kit, x.toUpperCase()) : x);
    return sortBy(
      pairs,
      (p, q) => {
        const a = fold(p[at]);
        const b = fold(q[at]);
        return gt(a, b, kit) ? 1 : same(a, b, kit.budget) ? 0 : -1;
      },
      kit,
    );
  },
});
/** What JSON.stringify writes as an escape (control characters, quotes, backslashes, surrogates). */
// eslint-disable-next-line no-control-regex -- the control characters are what is counted
const JSON_ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/g;

def(['dump'], {
  safe: 'own',
  run: (kit, v, [indent]) => {
    let size = 0;
    // Each key and value charged as JSON writes it, and the text held within the bound as it grows
    // (a text is counted at the most JSON could write for it: six characters for a control one).
    const charge = (key: string, value: unknown): unknown => {
      const text = typeof value === 'string' ? value : '';
      const escaped = !text ? 0 : text.length - text.replace(JSON_ESCAPED, '').length;
      const written = key.length + text.length + escaped * 5 + 16;
      size += written;
      kit.budget.fits(size);
      kit.budget.charge(written + text.length + ITEM_COST);
      // Nunjucks' SafeString, as JSON sees it: its own keys.
      return value instanceof SafeText ? { val: value.text, length: value.text.length } : value;
    };
    const space = typeof indent === 'number' || typeof indent === 'string' ? indent : undefined;
    checkDeep(v, kit.budget);
    const out = JSON.stringify(v, charge, space) as string | undefined;
    if (out !== undefined) kit.budget.room(out.length);
    return out;
  },
});
def(['escape', 'e'], { safe: 'own', run: (kit, v) => escapeFilter(kit, v, false) });
def(['forceescape'], {
  safe: 'own',
  run: (kit, v) => escapeFilter(kit, v instanceof SafeText ? v.text : v, true),
});
def(['first'], {
  run: (_kit, v) =>
    v === undefined || v === null ? fail("the filter 'first' is given a value that is not set") : itemAt(v, 0),
});
def(['float'], {
  safe: 'drops',
  run: (kit, v, [fallback]) => {
    const text = jsString(v, kit.budget);
    kit.budget.charge(text.length);
    const n = parseFloat(text);
    return Number.isNaN(n) ? fallback : n;
  },
});
def(['groupby'], {
  run: (kit, v, [attr]) => {
    const groups = mapping();
    for (const item of sequence('groupby', v, kit)) {
      kit.budget.charge(ITEM_COST);
      const key = path('groupby', item, attr, kit);
      if (key === undefined && kit.strict)
        return fail(`the filter 'groupby': attribute "${String(attr)}" is not set on every item`);
      const name = jsString(key, kit.budget);
      kit.budget.charge(name.length + ITEM_COST);
      const group = Object.hasOwn(groups, name) ? (groups[name] as Data[]) : (groups[name] = []);
      group.push(item);
    }
    return groups;
  },
});
def(['indent'], {
  safe: 'keeps',
  run: (kit, v, [width, indentfirst]) => {
    const s = textOf('indent', normalize(v, ''), kit);
    if (s === '') return '';
    const lines = s.split('\n');
    kit.budget.list(lines.length);
    const pad = spaces(toNumber(width || 4, kit.budget), kit);
    kit.budget.room(s.length + pad.length * lines.length);
    return lines.map((line, i) => (i === 0 && !indentfirst ? line : pad + line)).join('\n');
  },
});
def(['int'], {
  params: ['default', 'base'],
  safe: 'drops',
  run: (kit, v, [fallback, base]) => {
    const text = jsString(v, kit.budget);
    kit.budget.charge(text.length);
    const n = parseInt(text, base === undefined ? 10 : toNumber(base, kit.budget));
    return Number.isNaN(n) ? fallback : n;
  },
});
def(['join'], {
  run: (kit, v, [separator, attr]) => {
    let items = listOf('join', v);
    if (attr) items = items.map((item) => field('join', item, attr, kit));
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
  safe: 'drops',
  run: (kit, v) => {
    const value = normalize(v, '');
    if (isMapping(value)) return keysOf(value, kit.budget).length;
    return typeof value === 'string' || isList(value) ? value.length : undefined;
  },
});
def(['list'], {
  run: (kit, v) => {
    if (typeof v === 'string') return itemsOf(textOf('list', v, kit), kit.budget);
    if (isMapping(v)) {
      const keys = keysOf(v, kit.budget);
      kit.budget.list(keys.length * 3);
      return keys.map((key) =>
        mapping([
          ['key', key],
          ['value', v[key]],
        ]),
      );
    }
    if (isList(v)) return v;
    return fail(`the filter 'list' is given ${describe(v)}: expected a list, a text or a mapping`);
  },
});
def(['load'], {
  safe: 'drops',
  run: (kit, v) => {
    const text = jsString(v, kit.budget);
    // JSON of n characters builds at most n/2 items: charged (and held) as such, before it is parsed.
    kit.budget.charge(text.length);
    kit.budget.list(Math.ceil(text.length / 2));
    try {
      return JSON.parse(text) as Data;
    } catch {
      return fail("the filter 'load' is given text that is not JSON");
    }
  },
});
def(['lower'], { safe: 'drops', run: (kit, v) => wrote(kit, textOf('lower', normalize(v, ''), kit).toLowerCase()) });
def(['nl2br'], {
  safe: 'keeps',
  run: (kit, v) => {
    if (v === null || v === undefined) return '';
    return piecewise(kit, textOf('nl2br', v, kit), (piece) => {
      const out = piece.replace(/\r\n|\n/g, '<br />\n');
      kit.budget.charge(((out.length - piece.length) / 6) * ITEM_COST);
      return out;
    });
  },
});
def(['rejectattr'], {
  run: (kit, v, [attr]) => listOf('rejectattr', v).filter((item) => !field('rejectattr', item, attr, kit)),
});
def(['replace'], { safe: 'keeps', run: (kit, v, args) => replaceText(kit, v, args) });
def(['reverse'], {
  run: (kit, v) => {
    if (typeof v === 'string')
      return wrote(
        kit,
        itemsOf(textOf('reverse', v, kit), kit.budget)
          .reverse()
          .join(''),
      );
    return isList(v) ? [...v].reverse() : [];
  },
});
def(['round'], {
  safe: 'drops',
  run: (kit, v, [precision, method]) => {
    const factor = Math.pow(10, toNumber(precision || 0, kit.budget));
    const rounder = method === 'ceil' ? Math.ceil : method === 'floor' ? Math.floor : Math.round;
    return rounder(toNumber(v, kit.budget) * factor) / factor;
  },
});
def(['safe'], {
  safe: 'own',
  run: (kit, v) =>
    v instanceof SafeText ? v : new SafeText(v === null || v === undefined ? '' : toText(v, kit.budget)),
});
def(['selectattr'], {
  run: (kit, v, [attr]) => listOf('selectattr', v).filter((item) => !!field('selectattr', item, attr, kit)),
});
def(['sort'], {
  params: ['reverse', 'case_sensitive', 'attribute'],
  run: (kit, v, [reversed, caseSensitive, attr]) => {
    const items = typeof v === 'string' || isList(v) ? itemsOf(v, kit.budget) : [];
    return sortBy(
      items,
      (a, b) => {
        let x = attr ? path('sort', a, attr, kit) : a;
        let y = attr ? path('sort', b, attr, kit) : b;
        if (kit.strict && attr && (x === undefined || y === undefined))
          return fail(`the filter 'sort': attribute "${String(attr)}" is not set on every item`);
        if (!caseSensitive && typeof x === 'string' && typeof y === 'string') {
          x = wrote(kit, x.toLowerCase());
          y = wrote(kit, y.toLowerCase());
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
  safe: 'own',
  run: (kit, v) =>
    v === null || v === undefined
      ? fail("the filter 'string' is given a value that is not set")
      : v instanceof SafeText
        ? v
        : toText(v, kit.budget),
});
def(['striptags'], {
  safe: 'keeps',
  run: (kit, v, [preserveLinebreaks]) => {
    const s = textOf('striptags', normalize(v, ''), kit);
    // A few passes over the text (tags, spaces, line breaks), each charged as a read and a write.
    kit.budget.room(s.length);
    kit.budget.charge(s.length * 4);
    return wrote(kit, stripTags(s, !!preserveLinebreaks));
  },
});
def(['sum'], {
  run: (kit, v, [attr, start]) => {
    let items = listOf('sum', v);
    if (attr) items = items.map((item) => field('sum', item, attr, kit));
    let total: Data = 0;
    for (const item of items) total = plus(total, item, kit.budget);
    return plus(start === undefined ? 0 : start, total, kit.budget);
  },
});
def(['title'], {
  safe: 'keeps',
  run: (kit, v) => {
    const words = textOf('title', normalize(v, ''), kit).split(' ');
    kit.budget.list(words.length);
    return wrote(kit, words.map(capitalizeText).join(' '));
  },
});
def(['trim'], { safe: 'keeps', run: (kit, v) => wrote(kit, textOf('trim', v, kit).trim()) });
def(['truncate'], {
  safe: 'keeps',
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
    const tail = end !== undefined && end !== null ? jsString(end, kit.budget) : '...';
    kit.budget.room(cut.length + tail.length);
    return cut + tail;
  },
});
def(['upper'], { safe: 'drops', run: (kit, v) => wrote(kit, textOf('upper', normalize(v, ''), kit).toUpperCase()) });
def(['urlencode'], { run: (kit, v) => urlencode(kit, v) });
def(['wordcount'], {
  safe: 'drops',
  run: (kit, v) => {
    const s = textOf('wordcount', normalize(v, ''), kit);
    // The words are found (and listed) once: a regular expression's pass, and a list of at most n/2.
    kit.budget.charge(s.length * 8);
    kit.budget.fits(Math.ceil(s.length / 2) * ITEM_SIZE);
    return s ? (s.match(/\w+/g)?.length ?? null) : null;
  },
});

/** Nunjucks' replace: every occurrence (or the first `maxCount`), each piece charged as it is written. */
function replaceText(kit: FilterKit, v: Data, [old, replacement, maxCount]: Data[]): Data {
  if (typeof old === 'number') old = String(old);
  else if (typeof old !== 'string') return v;
  const str = typeof v === 'number' ? String(v) : v;
  if (typeof str !== 'string') return v;
  // The searches together: at worst each character of the text compared with each of `old`'s.
  kit.budget.charge(str.length * Math.max(1, old.length) + old.length);
  const by = jsString(replacement, kit.budget);
  if (old === '') {
    kit.budget.room((str.length + 1) * by.length + str.length);
    kit.budget.list(str.length);
    return by + str.split('').join(replacement === undefined ? ',' : by) + by;
  }
  const max = maxCount === undefined ? -1 : primitive(maxCount, kit.budget);
  let next = str.indexOf(old);
  if (max === 0 || next === -1) return str;
  let out = '';
  let pos = 0;
  let count = 0;
  while (next > -1 && (max === -1 || count < (max as number))) {
    // Each match: the text before it, the replacement, and a search from past it.
    kit.budget.fits(out.length + (next - pos) + by.length);
    kit.budget.charge(next - pos + by.length + old.length + ITEM_COST);
    out += str.substring(pos, next) + by;
    pos = next + old.length;
    count++;
    next = str.indexOf(old, pos);
  }
  if (pos < str.length) {
    kit.budget.room(out.length + str.length - pos);
    out += str.substring(pos);
  }
  return out;
}

/** Nunjucks' urlencode: a text, or a mapping's (or a list of pairs') `k=v&…`, each encoded a piece at a time. */
function urlencode(kit: FilterKit, v: Data): string {
  const enc = (x: Data): string => {
    const text = jsString(x, kit.budget);
    return piecewise(kit, text, (piece) => {
      try {
        return encodeURIComponent(piece);
      } catch {
        return fail("the filter 'urlencode' is given text with a lone surrogate");
      }
    });
  };
  if (typeof v === 'string') return enc(textOf('urlencode', v, kit));
  const pairs: [Data, Data][] = isList(v)
    ? v.map((item) => {
        if (isList(item)) return [item[0], item[1]];
        // The first two letters (code points): a text's first four units hold them.
        if (typeof item === 'string') return [...item.slice(0, 4)].slice(0, 2) as [Data, Data];
        return fail(`the filter 'urlencode' is given a list holding ${describe(item)}: expected [key, value] pairs`);
      })
    : isMapping(v)
      ? keysOf(v, kit.budget).map((k) => [k, v[k]])
      : [];
  let size = 0;
  const parts = pairs.map(([k, val]) => {
    const part = `${enc(k)}=${enc(val)}`;
    size += part.length + 1;
    kit.budget.fits(size);
    return part;
  });
  kit.budget.charge(size);
  return parts.join('&');
}

/** `items.join(separator)` for plain data: a list's items as their text, none for null and undefined. */
function joinTexts(items: Data[], separator: Data, kit: FilterKit): string {
  const sep = jsString(separator, kit.budget);
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const piece = item === undefined || item === null ? '' : toText(item, kit.budget);
    kit.budget.fits(out.length + sep.length + piece.length);
    kit.budget.charge(sep.length + piece.length);
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
// Nunjucks: any object but a list, so a text marked safe too.
tests.mapping = (_k, v) => isMapping(v) || v instanceof SafeText;
tests.odd = (k, v) => toNumber(v, k.budget) % 2 === 1;
tests.even = (k, v) => toNumber(v, k.budget) % 2 === 0;
tests.divisibleby = (k, v, n) => toNumber(v, k.budget) % toNumber(n, k.budget) === 0;
tests.truthy = (_k, v) => !!v;
tests.falsy = (_k, v) => !v;
tests.equalto = (k, v, x) => same(v, x, k.budget);
tests.eq = tests.equalto;
tests.sameas = tests.equalto;
tests.ne = (k, v, x) => !same(v, x, k.budget);
tests.lt = (k, v, x) => compare('<', v, x, k.budget);
tests.lessthan = tests.lt;
tests.gt = (k, v, x) => compare('>', v, x, k.budget);
tests.greaterthan = tests.gt;
tests.le = (k, v, x) => compare('<=', v, x, k.budget);
tests.ge = (k, v, x) => compare('>=', v, x, k.budget);

export const TESTS: Readonly<Record<string, (kit: FilterKit, value: Data, arg: Data) => boolean>> =
  Object.freeze(tests);
