import { defineConfig } from 'vitest/config';
import LongestFirst from './tests/support/longest-first.js';

/**
 * Pure unit tests: they start no server, worker or process of their own and set no global state, so they share one
 * thread and its loaded modules. Each of them took a process of its own (1-2 s to start and import) for a few
 * milliseconds of tests. A test file that is not listed here gets a process of its own, which is always safe.
 */
const UNIT_TESTS = [
  'tests/shared/**/*.test.ts',
  'tests/bin/**/*.test.ts',
  'tests/text/**/*.test.ts',
  'tests/activities/editor/**/*.test.ts',
  'tests/workflows/task/**/*.test.ts',
  'tests/architecture.test.ts',
  'tests/activities/lint-findings.test.ts',
  'tests/activities/model-errors.test.ts',
  'tests/activities/tools/workspace-path.test.ts',
  'tests/activities/process/deny-list.test.ts',
  'tests/client/progress-indicator.test.ts',
  'tests/workflows/batch-id.test.ts',
  'tests/workflows/batch-lifecycle.test.ts',
  'tests/workflows/task-blocker-desk.test.ts',
];

/** What every configuration of the suite shares: `test:real`, `test:eval` and `test:cluster` spread it too. */
export const shared = {
  // One real Temporal dev server and one workflow bundle for the whole run.
  globalSetup: ['tests/support/global-setup.ts'],
  // The worker's native bridge crashes under the thread pool; it runs in processes of its own.
  pool: 'forks' as const,
  // Four files at once on two cores keep both busy (the default, cores - 1, ran one file at a time here).
  poolOptions: { forks: { minForks: 1, maxForks: 4 } },
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

/**
 * `shared`, for `test:real`, `test:eval` and `test:cluster`: every file there runs workers, so each loads the quiet
 * Temporal runtime first (see tests/support/quiet-runtime.ts).
 */
export const sharedWithWorkers = { ...shared, setupFiles: ['tests/support/quiet-runtime.ts'] };

/** Each file's CPU time appended to `CODELOOP_TEST_CPU_LOG` when it is set (see tests/support/cpu-account.ts). */
const cpuAccount = process.env.CODELOOP_TEST_CPU_LOG ? ['tests/support/cpu-account.ts'] : [];

export default defineConfig({
  test: {
    // Worker counts are set for the whole run: four processes for the Temporal files, one thread for the unit tests.
    // Each of the four runs file after file (`isolate: false`) and keeps what it loaded: a process of its own per file
    // spent 2-3 CPU-seconds starting and loading the Temporal SDK and codeloop's modules, over 80 files. Each file still
    // has its own workers, task queue and fake servers, and stops them in its `afterAll`. All four are kept from start to
    // end (`minForks` 4): the pool stops an idle process above the minimum, and without isolation that ended files
    // still running in other processes ("Terminating worker thread").
    poolOptions: { forks: { ...shared.poolOptions.forks, minForks: 4, isolate: false }, threads: { minThreads: 1, maxThreads: 1 } },
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: UNIT_TESTS,
          pool: 'threads',
          setupFiles: cpuAccount,
          poolOptions: { threads: { isolate: false } },
          testTimeout: shared.testTimeout,
        },
      },
      {
        test: {
          globalSetup: shared.globalSetup,
          pool: shared.pool,
          setupFiles: cpuAccount,
          testTimeout: shared.testTimeout,
          hookTimeout: shared.hookTimeout,
          name: 'temporal',
          include: ['tests/**/*.test.ts'],
          // Scripted tasks on published projects download them and run their suites: `npm run test:real`, also in CI.
          // `codeloop eval` on the built-in suite runs every case as a task: `npm run test:eval`.
          // The PostgreSQL-backed cluster, built by `npm run install-cluster`, starts and stops for real: `npm run test:cluster`.
          exclude: [...UNIT_TESTS, 'tests/real-repos/**', 'tests/registries/**', 'tests/eval/**', 'tests/cluster/**', 'node_modules/**'],
        },
      },
    ],
  },
});
