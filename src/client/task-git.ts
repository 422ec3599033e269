import { existsSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type { TaskGit } from '../shared/git-trail.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { terminalSafe } from '../text/terminal-safe.js';
import { getBatchStateQuery } from '../shared/messages.js';
import { queryOrUndefined } from '../reads/task-reads.js';
import { startInputOf, withClient } from './session.js';
import { viewTask } from './task-view.js';
import { runUserGit, userGit } from './user-git.js';

/** The task's trail, once the task has ended, in a repository this machine can reach. */
async function endedTrail(client: Client, workflowId: string, needsEnd: boolean): Promise<{ git: TaskGit; title: string }> {
  const view = await viewTask(client, workflowId);
  const git = view.result?.git ?? view.state?.git;
  if (!git) throw new CliError(`task ${workflowId} has no branch: it worked in place (git: "in-place", or not in a git repository)`);
  if (needsEnd && view.execution === 'RUNNING')
    throw new CliError(`task ${workflowId} is still running; wait for it with npx codeloop task result ${workflowId} --wait`);
  if (!existsSync(git.repo))
    throw new CliError(
      `the repository ${git.repo} is on the worker host${view.state?.hostId ? ` ${view.state.hostId}` : ''}; run this there`,
    );
  return { git, title: view.state?.title ?? workflowId };
}

/** `codeloop task diff ID [--stat]`: the task's changes, from the commit its branch was cut from. */
export async function showTaskDiff(workflowId: string, options: { stat?: boolean }): Promise<void> {
  await withClient(async (client) => {
    const { git } = await endedTrail(client, workflowId, false);
    const diff = ['diff', '--no-ext-diff', '--no-textconv', ...(options.stat ? ['--stat'] : []), git.base, git.branch];
    const text = String((await userGit(git.repo, diff, 'git diff')).stdout);
    // On a terminal the agent's escape sequences are shown, not obeyed; piped (to `git apply`, say) the diff is as is.
    process.stdout.write(process.stdout.isTTY ? terminalSafe(text) : text);
    process.stdout.write('\n');
  });
}

/** `codeloop task apply ID`: merges the task's branch into the checkout's current branch, which must be clean. */
export async function applyTask(workflowId: string, options: OutputOptions): Promise<void> {
  await withClient(async (client) => {
    const { git, title } = await endedTrail(client, workflowId, true);
    const dirty = String((await userGit(git.repo, ['status', '--porcelain', '--untracked-files=no'], 'git status')).stdout).trim();
    if (dirty)
      throw new CliError(
        `the checkout ${git.repo} has uncommitted changes (${dirty.split('\n').length} files); commit or stash them first`,
      );
    const current = String((await userGit(git.repo, ['rev-parse', '--abbrev-ref', 'HEAD'], 'git rev-parse')).stdout).trim();
    const merge = await runUserGit(git.repo, ['merge', '--no-ff', '-m', `Merge codeloop task ${workflowId}: ${title}`, git.branch]);
    if (merge.exitCode !== 0) {
      const conflicts = String((await userGit(git.repo, ['diff', '--name-only', '--diff-filter=U'], 'git diff')).stdout)
        .trim()
        .split('\n')
        .filter(Boolean);
      await runUserGit(git.repo, ['merge', '--abort']);
      throw new CliError(
        conflicts.length
          ? `merging ${git.branch} into ${current} conflicts in ${conflicts.join(', ')}; nothing was changed. Merge it by hand: git merge ${git.branch}`
          : `git merge failed: ${String(merge.stderr || merge.stdout).trim()}`,
      );
    }
    const head = String((await userGit(git.repo, ['rev-parse', 'HEAD'], 'git rev-parse')).stdout).trim();
    emit(
      options,
      { workflowId, branch: git.branch, into: current, commit: head },
      () => `merged ${git.branch} into ${current} (${head.slice(0, 12)})`,
    );
  });
}

/** `codeloop task rollback ID --to N`: moves the task's branch back to its checkpoint of iteration N. */
export async function rollbackTask(workflowId: string, options: OutputOptions & { to: string }): Promise<void> {
  await withClient(async (client) => {
    const { git } = await endedTrail(client, workflowId, true);
    const checkpoint = git.checkpoints.find(({ iteration }) => String(iteration) === options.to);
    if (!checkpoint) {
      const known = git.checkpoints.map(({ iteration }) => iteration).join(', ') || 'none';
      throw new CliError(`task ${workflowId} has no checkpoint for iteration ${options.to}; its checkpoints: ${known}`, 2);
    }
    await userGit(git.repo, ['branch', '-f', git.branch, checkpoint.commit], 'git branch -f');
    emit(
      options,
      { workflowId, branch: git.branch, ...checkpoint },
      () => `${git.branch} now at iteration ${checkpoint.iteration} (${checkpoint.commit.slice(0, 12)})`,
    );
  });
}

/** `codeloop task push ID --remote R`: pushes the task's branch under the same name. */
export async function pushTask(workflowId: string, options: OutputOptions & { remote: string }): Promise<void> {
  await withClient(async (client) => {
    const { git } = await endedTrail(client, workflowId, true);
    await userGit(git.repo, ['push', options.remote, `${git.branch}:refs/heads/${git.branch}`], `git push to ${options.remote}`);
    emit(options, { workflowId, remote: options.remote, branch: git.branch }, () => `pushed ${git.branch} to ${options.remote}`);
  });
}

/** `codeloop batch push ID --remote R`: pushes the batch's integration branch from each repository it used. */
export async function pushBatch(workflowId: string, options: OutputOptions & { remote: string }): Promise<void> {
  await withClient(async (client) => {
    const handle = client.workflow.getHandle(workflowId);
    const input = await startInputOf<{ workspace?: string; tasks?: { workspace?: string }[] }>(client, handle);
    const state = await queryOrUndefined(client, handle, getBatchStateQuery);
    const branch = state?.integrationBranch;
    if (!branch)
      throw new CliError(`batch ${workflowId} has no integration branch yet, or no worker answered; start one with npm run worker`);
    const workspaces = [
      ...new Set([input.workspace, ...(input.tasks ?? []).map((task) => task.workspace)].filter((dir): dir is string => !!dir)),
    ];
    const pushed: string[] = [];
    for (const workspace of workspaces) {
      if (!existsSync(workspace)) throw new CliError(`the repository ${workspace} is on the worker host; run this there`);
      const repo = String((await userGit(workspace, ['rev-parse', '--show-toplevel'], 'git rev-parse')).stdout).trim();
      if (pushed.includes(repo)) continue;
      await userGit(repo, ['push', options.remote, `${branch}:refs/heads/${branch}`], `git push to ${options.remote}`);
      pushed.push(repo);
    }
    emit(
      options,
      { workflowId, remote: options.remote, branch, repositories: pushed },
      () => `pushed ${branch} to ${options.remote} from ${pushed.join(', ')}`,
    );
  });
}
