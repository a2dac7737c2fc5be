import { readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { defineConfig } from 'vitest/config';

/** The unit, integration and structure tests: modules and the simulator in-process, no dist/. */
const UNIT = [
  'src/**/*.test.ts',
  'test/*.test.ts',
  'test/structure/**/*.test.ts',
  'test/sim/**/*.test.ts',
  'test/support/**/*.test.ts',
];
/**
 * Unit files that replace a module (`vi.mock`): each keeps a module graph of its own. Found by
 * reading the files, so a new one cannot share the others' graph (and its mock go unseen) by
 * being left off a list.
 */
const MOCKING = ['src', 'test']
  .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)))
  .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules') && !f.startsWith(join('test', 'e2e')))
  .filter((f) => readFileSync(f, 'utf8').includes('vi.mock('))
  .map((f) => f.split(sep).join('/'))
  .sort();

export default defineConfig({
  test: {
    // Forks keep each file's child processes and simulators apart. An end-to-end file mostly waits
    // on its children, so more files run at once than there are cores (3 on 2 cores).
    pool: 'forks',
    maxWorkers: '150%',
    // Files share their worker's module graph (src/, the simulator, the harness): loading them
    // once per worker, not once per file, halves the unit tests' CPU. No module of them keeps
    // state across files; the files that mock a module are isolated below.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 10_000,
    projects: [
      // `npm run test:unit` runs these two: the inner loop, no dist/ build, no e2e.
      { test: { name: 'unit', include: UNIT, exclude: MOCKING } },
      { test: { name: 'unit-mocking', include: MOCKING, isolate: true } },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/browser/**/*.test.ts'],
          // The end-to-end tests run dist/, so dist/ must be what src/ builds: built first when the hash of
          // src/ (and the build's inputs) differs from the one dist/ was built from.
          globalSetup: ['test/support/build-dist.ts'],
          // A guard, not a measure: several files share the cores, so a long test may take longer.
          testTimeout: 60_000,
        },
      },
    ],
  },
});
