import { defineConfig } from 'vitest/config';

/** The unit, integration and structure tests: modules and the simulator in-process, no dist/. */
const UNIT = ['src/**/*.test.ts', 'test/*.test.ts', 'test/structure/**/*.test.ts', 'test/sim/**/*.test.ts'];
/** Unit files that replace a module (vi.mock): each keeps a module graph of its own. */
const MOCKING = ['src/command-table.test.ts'];

export default defineConfig({
  test: {
    // Two cores: forks keep each e2e test's child processes and simulator apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 10_000,
    projects: [
      {
        // `npm run test:unit`: the inner loop. Files share their workers' module graphs (no
        // isolation), which saves loading src/ again for each file; none keeps state across files.
        test: { name: 'unit', include: UNIT, exclude: MOCKING, isolate: false },
      },
      { test: { name: 'unit-mocking', include: MOCKING } },
      {
        // The end-to-end tests run dist/, so dist/ must be what src/ builds: built first when src/ is newer.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/browser/**/*.test.ts'],
          globalSetup: ['test/support/build-dist.ts'],
        },
      },
    ],
  },
});
