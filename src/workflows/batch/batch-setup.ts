import { workflowInfo } from '@temporalio/workflow';
import type { BatchRepo } from '../../activities/git/index.js';
import type { WorkspaceBinding } from '../../activities/workspace.js';
import { batchIdFromWorkflowId, legacyBatchIdFromWorkflowId } from '../common/batch-id.js';
import type { OperatorAccess } from '../../shared/batch-file.js';
import type { Network } from '../../shared/network-access.js';
import { assertValidDag, pinnedHosts, type BatchInput, type BatchTask } from '../../shared/batch-input.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { hostIdOf } from '../../shared/host-queue.js';
import type { HostRunner } from './host-wait.js';
import { keptBatchId } from './before-patches.js';
import { setupActivities } from '../common/setup-activities.js';
import { gitActivities } from '../common/activities.js';
import type { BlockerDesk } from '../common/blocker-desk.js';
import { fetchFreshBase } from '../common/fresh-base.js';

/** One repository the batch works in: the host that holds it and its integration branch. */
export interface RepoState {
  binding: WorkspaceBinding;
  repo: BatchRepo;
}

/** Where a task's work is: the repository, the host that holds it, and the task's worktree there. */
export interface TaskPlace extends RepoState {
  worktree: string;
  title: string;
}

export const workspaceOf = (input: BatchInput, task: BatchTask): string => task.workspace ?? input.workspace!;

/**
 * What a batch needs before its first task starts: the tasks file read (if there is one) and the DAG checked again
 * with its tasks, each repository's host bound and its integration branch cut, and every task pending.
 */
export async function prepareBatch(
  input: BatchInput,
  batchId: string,
  onHost: HostRunner,
  desk: BlockerDesk,
): Promise<{ tasks: BatchTask[]; repos: Record<string, RepoState>; states: BatchTaskState[] }> {
  let tasks = input.tasks;
  if (input.tasksFile) {
    const binding = await bind(input.workspace!, onHost);
    const summary = `read tasks from ${input.tasksFile}`;
    const fromFile = await onHost(binding.hostId, summary, (limit) =>
      setupActivities.readTasksFile.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
        { workspace: binding.workspace, file: input.tasksFile!, access: operatorAccess(input) },
      ]),
    );
    tasks = [...tasks, ...fromFile];
    assertValidDag(tasks, input.workspace);
  }
  const repos: Record<string, RepoState> = {};
  const pinned = pinnedHosts(tasks, input.workspace);
  for (const workspace of new Set(tasks.map((task) => workspaceOf(input, task)))) {
    const binding = await bind(workspace, onHost, pinned.get(workspace));
    // With a remote, the base is what the remote has now, not whatever the worker's checkout last saw.
    const baseBranch = input.remote ? await fetchFreshBase(binding, input.remote, input.baseBranch, desk, onHost) : input.baseBranch;
    const summary = `integration branch for batch ${batchId}`;
    const repo = await onHost(binding.hostId, summary, (limit) =>
      gitActivities.prepareBatchRepo.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
        { repo: binding.workspace, batchId, baseBranch },
      ]),
    );
    repos[workspace] = { binding, repo };
  }
  const states = tasks.map((task): BatchTaskState => ({
    id: task.id,
    title: task.title,
    dependsOn: task.dependsOn,
    status: 'pending',
    childWorkflowId: `${workflowInfo().workflowId}/${task.id}`,
    attempts: 0,
  }));
  return { tasks, repos, states };
}

/** What the batch input gives every task's commands (its `taskDefaults` first): a tasks file may ask for no more. */
export function operatorAccess(input: BatchInput): OperatorAccess {
  const defaults = input.taskDefaults as { network?: Network; env?: string[] };
  return { network: defaults.network ?? input.network ?? 'off', env: defaults.env ?? input.env ?? [] };
}

/**
 * On the shared queue, whichever worker answers holds the workspace; pinned, the host named holds it, and the batch
 * asks a human when that host's worker does not take the binding in time.
 */
function bind(workspace: string, onHost: HostRunner, hostQueue?: string): Promise<WorkspaceBinding> {
  const pin = hostQueue ? { taskQueue: hostQueue } : {};
  const summary = `bind workspace ${workspace}`;
  return onHost(hostQueue && hostIdOf(hostQueue), summary, (limit) =>
    setupActivities.bindWorkspace.executeWithOptions({ ...pin, summary, ...limit }, [workspace]),
  );
}

/** The batch id of a batch started without one, from its workflow id. */
export function derivedBatchId(): string {
  const { workflowId } = workflowInfo();
  return keptBatchId(batchIdFromWorkflowId(workflowId), legacyBatchIdFromWorkflowId(workflowId));
}
