import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A scratch workspace with the given files. */
export function makeWorkspace(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-ws-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

/** Every file under `dir` with its content, for comparing two workspaces byte for byte. */
export function snapshotTree(dir: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) Object.assign(files, snapshotTree(dir, relative));
    else files[relative] = readFileSync(path.join(dir, relative), 'utf8');
  }
  return files;
}

/** A scratch git repository with the given files committed on `main`. */
/** A git identity for commands a test runs as the user would (merges, commits), whatever the host's git config. */
export const gitUser = (name: string) => ({
  GIT_AUTHOR_NAME: name,
  GIT_AUTHOR_EMAIL: `${name}@localhost`,
  GIT_COMMITTER_NAME: name,
  GIT_COMMITTER_EMAIL: `${name}@localhost`,
});

export function makeGitRepo(files: Record<string, string> = { 'README.md': '# repo\n' }): string {
  const dir = makeWorkspace(files);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

/** A file's content on a branch, read with git (the branch need not be checked out). */
export function fileOnBranch(repo: string, branch: string, file: string): string | undefined {
  try {
    return execFileSync('git', ['show', `${branch}:${file}`], { cwd: repo, stdio: 'pipe' }).toString();
  } catch {
    return undefined;
  }
}
