import { countSandboxRefusal } from '../activity-metrics.js';
import { runProcess, type ProcessRequest, type ProcessResult } from '../process/run-process.js';
import { DEFAULT_ACCESS } from '../process/sandbox.js';
import { prepareEnvironment } from './task-environments.js';

/**
 * Runs a command in its task's environment: the task's network namespace and services when it has them (made or
 * started on first need, see `prepareEnvironment`), otherwise as a command of its own. Connections the task's proxy
 * refused while it ran come back with the result (for the model and the trail) and are counted in the metrics.
 */
export async function runInTaskEnvironment(request: Omit<ProcessRequest, 'network'>): Promise<ProcessResult> {
  const access = request.access ?? DEFAULT_ACCESS;
  const network = await prepareEnvironment(request.sandbox, access, request.cwd, request.env);
  network?.takeDenied();
  const result = await runProcess({ ...request, network });
  const denied = network?.takeDenied() ?? [];
  for (let index = 0; index < denied.length; index += 1) countSandboxRefusal('network_host_not_allowed');
  return denied.length > 0 ? { ...result, networkDenied: [...new Set(denied.map(({ host, port }) => `${host}:${port}`))] } : result;
}
