import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Scripted tasks on published projects download them and run their suites: `npm run test:real`, also in CI.
    // `codeloop eval` on the built-in suite runs every case as a task: `npm run test:eval`.
    // The PostgreSQL-backed cluster, built by `npm run install-cluster`, starts and stops for real: `npm run test:cluster`.
    exclude: ['tests/real-repos/**', 'tests/eval/**', 'tests/cluster/**', 'node_modules/**'],
    // The worker's native bridge crashes under the thread pool; forks isolate it per file.
    pool: 'forks',
    // Most of a test's time is spent waiting on the Temporal server, not the CPU: four files at once on two cores
    // keep both busy (the default, cores - 1, ran one file at a time here).
    poolOptions: { forks: { minForks: 1, maxForks: 4 } },
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
