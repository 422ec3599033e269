import { ApplicationFailure, ChildWorkflowFailure, ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { BatchTask } from '../../shared/batch-input.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import type { agentTaskWorkflow } from '../agent-task.js';
import { gitActivities } from '../common/activities.js';
import { batchIdKey } from '../common/batch-id.js';
import { deliverEnd, type BatchParts } from './batch-parts.js';
import { workspaceOf } from './batch-setup.js';
import { readAnswersBeforeRerun } from './before-patches.js';
import { childInput } from './child-input.js';
import { conflictBrief } from './conflict-rerun.js';
import { failedReport } from './failed-report.js';
import { correctionBrief } from './integration-verification.js';
import { taskOf } from './run-state.js';
import { cancelChild } from './stops.js';
import { taskContext } from './task-context.js';
import * as lifecycle from './task-lifecycle.js';

/**
 * Starts a task the batch found a slot for: its worktree (one a merge already cut, or cut now from the integration
 * branch on its repository's host), then its child workflow. The child reports its own end by signal; an end it
 * cannot report (terminated, timed out) goes into the batch's inbox as a failure.
 */
export async function startTask(batch: BatchParts, state: BatchTaskState): Promise<void> {
  const { input, state: run, patches } = batch;
  const task = taskOf(input, state.id);
  if (state.attempts > 0 && !patches.answersFromReports) await readAnswersBeforeRerun(state);
  const { binding, repo } = run.repos[workspaceOf(input, task)];
  const prepared = run.prepared[task.id];
  delete run.prepared[task.id];
  const worktree =
    prepared ??
    (await batch.onHost(
      binding.hostId,
      `worktree for ${task.id}`,
      (limit) =>
        gitActivities.createTaskWorktree.executeWithOptions(
          { taskQueue: binding.hostQueue, summary: `worktree for ${task.id}`, ...limit },
          // Verified, a dependent's worktree cut at a merge whose gates then failed is stale: it is cut again.
          [{ repo: repo.repo, batchId: run.batchId, taskId: task.id, fresh: state.attempts > 0 || patches.verifiesIntegration }],
        ),
      state,
    ));
  run.worktrees[task.id] = worktree.path;
  // The deadline came while the worktree was cut.
  if (state.status !== 'running') return;
  lifecycle.beginAttempt(state, worktree.branch);
  const where = { workspace: worktree.path, hostQueue: binding.hostQueue };
  const child = await startChild<typeof agentTaskWorkflow>('agentTaskWorkflow', {
    workflowId: state.childWorkflowId,
    args: [childInput(input, task, state, where, contextOf(batch, task, state), patches.pausesOnOutage)],
    // Children outlive a run of the batch (continue-as-new); cancelling the batch cancels them explicitly.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [{ key: batchIdKey, value: run.batchId }],
    staticSummary: `${task.id}: ${task.title}`,
    staticDetails: task.description,
  });
  lifecycle.childStarted(state);
  if (run.outcome === 'deadline') void cancelChild(state);
  child.result().then(
    () => undefined,
    (error) => {
      if (error instanceof ChildWorkflowFailure && !(error.cause instanceof ApplicationFailure)) {
        deliverEnd(batch, { taskId: state.id, report: failedReport(state, error.cause?.message ?? 'child ended') });
      }
    },
  );
}

/**
 * The task's context (from batches that give it), and what a run that repeats the task must know: on a correction
 * round what failed on the integration branch after its merge, on a re-run after a conflict which files conflicted.
 */
function contextOf(batch: BatchParts, task: BatchTask, state: BatchTaskState): { prd?: string; batchContext?: string } {
  const { input, state: run, patches } = batch;
  const context = patches.givesContext ? taskContext(input, input.tasks, task, run.states) : {};
  const briefs = [correctionBrief(state), conflictBrief(state)].filter((brief) => brief !== undefined);
  if (briefs.length === 0) return context;
  return { ...context, batchContext: [context.batchContext, ...briefs].filter(Boolean).join('\n\n') };
}
