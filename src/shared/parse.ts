// Parsers for action inputs. Each returns a value or throws a ParseError saying what form was
// expected; settings.ts adds the input's name and value to make the one-line message.

import type { Share } from './share.js';

export class ParseError extends Error {
  /** `shown`: the part of the value at fault (one word of a list), shown instead of the whole. */
  constructor(
    message: string,
    readonly shown?: string,
  ) {
    super(message);
  }
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|d|h|m|s)/gy;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `90s`, `15m`, `1h30m`, `7d`, `500ms`, or bare seconds (`45`, `0.5`) into milliseconds. */
export function parseDuration(text: string): number {
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  let total = 0;
  let end = 0;
  DURATION_PART.lastIndex = 0;
  for (let m = DURATION_PART.exec(value); m; m = DURATION_PART.exec(value)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    end = DURATION_PART.lastIndex;
  }
  if (value === '' || end !== value.length) {
    throw new ParseError('a duration such as 90s, 15m, 1h30m, 500ms, or a number of seconds');
  }
  return Math.round(total);
}

/** A whole number of at least 0 (a cap such as `max-previews`). */
export function parseCount(text: string): number {
  if (!/^\d{1,6}$/.test(text.trim())) throw new ParseError('a whole number such as 10');
  return Number(text.trim());
}

/** Strict boolean: the YAML 1.2 spellings of true and false, nothing else. */
export function parseBoolean(text: string): boolean {
  const value = text.trim();
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new ParseError('true or false');
}

/** Comma- or newline-separated list; blanks dropped. */
export function parseList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** One of a fixed set of words (case-insensitive), returned as spelled in `allowed`. */
export function parseEnum<T extends string>(text: string, allowed: readonly T[]): T {
  const value = text.trim().toLowerCase();
  const match = allowed.find((word) => word === value);
  if (match === undefined) throw new ParseError(`one of ${allowed.join(', ')}`);
  return match;
}

/** `3` or `25%`: a positive count or a percentage up to 100 (`zero` allows 0, as max-failures does). */
export function parseShare(text: string, zero = false): Share {
  const value = text.trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value);
  if (percent && Number(percent[1]) <= 100 && (zero || Number(percent[1]) > 0)) return { percent: Number(percent[1]) };
  if (/^\d+$/.test(value) && (zero || Number(value) > 0)) return { count: Number(value) };
  throw new ParseError(
    `a ${zero ? '' : 'positive '}count of Claws or a percentage such as ${zero ? '2 or 10%' : '1, 25% or 100%'}, comma separated`,
  );
}

/** A duration greater than zero (a deadline, an interval). */
export function parsePositiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new ParseError('a duration greater than zero');
  return ms;
}

/** Status words separated by commas; the first bad word is the one shown. */
export function parseStatusWords(text: string): string[] {
  const words = parseList(text);
  for (const word of words) if (!/^[\w -]+$/.test(word)) throw new ParseError('status words separated by commas', word);
  return words;
}

/** One word matching `pattern` (trimmed; empty allowed): the trimmed word is the one shown. */
export function parseWord(pattern: RegExp, expected: string): (text: string) => string {
  return (text) => {
    const word = text.trim();
    if (word !== '' && !pattern.test(word)) throw new ParseError(expected, word);
    return word;
  };
}
