// The reply contains any or all of a list of texts; the `i…` forms ignore case.
import { type Family, assertionName, valueShown } from './family.js';

export type ListType = 'contains-any' | 'contains-all' | 'icontains-any' | 'icontains-all';
export interface ListAssertion {
  type: ListType;
  negate: boolean;
  values: string[];
}

const HOLDS: Record<ListType, (values: string[], text: string) => boolean> = {
  'contains-any': (values, text) => values.some((v) => text.includes(v)),
  'contains-all': (values, text) => values.every((v) => text.includes(v)),
  'icontains-any': (values, text) => values.some((v) => text.toLowerCase().includes(v.toLowerCase())),
  'icontains-all': (values, text) => values.every((v) => text.toLowerCase().includes(v.toLowerCase())),
};

export const lists: Family<ListAssertion> = {
  names: Object.keys(HOLDS),
  native: {
    value: 'required',
    expected: 'a list of strings',
    read: ({ file, type, negate, value }) => {
      const values = file
        .list(value!, 'a list of strings')
        .map((item) => file.text({ ...value!, value: item }, 'a string'));
      if (values.length === 0) file.failValue(value!, 'at least one string');
      return { type: type as ListType, negate, values };
    },
  },
  promptfoo: ({ type, negate, value, fail }) => {
    const values = Array.isArray(value) ? value : typeof value === 'string' ? splitList(value) : undefined;
    if (!values || values.length === 0 || values.some((v) => typeof v !== 'string' && typeof v !== 'number'))
      return fail('value', `${valueShown(value)}: expected a list of strings (or one string, comma-separated)`);
    return { type, negate, values: values.map(String) };
  },
  evaluation: { holds: (a, text) => HOLDS[a.type](a.values, text) },
  describe: (a) => `${assertionName(a)} ${JSON.stringify(a.values)}`,
};

/** promptfoo's comma list (`contains-any: a, b, "c, d"`): quoted fields may hold commas. */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (/\s/.test(value[i]) || value[i] === ',')) i++;
    if (i >= value.length) break;
    if (value[i] === '"') {
      let field = '';
      i++;
      while (i < value.length) {
        if (value[i] === '\\' && (value[i + 1] === '"' || value[i + 1] === '\\')) {
          field += value[i + 1];
          i += 2;
        } else if (value[i] === '"' && value[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (value[i] === '"') {
          i++;
          break;
        } else field += value[i++];
      }
      out.push(field);
      while (i < value.length && value[i] !== ',') i++;
    } else {
      const start = i;
      while (i < value.length && value[i] !== ',') i++;
      out.push(value.slice(start, i).trim());
    }
  }
  return out;
}
