import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { commitAll, createTaskWorktree, prepareBatchRepo } from '../../../src/activities/git/batch-repo.js';
import { git } from '../../../src/activities/git/run-git.js';
import { checkpointTask, finishTaskBranch, startTaskBranch } from '../../../src/activities/git/task-branch.js';
import { fileOnBranch, makeGitRepo } from '../../support/workspace.js';

/**
 * Repositories an agent prepared to make codeloop's own git (outside the sandbox) run its programs: filters, drivers
 * and helpers in a nested repository's config or in a `.git` it planted. A marker file outside the workspace says
 * whether anything ran; it must never be written.
 */

const userGit = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=agent', '-c', 'user.email=agent@localhost', ...args], { cwd, stdio: 'pipe' }).toString();

function markerDir(): { marker: string; program: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-marker-'));
  const marker = path.join(dir, 'ran');
  const program = path.join(dir, 'evil.sh');
  // Writes the marker with the environment it was given, then passes its input through, as a filter would.
  writeFileSync(program, `#!/bin/sh\nenv >> ${marker}\ncat\n`, { mode: 0o755 });
  return { marker, program };
}

/**
 * Every way a repository's config names a program git may run on a checkout, commit, diff or merge, and attributes
 * that select its filters and drivers for every file (written, not committed: the caller commits them first).
 */
function plantPrograms(repo: string, program: string): void {
  const set = (key: string, value: string) => userGit(repo, 'config', key, value);
  for (const name of ['x', 'a=b.c']) {
    set(`filter.${name}.clean`, program);
    set(`filter.${name}.smudge`, program);
    set(`filter.${name}.process`, program);
    set(`filter.${name}.required`, 'true');
  }
  set('diff.x.textconv', program);
  set('diff.x.command', program);
  set('diff.external', program);
  set('merge.x.driver', program);
  set('core.sshCommand', program);
  set('core.pager', program);
  set('core.fsmonitor', program);
  set('core.hooksPath', path.dirname(program));
  set('alias.status', `!${program}`);
  set('credential.helper', program);
  writeFileSync(path.join(path.dirname(program), 'post-checkout'), `#!/bin/sh\n${program}\n`, { mode: 0o755 });
  writeFileSync(path.join(path.dirname(program), 'pre-commit'), `#!/bin/sh\n${program}\n`, { mode: 0o755 });
}

function plantAttributes(repo: string): void {
  writeFileSync(path.join(repo, '.gitattributes'), '* filter=x diff=x merge=x\n*.y filter=a=b.c\n');
}

/**
 * The control: the user's own git, in the same repository, does run the planted program (a same-size change makes
 * `git status` hash the file through the clean filter), so a marker that stays absent means something.
 */
function expectPlainGitRunsIt(repo: string, file: string, marker: string): void {
  expect(existsSync(marker)).toBe(false);
  const text = readFileSync(path.join(repo, file), 'utf8');
  writeFileSync(
    path.join(repo, file),
    text.replace(/.$/m, (last) => (last === 'z' ? 'y' : 'z')),
  );
  // The planted long-running `process` filter is no real one, so git fails after starting it; that it started is the point.
  try {
    userGit(repo, 'status', '--porcelain');
  } catch {
    // expected: "initialization for subprocess … failed"
  }
  expect(existsSync(marker)).toBe(true);
}

/** A repository with one commit (its attributes in it), and then the planted config. */
function vendorRepository(dir: string, program: string): string {
  mkdirSync(dir, { recursive: true });
  userGit(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'f.txt'), 'abc\n');
  plantAttributes(dir);
  userGit(dir, 'add', '-A');
  userGit(dir, 'commit', '-q', '-m', 'vendored');
  plantPrograms(dir, program);
  return dir;
}

test('a vendored repository with filters in its own config: checkpoints commit it as a gitlink and run nothing of it', async () => {
  const { marker, program } = markerDir();
  const repo = makeGitRepo({ 'app.txt': 'one\n' });
  const started = await startTaskBranch({ workspace: repo, taskId: 'vendor' });
  if (started.inPlace) throw new Error('expected a branch');
  const lib = vendorRepository(path.join(started.worktree, 'vendor/lib'), program);
  const vendored = userGit(lib, 'rev-parse', 'HEAD').trim();
  writeFileSync(path.join(lib, 'f.txt'), 'abd\n'); // same size: git would have to look at the content
  writeFileSync(path.join(started.worktree, 'app.txt'), 'two\n');

  const first = await checkpointTask({ worktree: started.worktree, iteration: 1 });
  expect(first.commit).toBeDefined();
  expect(await git(repo, ['ls-tree', started.branch, 'vendor/lib'])).toBe(`160000 commit ${vendored}\tvendor/lib`);
  // A second checkpoint after more changes in the nested repository, then the task's end.
  writeFileSync(path.join(lib, 'f.txt'), 'abe\n');
  writeFileSync(path.join(started.worktree, 'app.txt'), 'three\n');
  await checkpointTask({ worktree: started.worktree, iteration: 2 });
  const end = await finishTaskBranch({ ...started, message: 'done', always: true });
  expect(end.commits).toBeGreaterThanOrEqual(2);
  expect(fileOnBranch(repo, started.branch, 'app.txt')).toBe('three\n');
  expect(existsSync(marker)).toBe(false);
  // The worktree is gone with the task's end; the same nested repository, made again, runs the program for plain git.
  const again = vendorRepository(path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-control-')), 'lib'), program);
  expectPlainGitRunsIt(again, 'f.txt', marker);
});

test('an empty nested repository (a scaffolder’s git init) does not fail a checkpoint; the rest is committed', async () => {
  const repo = makeGitRepo();
  const started = await startTaskBranch({ workspace: repo, taskId: 'empty-nested' });
  if (started.inPlace) throw new Error('expected a branch');
  mkdirSync(path.join(started.worktree, 'scaffold'));
  userGit(path.join(started.worktree, 'scaffold'), 'init', '-q');
  writeFileSync(path.join(started.worktree, 'scaffold', 'index.js'), 'x\n');
  writeFileSync(path.join(started.worktree, 'note.txt'), 'kept\n');
  const { commit } = await checkpointTask({ worktree: started.worktree, iteration: 1 });
  expect(commit).toBeDefined();
  expect(fileOnBranch(repo, started.branch, 'note.txt')).toBe('kept\n');
});

test('a planted .git in a folder outside git: a later branch task and its checkpoints run none of its programs', async () => {
  const { marker, program } = markerDir();
  const folder = mkdtempSync(path.join(os.tmpdir(), 'codeloop-planted-'));
  // The sub-repository case: the same in sub/.git, for a later task on the subdirectory (made first: the outer
  // repository's commit then holds it as a gitlink).
  const sub = path.join(folder, 'sub');
  mkdirSync(sub);
  for (const [repo, file] of [
    [sub, 'b.txt'],
    [folder, 'a.txt'],
  ]) {
    writeFileSync(path.join(repo, file), 'abc\n');
    plantAttributes(repo);
    userGit(repo, 'init', '-q', '-b', 'main');
    userGit(repo, 'add', '-A');
    userGit(repo, 'commit', '-q', '-m', 'planted');
    plantPrograms(repo, program);
  }

  for (const workspace of [folder, sub]) {
    const started = await startTaskBranch({ workspace, taskId: `planted-${path.basename(workspace)}` });
    if (started.inPlace) throw new Error('expected a branch');
    writeFileSync(path.join(started.worktree, 'new.txt'), 'new\n');
    await checkpointTask({ worktree: started.worktree, iteration: 1 });
    await finishTaskBranch({ ...started, message: 'done', always: true });
    expect(fileOnBranch(started.repo, started.branch, 'new.txt')).toBe('new\n');
  }
  // A batch in the planted repository: its integration worktree, a task's worktree, a commit and a merge.
  const batch = await prepareBatchRepo({ repo: folder, batchId: 'planted' });
  const task = await createTaskWorktree({ repo: folder, batchId: 'planted', taskId: 't1' });
  writeFileSync(path.join(task.path, 'a.txt'), 'abd\n');
  expect(await commitAll(task.path, 'work')).toBe(true);
  await git(batch.integrationPath, ['merge', '--no-ff', '-m', 'merge', task.branch]);
  expect(readFileSync(path.join(batch.integrationPath, 'a.txt'), 'utf8')).toBe('abd\n');
  expectPlainGitRunsIt(folder, 'a.txt', marker);
});

test('a .git that points at another repository, or a core.worktree elsewhere, is refused by name', async () => {
  const victim = makeGitRepo({ 'secret.txt': 'do not copy\n' });
  const folder = mkdtempSync(path.join(os.tmpdir(), 'codeloop-pointer-'));
  writeFileSync(path.join(folder, '.git'), `gitdir: ${path.join(victim, '.git')}\n`);
  await expect(startTaskBranch({ workspace: folder, taskId: 'pointer' })).rejects.toThrow(
    /refuses the repository at .*: its \.git points at .*, the metadata of another repository/,
  );
  const moved = makeGitRepo();
  userGit(moved, 'config', 'core.worktree', os.homedir());
  await expect(startTaskBranch({ workspace: moved, taskId: 'moved' })).rejects.toThrow(/sets core\.worktree to .*remove it/);
});

test('dependency links are left out of a commit whatever form the .gitignore gives them', async () => {
  const forms = [
    ...['node_modules', '/node_modules', 'node_modules/', 'node_modules*', '**/node_modules', ''].map((rule) => ['node_modules', rule]),
    ...['.venv', '/.venv', '.venv/', '.venv*', '**/.venv', '**/.venv/', ''].map((rule) => ['.venv', rule]),
  ];
  for (const [dir, rule] of forms) {
    const repo = makeGitRepo({ '.gitignore': `${rule}\n`, 'a.txt': '1\n' });
    mkdirSync(path.join(repo, dir, 'pkg'), { recursive: true });
    const started = await startTaskBranch({ workspace: repo, taskId: 'ignore' });
    if (started.inPlace) throw new Error('expected a branch');
    if (!existsSync(path.join(started.worktree, dir))) symlinkSync(path.join(repo, dir), path.join(started.worktree, dir));
    writeFileSync(path.join(started.worktree, 'a.txt'), '2\n');
    const { commit } = await checkpointTask({ worktree: started.worktree, iteration: 1 });
    expect(commit, `${dir} with .gitignore "${rule}"`).toBeDefined();
    expect(await git(repo, ['ls-tree', '--name-only', started.branch])).not.toContain(dir);
  }
});

test('a tree deeper than the path limit does not fail the checkpoint or the end; the rest is committed and the worktree goes', async () => {
  const repo = makeGitRepo();
  const started = await startTaskBranch({ workspace: repo, taskId: 'deep' });
  if (started.inPlace) throw new Error('expected a branch');
  // 25 levels of 200 characters, each made relative to the one before: the whole path is past PATH_MAX.
  const deep = `d=${'d'.repeat(200)}; for i in $(seq 25); do mkdir $d && cd $d; done; echo x > f`;
  execFileSync('sh', ['-c', deep], { cwd: started.worktree });
  writeFileSync(path.join(started.worktree, 'kept.txt'), 'kept\n');
  const { commit } = await checkpointTask({ worktree: started.worktree, iteration: 1 });
  expect(commit).toBeDefined();
  await finishTaskBranch({ ...started, message: 'done', always: true });
  expect(fileOnBranch(repo, started.branch, 'kept.txt')).toBe('kept\n');
  expect(existsSync(started.worktree)).toBe(false);
});
