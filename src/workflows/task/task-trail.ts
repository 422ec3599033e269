import { log, workflowInfo } from '@temporalio/workflow';
import type { WorkspaceBinding } from '../../activities/index.js';
import { gitActivities } from '../common/activities.js';
import { onHost, type HostActivity, type HostWait } from '../common/host-wait.js';
import { batchIdFromWorkflowId } from '../common/batch-id.js';
import type { BlockerDesk } from '../common/blocker-desk.js';
import { fetchFreshBase } from '../common/fresh-base.js';
import type { ExecutedCall } from '../common/tool-calls.js';
import type { RunState } from './run-state.js';

/** A task's `remote` and `baseBranch`, and where a failed fetch is asked about. */
export interface FreshBase {
  remote?: string;
  baseBranch?: string;
  desk: Pick<BlockerDesk, 'ask'>;
}

/** Calls after which the worktree may hold changes: a successful write, or any command (it may write files). */
const mayHaveChanged = ({ name, outcome }: ExecutedCall) =>
  name === 'run_command' || name === 'run_tests' || (outcome.changedFile !== undefined && !outcome.isError);

/**
 * A task's git trail (`git: "branch"`): its own worktree and branch, a checkpoint commit after each iteration that may
 * have changed files, and a last commit when it ends, after which the worktree goes and the branch stays. The trail
 * lives in the run's state, so it survives continue-as-new and a worker crash; each git step is idempotent.
 */
export class TaskTrail {
  constructor(
    private readonly state: () => RunState,
    /** How long each git step may wait for the host, and who is asked past that (see `onHost`). */
    private readonly wait: (hostId: string) => HostWait,
  ) {}

  /** Cuts the branch and returns the binding moved into the worktree; outside a repository, the binding as it was. */
  async start(binding: WorkspaceBinding, fresh?: FreshBase): Promise<WorkspaceBinding> {
    const taskId = batchIdFromWorkflowId(workflowInfo().workflowId);
    // With a remote, the branch starts from what the remote has now, not the checkout's HEAD.
    const onThisHost = <T>(hostId: string, what: string, run: HostActivity<T>) => onHost(this.wait(hostId), what, run);
    const from = fresh?.remote ? await fetchFreshBase(binding, fresh.remote, fresh.baseBranch, fresh.desk, onThisHost) : undefined;
    const summary = `branch codeloop/task/${taskId} from ${from ?? 'HEAD'}`;
    const started = await onHost(this.wait(binding.hostId), summary, (limit) =>
      gitActivities.startTaskBranch.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
        { workspace: binding.workspace, taskId, ...(from ? { from } : {}) },
      ]),
    );
    if (started.inPlace) {
      log.info('working in place', { why: started.why });
      return binding;
    }
    const { inPlace: _inPlace, ...trail } = started;
    this.state().git = { ...trail, checkpoints: [] };
    return { ...binding, workspace: trail.workspace };
  }

  async checkpoint(executed: ExecutedCall[], iteration: number): Promise<void> {
    const { git, binding } = this.state();
    if (!git || git.end || !binding || !executed.some(mayHaveChanged)) return;
    const summary = `checkpoint iteration ${iteration}`;
    const { commit } = await onHost(this.wait(binding.hostId), summary, (limit) =>
      gitActivities.checkpointTask.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
        { worktree: git.worktree, iteration },
      ]),
    );
    if (commit && !git.checkpoints.some((checkpoint) => checkpoint.iteration === iteration)) git.checkpoints.push({ iteration, commit });
  }

  /** The last commit (`always`: even with nothing left, so the branch ends with `message`), then the worktree goes. */
  async finish(message: string, always: boolean): Promise<void> {
    const { git, binding } = this.state();
    if (!git || git.end || !binding) return;
    const { repo, worktree, branch, base } = git;
    const summary = `commit the task's work on ${branch}`;
    git.end = await onHost(this.wait(binding.hostId), summary, (limit) =>
      gitActivities.finishTaskBranch.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
        { repo, worktree, branch, base, message, always },
      ]),
    );
  }
}
