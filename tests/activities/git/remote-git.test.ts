import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { fetchBase, pushBranch, withoutSecrets } from '../../../src/activities/git/remote-git.js';
import { makeGitRemote } from '../../support/git-remote.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' }).toString().trim();

describe('git that reaches a remote', () => {
  test('fetches what a teammate pushed after the checkout was made, into the remote-tracking ref', async () => {
    const remote = makeGitRemote();
    const pushed = remote.push('new.txt', 'new\n');
    const fetched = await fetchBase({ repo: remote.checkout, remote: 'origin' });
    expect(fetched).toEqual({ ref: 'refs/remotes/origin/main', commit: pushed, branch: 'main' });
    // The checkout itself is untouched: its main is still the old commit.
    expect(git(remote.checkout, 'rev-parse', 'main')).not.toBe(pushed);
  });

  test('a repository-configured program (an ssh command, upload-pack) does not run, and hooks stay off on push', async () => {
    const remote = makeGitRemote();
    const marker = path.join(remote.checkout, '..', 'ran');
    git(remote.checkout, 'config', 'remote.origin.uploadpack', `sh -c 'touch ${marker}; git-upload-pack "$@"' --`);
    writeFileSync(path.join(remote.checkout, '.git', 'hooks', 'pre-push'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    await fetchBase({ repo: remote.checkout, remote: 'origin', baseBranch: 'main' });
    git(remote.checkout, 'checkout', '-q', '-b', 'codeloop/b1/integration');
    const commit = await pushBranch({ repo: remote.checkout, remote: 'origin', branch: 'codeloop/b1/integration' });
    expect(remote.head('codeloop/b1/integration')).toBe(commit);
    expect(() => git(remote.checkout, 'ls-files', '--error-unmatch', marker)).toThrow();
    expect(execFileSync('ls', [path.dirname(marker)]).toString()).not.toContain('ran');
  });

  test('a failing fetch names the error, without the credentials a URL carried', async () => {
    const remote = makeGitRemote();
    await expect(fetchBase({ repo: remote.checkout, remote: 'origin', baseBranch: 'no-such-branch' })).rejects.toMatchObject({
      type: 'RemoteFailed',
      nonRetryable: true,
      message: expect.stringContaining("couldn't find remote ref refs/heads/no-such-branch"),
    });
    expect(withoutSecrets("fatal: unable to access 'https://bot:ghp_secret@example.com/a/b.git/'")).toBe(
      "fatal: unable to access 'https://***@example.com/a/b.git/'",
    );
  });
});
