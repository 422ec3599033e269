import type { BatchInput, BatchTask } from '../../shared/batch-input.js';
import type { BatchTaskState } from '../../shared/batch-state.js';

/**
 * The `agentTaskWorkflow` input of one batch task: what the batch lets every task's commands reach, then
 * `taskDefaults`, then the task's own fields, in its worktree on its repository's host, with the answers its earlier
 * runs were given; and, from a batch that gives it (see `taskContext`), the PRD, the plan in brief and what its
 * dependencies delivered. A batch that pauses on a model outage has its tasks report one (`reportOutage`).
 */
export function childInput(
  batch: BatchInput,
  task: BatchTask,
  state: BatchTaskState,
  where: { workspace: string; hostQueue: string },
  context: { prd?: string; batchContext?: string } = {},
  reportOutage = false,
) {
  return {
    ...(batch.network === undefined ? {} : { network: batch.network }),
    ...(batch.env === undefined ? {} : { env: batch.env }),
    ...(batch.models === undefined ? {} : { models: batch.models }),
    ...batch.taskDefaults,
    title: task.title,
    description: withAcceptance(task),
    workspace: where.workspace,
    hostQueue: where.hostQueue,
    // The batch gives each task its worktree and commits and merges it itself.
    git: 'in-place' as const,
    ...(task.prd === undefined ? {} : { prd: task.prd }),
    ...(context.prd === undefined ? {} : { prd: context.prd }),
    ...(context.batchContext === undefined ? {} : { batchContext: context.batchContext }),
    ...(task.maxIterations === undefined ? {} : { maxIterations: task.maxIterations }),
    ...(task.complexity === undefined ? {} : { complexity: task.complexity }),
    ...(task.network === undefined ? {} : { network: task.network }),
    ...(task.env === undefined ? {} : { env: task.env }),
    // A batch with a budget counts its running tasks' spend as they go.
    ...(batch.maxCostUsd === undefined ? {} : { reportSpend: true }),
    ...(reportOutage ? { reportOutage: true } : {}),
    ...(state.answers?.length || task.answers?.length ? { answers: [...(task.answers ?? []), ...(state.answers ?? [])] } : {}),
  };
}

/** The task's description, and its acceptance criteria as a checklist when it has any. */
function withAcceptance(task: BatchTask): string {
  if (!task.acceptance?.length) return task.description;
  return `${task.description}\n\nAcceptance criteria:\n${task.acceptance.map((criterion) => `- ${criterion}`).join('\n')}`;
}
