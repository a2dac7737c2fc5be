import { describe, expect, it } from 'vitest';
import { runnerCommands } from '../../test/e2e/harness.ts';
import { MAX_LOG_LINE, sanitizeLogLine } from './log-line.js';

const HOSTILE = [
  'deploying\n::set-output name=outcome::succeeded',
  'x\r::stop-commands::tok',
  'x\r\n::add-mask::visible',
  '   ::error::forged',
  '\t::warning::forged',
  '\u00a0\u3000::notice::forged',
  '\ufeff::error::bom',
  'x\u2028::error::separator',
  'x\u0085::error::nel',
  'anywhere ##[error]legacy',
  '##[set-output name=outcome;]succeeded',
  '###[error]three',
  '##[##[error]nested',
  'x%0A::error::encoded',
  '\u001b[31m::error::ansi',
  '\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007',
  'right-to-left \u202eoverride',
];

describe('sanitizeLogLine', () => {
  it.each(HOSTILE)('no runner command survives: %j', (text) => {
    const line = sanitizeLogLine(text);
    expect(runnerCommands(line)).toEqual([]);
    expect(runnerCommands(`prefix ${line}`)).toEqual([]);
    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/);
  });

  it('keeps ordinary text as it is', () => {
    const text = '[12s] deployment dep_1: rolling_out (in progress) — ✅ 50%';
    expect(sanitizeLogLine(text)).toBe(text);
  });

  it('removes ANSI sequences whole, and shows other controls as a visible mark', () => {
    expect(sanitizeLogLine('\u001b[31mred\u001b[0m')).toBe('red');
    expect(sanitizeLogLine('a\u0000b')).toBe('a\ufffdb');
    expect(sanitizeLogLine('a\nb')).toBe('a b');
  });

  it('cuts an endless value with a marker saying how much was left out', () => {
    const line = sanitizeLogLine('x'.repeat(MAX_LOG_LINE + 500));
    expect(line.length).toBeLessThan(MAX_LOG_LINE + 50);
    expect(line).toMatch(/… \(500 more characters\)$/);
  });
});
