import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { runUserGit } from '../../src/client/user-git.js';
import { makeGitRepo } from '../support/workspace.js';

/**
 * `codeloop task push` and `apply` run the user's git on a repository a task may have configured: the remote programs
 * its config names (`remote.<name>.receivepack`, `uploadpack`) never run, and the push and fetch still work.
 */
test("a repository's own receive-pack and upload-pack programs never run; push and fetch still work", async () => {
  const remote = mkdtempSync(path.join(os.tmpdir(), 'codeloop-remote-'));
  execFileSync('git', ['init', '-q', '--bare', remote]);
  const repo = makeGitRepo({ 'a.txt': 'a\n' });
  const marker = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-marker-')), 'ran');
  // git runs the program with the repository's path as its argument, through a shell: here that path is $0.
  const planted = (program: string) => `sh -c 'touch ${marker}; exec ${program} "$0"'`;
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
  git('remote', 'add', 'origin', remote);
  git('config', 'remote.origin.receivepack', planted('git-receive-pack'));
  git('config', 'remote.origin.uploadpack', planted('git-upload-pack'));
  const branch = git('rev-parse', '--abbrev-ref', 'HEAD');

  const pushed = await runUserGit(repo, ['push', 'origin', `HEAD:refs/heads/${branch}`]);
  expect(pushed.exitCode).toBe(0);
  const fetched = await runUserGit(repo, ['fetch', 'origin']);
  expect(fetched.exitCode).toBe(0);
  expect(existsSync(marker)).toBe(false);
  expect(execFileSync('git', ['-C', remote, 'rev-parse', branch], { encoding: 'utf8' }).trim()).toBe(git('rev-parse', 'HEAD'));
  // The same push through git itself runs the planted program: the check above can fail.
  execFileSync('git', ['-C', repo, 'push', 'origin', `HEAD:refs/heads/other`], { stdio: 'ignore' });
  expect(existsSync(marker)).toBe(true);
});
