import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The worker's native bridge crashes under the thread pool; forks isolate it per file.
    pool: 'forks',
    globalSetup: ['tests/support/global-setup.ts'],
    setupFiles: ['tests/support/quiet-runtime.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
