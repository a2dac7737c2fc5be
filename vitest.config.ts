import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The end-to-end tests run dist/: build it first when the hash of src/ differs from the one it was built from.
    globalSetup: ['test/support/build-dist.ts'],
    // Two cores: forks keep each e2e test's child processes and simulator apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 10_000,
  },
});
