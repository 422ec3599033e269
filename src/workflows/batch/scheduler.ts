import type { BatchInput } from '../../shared/batch-input.js';
import type { BatchTaskState, BatchTaskStatus } from '../../shared/batch-state.js';
import { transitiveDependents } from '../../shared/dag.js';

const SETTLED: BatchTaskStatus[] = ['completed', 'failed', 'skipped', 'cancelled'];
export const isSettled = (task: BatchTaskState) => SETTLED.includes(task.status);
export const isActive = (task: BatchTaskState) => task.status === 'running' || task.status === 'merging';

/**
 * Tasks whose own dependencies are done, in input order: completed (and merged), or under `continue` merely
 * settled. No level barriers: a task waits only for what it depends on.
 */
export function readyTasks(tasks: BatchTaskState[], policy: BatchInput['onFailure']): BatchTaskState[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  return tasks.filter((task) => task.status === 'pending' && task.dependsOn.every((id) => dependencyDone(byId.get(id)!, policy)));
}

/** Whether a dependency lets its dependents start: completed (and merged), or under `continue` merely settled. */
export function dependencyDone(dependency: BatchTaskState, policy: BatchInput['onFailure']): boolean {
  return policy === 'continue' ? isSettled(dependency) : dependency.status === 'completed';
}

/** Marks the transitive dependents of a failed task skipped; returns their ids. */
export function skipDependents(tasks: BatchTaskState[], failedId: string): string[] {
  const skipped: string[] = [];
  for (const id of transitiveDependents(tasks, failedId)) {
    const task = tasks.find((candidate) => candidate.id === id)!;
    if (task.status !== 'pending') continue;
    task.status = 'skipped';
    task.reason = `dependency ${failedId} did not complete`;
    skipped.push(id);
  }
  return skipped;
}

/** `retryTask`: the failed task runs again, and the dependents it took down with it come back. */
export function reviveForRetry(tasks: BatchTaskState[], taskId: string): string | undefined {
  const task = tasks.find((candidate) => candidate.id === taskId);
  if (!task) return `no task ${taskId} in this batch`;
  if (task.status !== 'failed' && task.status !== 'cancelled') return `task ${taskId} is ${task.status}, not failed`;
  task.status = 'pending';
  task.reason = undefined;
  for (const id of transitiveDependents(tasks, taskId)) {
    const dependent = tasks.find((candidate) => candidate.id === id)!;
    if (dependent.status === 'skipped') {
      dependent.status = 'pending';
      dependent.reason = undefined;
    }
  }
  return undefined;
}

export function countByStatus(tasks: BatchTaskState[]): Record<BatchTaskStatus, number> {
  const counts: Record<BatchTaskStatus, number> = { pending: 0, running: 0, merging: 0, completed: 0, failed: 0, skipped: 0, cancelled: 0 };
  for (const task of tasks) counts[task.status] += 1;
  return counts;
}
