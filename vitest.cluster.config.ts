import { defineConfig } from 'vitest/config';
import { sharedWithWorkers } from './vitest.config.js';

/**
 * `npm run test:cluster`: `codeloop cluster` for real (PostgreSQL and one process per Temporal service, built by
 * `npm run install-cluster`). Slow, and kept out of `npm test`. One file at a time: each runs a whole cluster.
 */
export default defineConfig({
  test: {
    ...sharedWithWorkers,
    include: ['tests/cluster/**/*.test.ts'],
    exclude: ['node_modules/**'],
    poolOptions: { forks: { minForks: 1, maxForks: 1 } },
    testTimeout: 180_000,
  },
});
