import { asyncLocalStorage } from '@temporalio/activity';
import { METRICS, type MetricSpec } from '../shared/metrics.js';

/**
 * What the workspace boundary refused: a command on the deny-list, a path or glob that leads out of the workspace,
 * a write under `.git`. Few and fixed, so each is a label value an alert can name.
 */
export type SandboxRefusal =
  'denied_command' | 'path_outside_workspace' | 'pattern_outside_workspace' | 'git_directory_write' | 'network_host_not_allowed';

/**
 * The running activity's meter, which labels every figure with its namespace, task queue and activity type and
 * feeds the worker's Prometheus endpoint. Outside an activity (the tools' unit tests) nothing is recorded.
 */
export const activityMeter = () => asyncLocalStorage.getStore()?.metricMeter;

export function countSandboxRefusal(reason: SandboxRefusal): void {
  const { name, unit, help }: MetricSpec = METRICS.sandboxRefusals;
  activityMeter()?.createCounter(name, unit, help).add(1, { reason });
}
