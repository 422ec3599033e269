import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { projectRoot } from './project-root.js';

/**
 * How codeloop's workflow code is bundled, wherever it is: by a worker at start, by the tests' and the benchmarks'
 * setup. `builtOnce`'s module is preloaded, so what it holds is shared by every workflow run of a worker thread.
 */
export const workflowBundlerOptions = {
  workflowsPath: path.join(projectRoot, 'src', 'workflows', 'index.ts'),
  preloadModules: [path.join(projectRoot, 'src', 'shared', 'built-once.ts')],
} satisfies Partial<BundleOptions>;
