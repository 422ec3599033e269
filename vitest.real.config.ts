import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:real`: scripted tasks on published projects, fetched and cached on first use (see README "Tests"). */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Every file here runs workers: the quiet Temporal runtime for each (see tests/support/quiet-runtime.ts).
    setupFiles: ['tests/support/quiet-runtime.ts'],
    include: ['tests/real-repos/**/*.test.ts'],
    exclude: ['node_modules/**'],
  },
});
