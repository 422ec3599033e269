import path from 'node:path';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { forgeFor, repositoryFromUrl } from '../activities/mornings/forge.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { planGc, type GcBranch } from './gc-plan.js';
import { runUserGit, userGit } from './user-git.js';

export interface GcOptions extends OutputOptions {
  workspace?: string;
  olderThan: string;
  dryRun?: boolean;
  into?: string;
  remote?: string;
  repository?: string;
}

const out = async (repo: string, args: string[], what: string) => String((await userGit(repo, args, what)).stdout).trim();

/** Worktrees by the branch they have checked out. */
async function worktreesByBranch(repo: string): Promise<Map<string, string>> {
  const listing = await out(repo, ['worktree', 'list', '--porcelain'], 'git worktree list');
  const byBranch = new Map<string, string>();
  let current: string | undefined;
  for (const line of listing.split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    if (line.startsWith('branch refs/heads/') && current) byBranch.set(line.slice('branch refs/heads/'.length), current);
  }
  return byBranch;
}

/**
 * The heads of open pull requests on GitHub, when the worker-side token is here too (`GITHUB_TOKEN`) and the remote
 * names a repository; otherwise a branch the remote has is kept, as it may have one.
 */
async function openPullRequestHeads(
  repo: string,
  remote: string,
  repositoryOption?: string,
): Promise<{ heads: Set<string>; checked: boolean }> {
  const url = await runUserGit(repo, ['remote', 'get-url', remote]);
  const repository = repositoryOption ?? (url.exitCode === 0 ? repositoryFromUrl(String(url.stdout)) : undefined);
  const pushed = await runUserGit(repo, ['for-each-ref', '--format=%(refname)', `refs/remotes/${remote}/codeloop/`]);
  const onRemote = new Set(
    String(pushed.stdout)
      .split('\n')
      .filter(Boolean)
      .map((ref) => ref.slice(`refs/remotes/${remote}/`.length)),
  );
  if (!repository || !(process.env.GITHUB_TOKEN || process.env.GITHUB_TOKEN_FILE)) return { heads: onRemote, checked: false };
  return { heads: new Set(await forgeFor('github', process.env).openPullRequestHeads(repository)), checked: true };
}

/** `codeloop gc [--older-than 14d] [--dry-run]`: removes merged or abandoned codeloop branches and their worktrees. */
export async function collectGarbage(options: GcOptions): Promise<void> {
  let olderThanMs: number;
  try {
    olderThanMs = msToNumber(options.olderThan as never);
  } catch {
    throw new CliError(`--older-than ${options.olderThan} is not a duration; use e.g. 14d or 72h`, 2);
  }
  const repo = await out(path.resolve(options.workspace ?? '.'), ['rev-parse', '--show-toplevel'], 'git rev-parse');
  const into = options.into ?? (await out(repo, ['symbolic-ref', '--short', 'HEAD'], 'git symbolic-ref'));
  const refs = await out(
    repo,
    ['for-each-ref', '--format=%(refname:short)%09%(committerdate:unix)', 'refs/heads/codeloop/'],
    'git for-each-ref',
  );
  const worktrees = await worktreesByBranch(repo);
  const remote = options.remote ?? 'origin';
  const open = await openPullRequestHeads(repo, remote, options.repository);
  const branches: GcBranch[] = [];
  for (const line of refs.split('\n').filter(Boolean)) {
    const [branch, seconds] = line.split('\t');
    const merged = (await runUserGit(repo, ['merge-base', '--is-ancestor', `refs/heads/${branch}`, into])).exitCode === 0;
    branches.push({
      branch,
      committedAt: Number(seconds) * 1000,
      merged,
      openPullRequest: open.heads.has(branch),
      worktree: worktrees.get(branch),
    });
  }
  const plan = planGc(branches, olderThanMs, Date.now());
  if (!open.checked)
    for (const decision of plan.keep)
      if (decision.why === 'has an open pull request')
        decision.why = `on ${remote}, and may have an open pull request (set GITHUB_TOKEN to check)`;
  if (!options.dryRun) {
    for (const { branch, worktree } of plan.remove) {
      if (worktree) await userGit(repo, ['worktree', 'remove', '--force', worktree], `git worktree remove ${worktree}`);
      await userGit(repo, ['branch', '-D', branch], `git branch -D ${branch}`);
    }
    await runUserGit(repo, ['worktree', 'prune']);
  }
  emit(options, { repository: repo, into, dryRun: !!options.dryRun, ...plan }, (result) =>
    [
      `${result.dryRun ? 'would remove' : 'removed'} ${result.remove.length} codeloop branch${result.remove.length === 1 ? '' : 'es'} in ${repo} (merged into ${into}, or untouched for ${options.olderThan}):`,
      ...result.remove.map(({ branch, why, worktree }) => `  ${branch}  ${why}${worktree ? ` (and its worktree ${worktree})` : ''}`),
      ...(result.keep.length ? ['kept:', ...result.keep.map(({ branch, why }) => `  ${branch}  ${why}`)] : []),
    ].join('\n'),
  );
}
