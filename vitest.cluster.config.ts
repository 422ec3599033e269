import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.js';

/**
 * `npm run test:cluster`: `codeloop cluster` for real (PostgreSQL and one process per Temporal service, built by
 * `npm run install-cluster`). Slow, and kept out of `npm test`. One file at a time: each runs a whole cluster.
 */
export default defineConfig({
  test: {
    ...shared,
    // Every file here runs workers: the quiet Temporal runtime for each (see tests/support/quiet-runtime.ts).
    setupFiles: ['tests/support/quiet-runtime.ts'],
    include: ['tests/cluster/**/*.test.ts'],
    exclude: ['node_modules/**'],
    poolOptions: { forks: { minForks: 1, maxForks: 1 } },
    testTimeout: 180_000,
  },
});
