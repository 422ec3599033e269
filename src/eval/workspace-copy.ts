import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, link, mkdir, mkdtemp, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../project-root.js';

const run = promisify(execFile);

/**
 * Every run's copy lives in a directory of this form, `<workdir>/codeloop-eval-<random>/<case-id>`. Replay
 * normalises the prefix away (see `normalise.ts`), so one run's requests match another's.
 */
export const EVAL_DIR_PREFIX = 'codeloop-eval-';

/**
 * The fixture's commit has a fixed identity and date, so its hash is the same in every copy: nothing a task sees
 * (`git log`, `git status`) differs between two runs of the same case.
 */
const FIXTURE_COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'codeloop eval',
  GIT_AUTHOR_EMAIL: 'eval@codeloop.localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'codeloop eval',
  GIT_COMMITTER_EMAIL: 'eval@codeloop.localhost',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  GIT_TERMINAL_PROMPT: '0',
};

/**
 * A fresh copy of a case's fixture under `workdir`, as a git repository with the fixture committed: a directory is
 * copied and committed, a bundle is cloned. A task's lint and gates judge its work against that commit, as they do
 * in a user's checkout.
 */
export async function copyFixture(fixture: { id: string; repo: string; nodeModules: string[] }, workdir: string): Promise<string> {
  await mkdir(workdir, { recursive: true });
  const root = await mkdtemp(path.join(workdir, EVAL_DIR_PREFIX));
  const workspace = path.join(root, fixture.id);
  const git = (args: string[], cwd = workspace) =>
    run('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], {
      cwd,
      env: { ...process.env, ...FIXTURE_COMMIT_ENV },
    });
  if (fixture.repo.endsWith('.bundle')) {
    await git(['clone', '--quiet', fixture.repo, workspace], root);
  } else {
    await cp(fixture.repo, workspace, { recursive: true });
    if (!existsSync(path.join(workspace, '.git'))) {
      await git(['init', '--quiet', '--initial-branch', 'main']);
      await git(['add', '--all']);
      await git(['commit', '--quiet', '--message', 'fixture']);
    }
  }
  for (const name of fixture.nodeModules) await linkTree(installedPackageDir(name)!, path.join(workspace, 'node_modules', name));
  return workspace;
}

/** Where codeloop's own installation has an npm package, or `undefined`. */
export function installedPackageDir(name: string): string | undefined {
  const dir = path.join(projectRoot, 'node_modules', name);
  return existsSync(path.join(dir, 'package.json')) ? dir : undefined;
}

/**
 * Hard links of every file (a copy across file systems): the sandbox shows the task only its workspace, so a symlink
 * out of it would dangle there. A write to a linked file replaces the link, never codeloop's own file.
 */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) await linkTree(source, target);
    else if (entry.isFile()) await link(source, target).catch(() => cp(source, target));
  }
}
