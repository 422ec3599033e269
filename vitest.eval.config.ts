import { defineConfig } from 'vitest/config';
import { sharedWithWorkers } from './vitest.config.js';

/**
 * `npm run test:eval`: `codeloop eval` on the built-in suite (evals/) with recorded and scripted sessions, against the
 * run's own dev server. Kept out of `npm test`, whose time budget it would not fit.
 */
export default defineConfig({
  test: {
    ...sharedWithWorkers,
    include: ['tests/eval/**/*.test.ts'],
    exclude: ['node_modules/**'],
    poolOptions: { forks: { minForks: 1, maxForks: 3 } },
  },
});
