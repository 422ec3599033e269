import type { CommandAccess } from '../../shared/command-access.js';
import type { Delivery, PublicName } from '../../shared/delivery.js';
import { tryGit } from '../git/run-git.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { PYTHON_FILE, pythonNames } from './python-names.js';
import { TYPESCRIPT_FILE, typescriptNames, type FoundName } from './typescript-names.js';

/** Files larger than this are named in the diffstat but not read for names: generated code, bundles. */
const MAX_SOURCE_BYTES = 256 * 1024;
/** Keeps a delivered block (and the batch state that holds it) small whatever the task changed. */
const MAX_FILES = 60;
const MAX_NAMES = 80;

export interface DescribeDeliveryRequest {
  taskId: string;
  /** A checkout of the repository: the integration worktree. */
  cwd: string;
  /** The integration tip before the task's merge, and its merge commit. */
  before: string;
  after: string;
  /** Names the task declared it provides: kept in the block even when unchanged, so they can be checked. */
  provides?: string[];
  access?: CommandAccess;
}

/**
 * What a task's merge brought: the files with their diffstat, and the public names of the changed source files
 * that are new or changed against the tip before it, read by a language-aware pass (TypeScript's compiler API in
 * the worker; Python's `ast` in the sandbox) rather than taken from the model's summary.
 */
export async function describeDelivery(shell: WorkspaceShell, request: DescribeDeliveryRequest): Promise<Delivery> {
  const { cwd, before, after } = request;
  const numstat = await tryGit(cwd, ['diff', '--numstat', '--no-renames', before, after]);
  const files = numstat.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [added, removed, ...rest] = line.split('\t');
      return { path: rest.join('\t'), added: Number(added) || 0, removed: Number(removed) || 0 };
    });
  const sources = files.map((file) => file.path).filter((path) => TYPESCRIPT_FILE.test(path) || PYTHON_FILE.test(path));
  const [now, then] = await Promise.all([readSources(cwd, after, sources), readSources(cwd, before, sources)]);
  const [found, foundBefore] = await Promise.all([namesOf(shell, cwd, now, request.access), namesOf(shell, cwd, then, request.access)]);
  const names = found.names
    .map((name): PublicName => ({ ...name, change: changeOf(name, foundBefore.names) }))
    .filter((name) => name.change !== 'unchanged' || declared(name, request.provides));
  return {
    taskId: request.taskId,
    files: files.slice(0, MAX_FILES),
    names: names.slice(0, MAX_NAMES),
    ...(found.unread.length ? { unread: found.unread } : {}),
  };
}

async function readSources(cwd: string, commit: string, paths: string[]): Promise<Record<string, string>> {
  const sources: Record<string, string> = {};
  for (const path of paths) {
    const shown = await tryGit(cwd, ['show', `${commit}:${path}`], { raw: true });
    if (shown.ok && shown.stdout.length <= MAX_SOURCE_BYTES) sources[path] = shown.stdout;
  }
  return sources;
}

async function namesOf(
  shell: WorkspaceShell,
  cwd: string,
  sources: Record<string, string>,
  access?: CommandAccess,
): Promise<{ names: FoundName[]; unread: string[] }> {
  const typescript = Object.entries(sources).filter(([path]) => TYPESCRIPT_FILE.test(path));
  const python = Object.fromEntries(Object.entries(sources).filter(([path]) => PYTHON_FILE.test(path)));
  const fromPython = await pythonNames(shell, cwd, python, access);
  return { names: [...typescript.flatMap(([path, text]) => typescriptNames(path, text)), ...fromPython.names], unread: fromPython.unread };
}

function changeOf(name: FoundName, before: FoundName[]): PublicName['change'] {
  const earlier = before.find((candidate) => candidate.file === name.file && candidate.name === name.name && candidate.kind === name.kind);
  if (!earlier) return 'added';
  return earlier.signature === name.signature ? 'unchanged' : 'changed';
}

function declared(name: FoundName, provides: string[] = []): boolean {
  return provides.some((entry) => entry.split('(')[0].trim().split('.').at(-1) === name.name.split('.').at(-1));
}
