import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { git, tryGit } from '../../../src/activities/git/run-git.js';
import { makeGitRepo } from '../../support/workspace.js';

/** The pid of this process's git helper (started by the first git command). */
function helperPid(): number {
  const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'readline'])
    .toString()
    .trim()
    .split('\n');
  expect(pids).toHaveLength(1);
  return Number(pids[0]);
}

test('git runs through the helper: output, exit codes and git’s own error message come back', async () => {
  const repo = makeGitRepo();
  expect(await git(repo, ['rev-parse', '--is-inside-work-tree'])).toBe('true');
  const missing = await tryGit(repo, ['rev-parse', '--verify', 'refs/heads/no-such-branch']);
  expect(missing).toMatchObject({ ok: false, stdout: '' });
  await expect(git(repo, ['checkout', 'no-such-branch'])).rejects.toThrow(
    /git checkout no-such-branch failed in .*pathspec 'no-such-branch'/,
  );
  // Commands in flight at once each get their own answer.
  const lengths = Array.from({ length: 20 }, (_, i) => 7 + i);
  const answers = await Promise.all(lengths.map((length) => git(repo, ['rev-parse', `--short=${length}`, 'HEAD'])));
  expect(answers.map((answer) => answer.length)).toEqual(lengths);
});

test('a helper that dies fails the commands in flight with a message, and the next command starts a new one', async () => {
  const repo = makeGitRepo();
  await git(repo, ['status']);
  const first = helperPid();
  const slow = tryGit(repo, ['-c', 'alias.slow=!sleep 5', 'slow']);
  process.kill(first, 'SIGKILL');
  await expect(slow).rejects.toThrow('the git helper process ended (SIGKILL); the command did not finish');
  expect(await git(repo, ['rev-parse', '--is-inside-work-tree'])).toBe('true');
  expect(helperPid()).not.toBe(first);
});
