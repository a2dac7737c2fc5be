import { describe, expect, it } from 'vitest';
import { formatDuration } from './format.js';
import { ParseError, parseBoolean, parseDuration, parseEnum, parseList } from './parse.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['45', 45_000],
    ['0.25', 250],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    [' 2m ', 120_000],
  ])('%s → %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'abc', '10x', '1h 30m', '-5s', 's', '5m3', 'ms'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(ParseError);
  });
});

describe('parseBoolean', () => {
  it.each(['true', 'True', 'TRUE'])('%s is true', (v) => expect(parseBoolean(v)).toBe(true));
  it.each(['false', 'False', 'FALSE'])('%s is false', (v) => expect(parseBoolean(v)).toBe(false));
  it.each(['yes', '1', '', 'tru', 'on'])('rejects %j', (v) => expect(() => parseBoolean(v)).toThrow('true or false'));
});

describe('parseList and parseEnum', () => {
  it('splits on commas and newlines and drops blanks', () => {
    expect(parseList('a, b\nc,,\n d ')).toEqual(['a', 'b', 'c', 'd']);
    expect(parseList('')).toEqual([]);
  });
  it('matches case-insensitively and names the choices', () => {
    expect(parseEnum('Deploy', ['deploy', 'wait'] as const)).toBe('deploy');
    expect(() => parseEnum('ship', ['deploy', 'wait'] as const)).toThrow('one of deploy, wait');
  });
});

describe('formatDuration', () => {
  it.each([
    [250, '250ms'],
    [1500, '1.5s'],
    [95_000, '1m35s'],
    [5_400_000, '1h30m'],
  ])('%d → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
