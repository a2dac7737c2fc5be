// The opt-in suite (npm run test:promptfoo): promptfoo itself, installed apart by install.ts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/promptfoo/**/*.promptfoo.ts'],
    globalSetup: ['test/support/build-dist.ts'],
    pool: 'forks',
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
