import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.js';

/**
 * `npm run test:eval`: `codeloop eval` on the built-in suite (evals/) with recorded and scripted sessions, against the
 * run's own dev server. Kept out of `npm test`, whose time budget it would not fit.
 */
export default defineConfig({
  test: {
    ...shared,
    // Every file here runs workers: the quiet Temporal runtime for each (see tests/support/quiet-runtime.ts).
    setupFiles: ['tests/support/quiet-runtime.ts'],
    include: ['tests/eval/**/*.test.ts'],
    exclude: ['node_modules/**'],
    poolOptions: { forks: { minForks: 1, maxForks: 3 } },
  },
});
