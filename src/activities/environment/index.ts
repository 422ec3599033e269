import type { Network } from '../../shared/network-access.js';
import { withHeartbeat } from '../heartbeat.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { prepareTaskEnvironment, type EnvironmentReport } from './prepare-environment.js';
import { stopEnvironment } from './task-environments.js';

export type { EnvironmentReport, SetupStep } from './prepare-environment.js';

/** A task's environment on its host: made before its first turn, ended with it. */
export function createEnvironmentActivities(deps: { shell: WorkspaceShell }) {
  return {
    prepareTaskEnvironment: (input: { workspace: string; network: Network; env: string[]; key: string }): Promise<EnvironmentReport> =>
      withHeartbeat(() => prepareTaskEnvironment(deps.shell, input)),
    /** Stops the task's services and its network namespace and proxy; nothing to stop is fine. */
    stopTaskEnvironment: (key: string): Promise<void> => stopEnvironment(key),
  };
}
