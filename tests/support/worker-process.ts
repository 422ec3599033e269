import { inject } from 'vitest';
import { workerBundlePath } from './test-output.js';
import { startWorkerProcess, type WorkerProcess } from './worker-spawn.js';

export type { WorkerProcess } from './worker-spawn.js';

/**
 * A worker process (`startWorkerProcess`, from the run's compiled worker) against the test run's server, with its workflow
 * bundle unless `env` says otherwise. A worker that bundles its workflows at start needs a longer `startTimeoutMs` on a busy machine.
 */
export function spawnWorker(env: NodeJS.ProcessEnv, options: { startTimeoutMs?: number } = {}): Promise<WorkerProcess> {
  return startWorkerProcess(
    { CODELOOP_WORKFLOW_BUNDLE: inject('workflowBundlePath'), TEMPORAL_ADDRESS: inject('temporalAddress'), ...env },
    { ...options, entry: workerBundlePath },
  );
}
