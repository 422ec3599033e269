import { existsSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { SandboxMode } from '../../shared/command-access.js';
import { dependencyDir } from '../dependency-links.js';
import { readProjectFile } from '../project-file.js';
import { IGNORED_DIRECTORIES } from './ignored-paths.js';
import { pytestSetting } from './pytest-config.js';

const TEST_FILE = /^test_?.*\.py$|_test\.py$/;
const SAMPLED = 20;

/**
 * Whether a Python project's tests are a unittest suite: its test files (at the top, in tests/, test/ or a package's
 * tests under src/, a few levels deep) subclass `unittest.TestCase` and none imports pytest. Such a suite runs under
 * `python -m unittest` with nothing installed, where pytest may be missing.
 */
export function usesUnittest(workspace: string): boolean {
  const texts = testFiles(workspace, 3)
    .slice(0, SAMPLED)
    .map((file) => readProjectFile(file))
    .filter((text): text is string => typeof text === 'string');
  if (texts.length === 0 || texts.some((text) => /^\s*(import pytest|from pytest import)\b/m.test(text))) return false;
  return texts.some((text) => /\bunittest\b[\s\S]*\bTestCase\b|\bTestCase\b[\s\S]*\bunittest\b/.test(text));
}

function testFiles(dir: string, depth: number): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const here = entries.filter((entry) => entry.isFile() && TEST_FILE.test(entry.name)).map((entry) => path.join(dir, entry.name));
  if (depth === 0) return here;
  const below = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !IGNORED_DIRECTORIES.includes(entry.name))
    .flatMap((entry) => testFiles(path.join(dir, entry.name), depth - 1));
  return [...here, ...below];
}

/**
 * The Python the tests run with: the workspace's virtualenv when it has one (in a task worktree, the checkout's,
 * which its sandboxed commands see; see `dependencyDir`), else `python3` on `PATH`.
 */
export function testPython(workspace: string, sandboxMode?: SandboxMode): string {
  return (
    (['.venv', 'venv'] as const).map((venv) => path.join(dependencyDir(workspace, venv, sandboxMode), 'bin/python')).find(existsSync) ??
    'python3'
  );
}

/**
 * `PYTHONPATH=src ` for a Python src/ layout whose pytest settings do not put src/ on the path themselves: without
 * it the tests either cannot import the package or, worse, import a copy of it installed elsewhere on the machine,
 * and fail (or pass) for reasons outside the task's work. Set in the environment, it reaches the processes the tests
 * start too (`python -m pkg`). An editable install of the workspace itself is unaffected.
 */
export function sourcePathPrefix(workspace: string): string {
  const src = path.join(workspace, 'src');
  let entries: Dirent[];
  try {
    entries = readdirSync(src, { withFileTypes: true });
  } catch {
    return '';
  }
  const hasPython = entries.some(
    (entry) =>
      (entry.isDirectory() && existsSync(path.join(src, entry.name, '__init__.py'))) || (entry.isFile() && entry.name.endsWith('.py')),
  );
  const configured = (pytestSetting(workspace, 'pythonpath') ?? []).some((dir) => dir.replace(/^\.\//, '').replace(/\/$/, '') === 'src');
  return hasPython && !configured ? 'PYTHONPATH=src ' : '';
}
