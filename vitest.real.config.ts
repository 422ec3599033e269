import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.js';

/** `npm run test:real`: scripted tasks on published projects, fetched and cached on first use (see README "Tests"). */
export default defineConfig({
  test: {
    ...shared,
    // Every file here runs workers: the quiet Temporal runtime for each (see tests/support/quiet-runtime.ts).
    setupFiles: ['tests/support/quiet-runtime.ts'],
    include: ['tests/real-repos/**/*.test.ts'],
    exclude: ['node_modules/**'],
  },
});
