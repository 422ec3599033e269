import { Runtime } from '@temporalio/worker';
import { createWorkerLogger } from '../../src/worker-logger.js';

/**
 * Imported by whatever creates workers or replays histories (`temporal.ts`, `ui-stack.ts`, a few test files), before
 * it does: the Temporal runtime then exists only in the test processes that use it, not in the pure unit tests' (it
 * cost each of them ~0.6 s to start). `npm run test:real`, `test:eval` and `test:cluster` load it for every file.
 * Worker state changes at INFO drown the test output; warnings and errors still show.
 */
const installed = Symbol.for('codeloop.tests.quietRuntime');
const state = globalThis as { [installed]?: boolean };
if (!state[installed]) {
  Runtime.install({ logger: createWorkerLogger('WARN') });
  state[installed] = true;
}
