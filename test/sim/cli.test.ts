// `npm run sim` as a new user meets it: --help prints the usage, a mistake is one line and the usage.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, 'cli.ts');
const sim = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });

describe('npm run sim', () => {
  it('--help prints its usage and exits 0 without starting', () => {
    const run = sim('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run sim -- \[options\]/);
    expect(run.stdout).toContain('--week DIR');
    expect(run.stdout).not.toContain('listening');
  });

  it('an unknown option or a bad value is one error line and the usage, exit 2, no stack trace', () => {
    for (const args of [['--bogus'], ['--shape', 'nope'], ['--pass-rate', '2']]) {
      const run = sim(...args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr.split('\n')[0], args.join(' ')).toMatch(/^error: /);
      expect(run.stderr, args.join(' ')).toContain('Usage: npm run sim');
      expect(run.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });
});
