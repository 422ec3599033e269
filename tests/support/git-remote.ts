import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=teammate', '-c', 'user.email=teammate@localhost', ...args], { cwd, stdio: 'pipe' })
    .toString()
    .trim();

export interface GitRemote {
  /** The bare repository the team pushes to, as a path git can fetch from. */
  bare: string;
  /** The worker's checkout: a clone of `bare` with `origin` pointing at it, as the team left it. */
  checkout: string;
  /** A teammate pushes a commit adding `file` to `branch` (default `main`; a new one starts from `main`); returns the commit. */
  push(file: string, content: string, branch?: string): string;
  /** A branch's commit in the bare repository, or undefined. */
  head(branch: string): string | undefined;
}

/**
 * A loopback git remote: a bare repository with a first commit on `main`, a worker's clone of it, and a teammate's
 * clone that pushes new commits, so a test can move the remote on after the worker's checkout was made.
 */
export function makeGitRemote(): GitRemote {
  const root = mkdtempSync(path.join(os.tmpdir(), 'codeloop-remote-'));
  const bare = path.join(root, 'team.git');
  run(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const teammate = path.join(root, 'teammate');
  run(root, 'clone', '-q', bare, teammate);
  run(teammate, 'checkout', '-q', '-b', 'main');
  writeFileSync(path.join(teammate, 'README.md'), '# team\n');
  run(teammate, 'add', '-A');
  run(teammate, 'commit', '-q', '-m', 'initial');
  run(teammate, 'push', '-q', 'origin', 'main');
  const checkout = path.join(root, 'worker-checkout');
  run(root, 'clone', '-q', bare, checkout);
  return {
    bare,
    checkout,
    push(file, content, branch = 'main') {
      run(teammate, 'fetch', '-q', 'origin');
      const known = run(teammate, 'branch', '-r', '--list', `origin/${branch}`) !== '';
      run(teammate, 'checkout', '-q', '-B', branch, known ? `origin/${branch}` : 'origin/main');
      writeFileSync(path.join(teammate, file), content);
      run(teammate, 'add', '-A');
      run(teammate, 'commit', '-q', '-m', `add ${file}`);
      run(teammate, 'push', '-q', 'origin', branch);
      return run(teammate, 'rev-parse', 'HEAD');
    },
    head(branch) {
      try {
        return run(bare, 'rev-parse', '--verify', `refs/heads/${branch}`);
      } catch {
        return undefined;
      }
    },
  };
}
