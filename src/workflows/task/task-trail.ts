import { log, workflowInfo } from '@temporalio/workflow';
import type { WorkspaceBinding } from '../../activities/index.js';
import { gitActivities } from '../common/activities.js';
import { batchIdFromWorkflowId } from '../common/batch-id.js';
import type { ExecutedCall } from '../common/tool-calls.js';
import type { RunState } from './run-state.js';

/** Calls after which the worktree may hold changes: a successful write, or any command (it may write files). */
const mayHaveChanged = ({ name, outcome }: ExecutedCall) =>
  name === 'run_command' || name === 'run_tests' || (outcome.changedFile !== undefined && !outcome.isError);

/**
 * A task's git trail (`git: "branch"`): its own worktree and branch, a checkpoint commit after each iteration that may
 * have changed files, and a last commit when it ends, after which the worktree goes and the branch stays. The trail
 * lives in the run's state, so it survives continue-as-new and a worker crash; each git step is idempotent.
 */
export class TaskTrail {
  constructor(private readonly state: () => RunState) {}

  /** Cuts the branch and returns the binding moved into the worktree; outside a repository, the binding as it was. */
  async start(binding: WorkspaceBinding): Promise<WorkspaceBinding> {
    const taskId = batchIdFromWorkflowId(workflowInfo().workflowId);
    const started = await gitActivities.startTaskBranch.executeWithOptions(
      { taskQueue: binding.hostQueue, summary: `branch codeloop/task/${taskId} from HEAD` },
      [{ workspace: binding.workspace, taskId }],
    );
    if (started.inPlace) {
      log.info('working in place', { why: started.why });
      return binding;
    }
    const { inPlace: _inPlace, ...trail } = started;
    this.state().git = { ...trail, checkpoints: [] };
    return { ...binding, workspace: trail.workspace };
  }

  async checkpoint(executed: ExecutedCall[], hostQueue: string, iteration: number): Promise<void> {
    const git = this.state().git;
    if (!git || git.end || !executed.some(mayHaveChanged)) return;
    const { commit } = await gitActivities.checkpointTask.executeWithOptions(
      { taskQueue: hostQueue, summary: `checkpoint iteration ${iteration}` },
      [{ worktree: git.worktree, iteration }],
    );
    if (commit && !git.checkpoints.some((checkpoint) => checkpoint.iteration === iteration)) git.checkpoints.push({ iteration, commit });
  }

  /** The last commit (`always`: even with nothing left, so the branch ends with `message`), then the worktree goes. */
  async finish(message: string, always: boolean): Promise<void> {
    const { git, binding } = this.state();
    if (!git || git.end || !binding) return;
    const { repo, worktree, branch, base } = git;
    git.end = await gitActivities.finishTaskBranch.executeWithOptions(
      { taskQueue: binding.hostQueue, summary: `commit the task's work on ${branch}` },
      [{ repo, worktree, branch, base, message, always }],
    );
  }
}
