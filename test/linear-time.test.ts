// Every reader of untrusted text runs in linear time (issue 39, item 5). Not a speed test: each
// reader is fed a hostile shape at 1 MiB and at 4 MiB on the same machine in the same test, and
// the ratio of the CPU time it took is held under 10. A linear reader takes about 4 times as long
// on four times the text, a quadratic one about 16 times (a capped one about 1).
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../src/api/redact.ts';
import { holds } from '../src/checks/assertions.ts';
import { firstBracedOnLine, jsonValuesIn, lastJsonObject, wholeJsonObject } from '../src/checks/json-in-text.ts';
import { selectBestIndex } from '../src/checks/promptfoo/graders.ts';
import { compileSchema } from '../src/checks/schema.ts';
import { YamlFile } from '../src/config/yaml-file.ts';
import { textLines } from '../src/report/text-diff.ts';

const MiB = 1 << 20;
/**
 * Linear growth is 4, quadratic 16: 10 leaves room for a loaded machine (a linear reader measured
 * 9.1 once beside the whole suite, its collector's work on 4 MiB strings included) and still
 * tells them apart, since a quadratic reader's least ratio over the tries stays near 16.
 */
const MAX_GROWTH = 10;
/** Below this a reading is too short to time: a capped reader's few milliseconds are not growth. */
const FLOOR_MS = 5;

const KEY = 'ams/Key+Qx7Zr9Wv2Lp4';
const redactor = new Redactor([KEY, `Bearer ${KEY}`]);

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** `unit` repeated to `bytes` characters. */
const repeated = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

/**
 * time(4 MiB) / time(1 MiB) of `read` on `shape`, the least over a few tries: a pause of the
 * machine (another process, a collection) only ever adds time, so the least is the reader's own.
 * A try is repeated only while the ratio looks too large.
 */
function growth(shape: (bytes: number) => string, read: (text: string) => unknown): number {
  const [small, large] = [shape(MiB), shape(4 * MiB)];
  read(shape(64 * 1024)); // compiled before it is timed
  const time = (text: string): number => cpuMs(() => read(text));
  // Each try times both sizes afresh, so one lucky small reading cannot inflate every ratio; the
  // large one's best of two, so one collection or one busy core does not read as growth.
  let least = Infinity;
  for (let attempt = 0; attempt < 4 && least >= MAX_GROWTH; attempt++) {
    const smallMs = Math.max(FLOOR_MS, Math.min(time(small), time(small)));
    least = Math.min(least, Math.min(time(large), time(large)) / smallMs);
  }
  return least;
}

const shapes: Record<string, (bytes: number) => string> = {
  'one zero-width space, then the key and a space, repeated': (n) => `\u200b${repeated(`${KEY} `, n - 1)}`,
  'the key with an invisible character between every character': (n) => repeated([...KEY].join('\u00ad'), n),
  '`{` repeated': (n) => repeated('{', n),
  'deep nesting': (n) => `${repeated('[', n / 2)}${repeated(']', n / 2)}`,
  'nested escapes (`%25`, `&#x`, `\\u`)': (n) => repeated('%25&#x\\u00', n),
  'one long line': (n) => `${repeated('a', n - 2)}.x`,
};

describe('every reader of untrusted text grows linearly with its text (1 MiB to 4 MiB)', () => {
  it.each(Object.entries(shapes))('the redactor on %s', (_name, shape) => {
    expect(growth(shape, redactor.redact)).toBeLessThan(MAX_GROWTH);
  });

  it('the redactor still redacts the hostile shape (the key is gone, the rest kept)', () => {
    expect(redactor.redact(`\u200b${KEY}`.repeat(3000))).toBe('***');
    expect(redactor.redact(repeated('{', 1000))).toBe(repeated('{', 1000));
  });

  const readers: [string, (text: string) => unknown, (bytes: number) => string][] = [
    ["g-eval's answer reader on `{` repeated", (t) => firstBracedOnLine(t, '{'), shapes['`{` repeated']],
    ["g-eval's steps reader on `{\"steps\"` repeated", (t) => firstBracedOnLine(t, '{"steps"'), (n) => repeated('{"steps"', n)],
    ['the JSON finder on `{` repeated', (t) => jsonValuesIn(t), shapes['`{` repeated']],
    ['the JSON finder on deep nesting', (t) => jsonValuesIn(t), shapes['deep nesting']],
    ["a judge's last object on `{` repeated", (t) => lastJsonObject(t), shapes['`{` repeated']],
    ["is-json on a reply of deep nesting", (t) => holds({ type: 'is-json', negate: false }, t, 0), shapes['deep nesting']],
    ["a judge's whole object on deep nesting", (t) => wholeJsonObject(t), shapes['deep nesting']],
    ["select-best's index on a word of dots", (t) => selectBestIndex(t, 3), (n) => `1${repeated('.', n - 2)}x`],
    ["the plan diff's lines on one long line", textLines, shapes['one long line']],
    ['a schema pattern on a long reply', (t) => compileSchema({ type: 'string', pattern: '^(a+)+$' }).validate(t), (n) => `${repeated('a', n - 1)}!`],
    ['the YAML reader on one long line', (t) => { try { YamlFile.parse('f.yml', t, 'file'); } catch { /* refused */ } }, (n) => `key: ${repeated('a', n - 5)}`],
    ['the YAML reader on deep flow nesting', (t) => { try { YamlFile.parse('f.yml', t, 'file'); } catch { /* refused */ } }, shapes['deep nesting']],
    ['the CSV reader on one long field', (t) => { try { parseCsv(t, { columns: true, bom: true, info: true, skip_empty_lines: true }); } catch { /* refused */ } }, (n) => `a,b\n"${repeated('x', n - 6)}",y`],
  ]; // prettier-ignore
  it.each(readers)('%s', (_name, read, shape) => {
    expect(growth(shape, read)).toBeLessThan(MAX_GROWTH);
  });
});
