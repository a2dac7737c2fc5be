// Text the reply equals, contains, starts or ends with; the `i…` form ignores case.
import { isObj } from '../promptfoo/located.js';
import { type Family, assertionName, short } from './family.js';

export type TextType = 'equals' | 'contains' | 'icontains' | 'starts-with' | 'ends-with';
export interface TextAssertion {
  type: TextType;
  negate: boolean;
  value: string;
}

const HOLDS: Record<TextType, (value: string, text: string) => boolean> = {
  equals: (value, text) => text === value,
  contains: (value, text) => text.includes(value),
  icontains: (value, text) => text.toLowerCase().includes(value.toLowerCase()),
  'starts-with': (value, text) => text.startsWith(value),
  'ends-with': (value, text) => text.endsWith(value),
};

export const text: Family<TextAssertion> = {
  names: Object.keys(HOLDS),
  native: {
    value: 'required',
    read: (p) => ({ type: p.type as TextType, negate: p.negate, value: p.text() }),
  },
  promptfoo: ({ type, negate, value, fail, text }) => {
    if (type !== 'equals') return { type, negate, value: text('a string') };
    if (isObj(value) || Array.isArray(value))
      fail(
        'value',
        "'equals' with a mapping or list compares parsed JSON, which this project does not: write the expected JSON as text, or use is-json with a schema",
      );
    return { type, negate, value: value === undefined ? '' : String(value as string) };
  },
  evaluation: { holds: (a, text) => HOLDS[a.type](a.value, text) },
  describe: (a) => `${assertionName(a)} ${short(a.value)}`,
};
