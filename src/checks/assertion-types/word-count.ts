// The reply has a number of words, or a number within {min, max}.
import { isMap } from 'yaml';
import type { Entry, YamlFile } from '../../config/yaml-file.js';
import type { AssertContext } from '../promptfoo/assert-context.js';
import { type Obj, isObj } from '../promptfoo/located.js';
import { type Family, assertionName, valueShown } from './family.js';

export interface WordCountAssertion {
  type: 'word-count';
  negate: boolean;
  min?: number;
  max?: number;
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

export const wordCount: Family<WordCountAssertion> = {
  names: ['word-count'],
  native: {
    value: 'required',
    expected: 'a number of words, or {min, max}',
    read: ({ file, negate, value }) => ({ type: 'word-count', negate, ...readWordCount(file, value!) }),
  },
  promptfoo: ({ negate, value, a, ctx }) => ({ type: 'word-count', negate, ...promptfooWordCount(a, value, ctx) }),
  evaluation: {
    holds: (a, text) => {
      const n = words(text);
      return (a.min === undefined || n >= a.min) && (a.max === undefined || n <= a.max);
    },
    measured: (_a, reply) => ` (${words(reply.trim())} words)`,
  },
  describe: (a) => {
    const name = assertionName(a);
    return a.min === a.max ? `${name} ${a.min}` : `${name} ${a.min ?? 0}..${a.max === undefined ? '∞' : a.max}`;
  },
};

function readWordCount(file: YamlFile, entry: Entry): { min?: number; max?: number } {
  if (!isMap(entry.value)) {
    const n = file.number(entry, 0, 1_000_000, { integer: true });
    return { min: n, max: n };
  }
  const bounds = new Map(file.entries(entry.value, "'word-count'", ['min', 'max']).map((e) => [e.key, e]));
  const min = bounds.get('min');
  const max = bounds.get('max');
  if (!min && !max) file.failValue(entry, 'a number of words, or {min, max} with at least one of them');
  const range = {
    min: min ? file.number(min, 0, 1_000_000, { integer: true }) : undefined,
    max: max ? file.number(max, 0, 1_000_000, { integer: true }) : undefined,
  };
  if (range.min !== undefined && range.max !== undefined && range.min > range.max) {
    file.failValue(entry, `'min' at most 'max' (${range.min} > ${range.max})`);
  }
  return range;
}

function promptfooWordCount(a: Obj, value: unknown, ctx: AssertContext): { min?: number; max?: number } {
  const count = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0
      ? v
      : typeof v === 'string' && /^\d+$/.test(v.trim())
        ? Number(v)
        : undefined;
  const n = count(value);
  if (n !== undefined) return { min: n, max: n };
  if (isObj(value)) {
    const min = value.min === undefined ? undefined : count(value.min);
    const max = value.max === undefined ? undefined : count(value.max);
    const ok = (value.min === undefined || min !== undefined) && (value.max === undefined || max !== undefined);
    if (ok && (min !== undefined || max !== undefined) && (min === undefined || max === undefined || min <= max))
      return { min, max };
  }
  return ctx.places.fail(
    a,
    'value',
    `${valueShown(value)}: expected a number of words, or {min, max} with min at most max`,
  );
}
