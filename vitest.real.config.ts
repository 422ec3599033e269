import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:real`: scripted tasks on published projects, fetched and cached on first use (see README "Tests"). */
export default defineConfig({ ...base, test: { ...base.test, include: ['tests/real-repos/**/*.test.ts'], exclude: ['node_modules/**'] } });
