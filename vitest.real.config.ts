import { defineConfig } from 'vitest/config';
import { sharedWithWorkers } from './vitest.config.js';

/**
 * `npm run test:real`: scripted tasks on published projects, fetched and cached on first use, and task environments
 * installing from real package registries (verdaccio, pypiserver) on loopback (see README "Tests").
 */
export default defineConfig({
  test: {
    ...sharedWithWorkers,
    include: ['tests/real-repos/**/*.test.ts', 'tests/registries/**/*.test.ts'],
    exclude: ['node_modules/**'],
  },
});
