import { oneAtATime } from './one-at-a-time.js';
import { tryGit } from './run-git.js';

export interface RevertTaskMergesRequest {
  integrationPath: string;
  /** The task's branch: every merge of it into the integration branch is taken back. */
  branch: string;
  /** How the batch began those merges' messages (`Merge <task>: `): a merge of another task may hold this branch's commits too. */
  mergeSubject: string;
  message: string;
  /** What the integration branch was cut from: only the merges after it are looked at. */
  base?: string;
}

/** What was taken back, newest merge first; `failed` when a revert could not apply and everything was left as it was. */
export interface RevertTaskMergesResult {
  reverted: string[];
  failed?: string;
}

/**
 * Takes a failed task's work back out of the integration branch: each merge that brought its branch in is reverted,
 * newest first, with one commit each (`git revert -m 1`), so later merges stay and the history says what happened. A
 * revert that conflicts with what merged since is aborted and the branch reset to where it was; the batch says so.
 * In turn with the merges of the same integration worktree. Safe to repeat: a merge already reverted is not found
 * again, since its revert names it.
 */
export function revertTaskMerges(input: RevertTaskMergesRequest): Promise<RevertTaskMergesResult> {
  const cwd = input.integrationPath;
  return oneAtATime(`integrate ${cwd}`, async () => {
    const start = (await tryGit(cwd, ['rev-parse', 'HEAD'])).stdout;
    const merges = await mergesOf(cwd, input);
    const reverted: string[] = [];
    for (const merge of merges) {
      const revert = await tryGit(cwd, ['revert', '--no-edit', '-m', '1', merge]);
      if (!revert.ok) {
        await tryGit(cwd, ['revert', '--abort']);
        await tryGit(cwd, ['reset', '-q', '--hard', start]);
        return { reverted: [], failed: `reverting ${merge.slice(0, 12)} conflicts with what merged after it` };
      }
      await tryGit(cwd, ['commit', '--amend', '-q', '-m', `${input.message}\n\nThis reverts commit ${merge}.`]);
      reverted.push(merge);
    }
    return { reverted };
  });
}

/** The merges of `branch` on the integration branch's own line, newest first, not reverted yet. */
async function mergesOf(cwd: string, input: RevertTaskMergesRequest): Promise<string[]> {
  const format = ['log', '--first-parent', '--format=%H%x00%s%x00%b%x1e'];
  // `HEAD` as the base names the checkout it was cut from, which here would be the integration worktree itself.
  const since = input.base && input.base !== 'HEAD' ? await tryGit(cwd, [...format, `${input.base}..HEAD`]) : undefined;
  // A base that no longer resolves (its branch deleted since) means the whole history is read instead.
  const log = since?.ok ? since.stdout : (await tryGit(cwd, [...format, 'HEAD'])).stdout;
  const entries = log
    .split('\x1e')
    .map((entry) => entry.trim().split('\x00'))
    .filter((parts) => parts.length === 3);
  const revertedAlready = entries.flatMap(([, , body]) =>
    [...body.matchAll(/This reverts commit ([0-9a-f]{40})/g)].map((match) => match[1]),
  );
  const merges: string[] = [];
  for (const [commit, subject] of entries) {
    if (!subject.startsWith(input.mergeSubject) || revertedAlready.includes(commit)) continue;
    const second = await tryGit(cwd, ['rev-parse', '-q', '--verify', `${commit}^2`]);
    if (second.ok && (await tryGit(cwd, ['merge-base', '--is-ancestor', second.stdout, input.branch])).ok) merges.push(commit);
  }
  return merges;
}
