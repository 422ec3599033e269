import { dependencyEntries } from '../dependency-links.js';
import { namedFilesOf } from '../environment/named-files.js';
import { readNestedRepositories } from './nested-repositories.js';
import { git, tryGit } from './run-git.js';

const GITLINK_MODE = '160000';

/**
 * Stages everything a task left in its worktree, as `git add -A` would, with two differences that keep codeloop's git
 * out of what the agent controls:
 *
 * - A nested repository (one the agent cloned, vendored or `git init`ed) is never entered: git itself would run
 *   `git status` inside it, with its config, and so its filters. It is staged as the gitlink git would make of it,
 *   its commit read from its files; one with no commit yet is left out (and stays in the worktree).
 * - Named files copied from the checkout (`files` in `codeloop.json`: `.env.test` and the like) are left out too.
 * - Dependency directories at the top (`node_modules`, `.venv`: the task's own installs, or an empty mount point) are
 *   left out, and only by a pathspec when git does not ignore them already: naming an ignored path makes `git add`
 *   fail, whatever form the `.gitignore` gives it (`node_modules`, `/node_modules`, `.venv*`, `**\/.venv`).
 */
export async function stageAll(worktree: string): Promise<void> {
  const untracked = splitZ(await git(worktree, ['ls-files', '--others', '--exclude-standard', '-z'], { raw: true }));
  const staged = splitZ(await git(worktree, ['ls-files', '--stage', '-z'], { raw: true }));
  const gitlinks = staged.filter((line) => line.startsWith(`${GITLINK_MODE} `)).map((line) => line.slice(line.indexOf('\t') + 1));
  const nested = readNestedRepositories(worktree, [...untracked.filter((entry) => entry.endsWith('/')), ...gitlinks]);
  // A dependency directory the repository tracks (vendored) is the project's own: its changes are committed.
  const tracked = (name: string) => staged.some((line) => line.includes(`\t${name}/`));
  const leftOut = [
    ...dependencyEntries(worktree).filter((name) => !tracked(name)),
    ...namedFilesOf(worktree),
    ...nested.map((repository) => repository.path),
  ];
  const ignored = leftOut.length ? await ignoredAmong(worktree, leftOut) : new Set<string>();
  const exclusions = leftOut.filter((entry) => !ignored.has(entry)).map((entry) => `:(exclude,literal)${entry}`);
  await git(worktree, ['add', '-A', '--', '.', ...exclusions]);
  const links = nested.filter((repository) => repository.head && !ignored.has(repository.path));
  if (links.length)
    await git(worktree, [
      'update-index',
      '--add',
      ...links.flatMap(({ path, head }) => ['--cacheinfo', `${GITLINK_MODE},${head},${path}`]),
    ]);
}

/** Which of `paths` git ignores, asked one by one (`check-ignore -z` needs a stdin, which codeloop's git never has). */
async function ignoredAmong(worktree: string, paths: string[]): Promise<Set<string>> {
  const ignored = await Promise.all(paths.map(async (entry) => (await tryGit(worktree, ['check-ignore', '-q', '--', entry])).ok));
  return new Set(paths.filter((_, index) => ignored[index]));
}

const splitZ = (output: string) => output.split('\0').filter(Boolean);
