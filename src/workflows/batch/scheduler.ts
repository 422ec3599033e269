import type { BatchInput } from '../../shared/batch-input.js';
import type { BatchTaskState, BatchTaskStatus } from '../../shared/batch-state.js';
import { transitiveDependents } from '../../shared/dag.js';
import { requeue, skip } from './task-lifecycle.js';

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

/**
 * The pending tasks that merging `group` makes ready: each depends on at least one of them, and on nothing else that
 * is not done. `after` names the ones in the group it waits for: if one of those does not merge, it is not ready.
 * In input order.
 */
export function readyOnceMerged(
  tasks: BatchTaskState[],
  group: string[],
  policy: BatchInput['onFailure'],
): { taskId: string; after: string[] }[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const merging = new Set(group);
  return tasks
    .filter((task) => task.status === 'pending' && task.dependsOn.some((id) => merging.has(id)))
    .filter((task) => task.dependsOn.every((id) => merging.has(id) || dependencyDone(byId.get(id)!, policy)))
    .map((task) => ({ taskId: task.id, after: task.dependsOn.filter((id) => merging.has(id)) }));
}

/** Marks the transitive dependents of a failed task skipped; returns their ids. */
export function skipDependents(tasks: BatchTaskState[], failedId: string): string[] {
  const skipped: string[] = [];
  for (const id of transitiveDependents(tasks, failedId)) {
    const task = tasks.find((candidate) => candidate.id === id)!;
    if (task.status !== 'pending') continue;
    skip(task, `dependency ${failedId} did not complete`);
    skipped.push(id);
  }
  return skipped;
}

/** `retryTask`: the failed task runs again, and the dependents it took down with it come back. */
export function reviveForRetry(tasks: BatchTaskState[], taskId: string): string | undefined {
  const task = tasks.find((candidate) => candidate.id === taskId);
  if (!task) return `no task ${taskId} in this batch`;
  if (task.status !== 'failed' && task.status !== 'cancelled') return `task ${taskId} is ${task.status}, not failed`;
  requeue(task);
  for (const id of transitiveDependents(tasks, taskId)) {
    const dependent = tasks.find((candidate) => candidate.id === id)!;
    if (dependent.status === 'skipped') requeue(dependent);
  }
  return undefined;
}

export function countByStatus(tasks: BatchTaskState[]): Record<BatchTaskStatus, number> {
  const counts: Record<BatchTaskStatus, number> = { pending: 0, running: 0, merging: 0, completed: 0, failed: 0, skipped: 0, cancelled: 0 };
  for (const task of tasks) counts[task.status] += 1;
  return counts;
}
