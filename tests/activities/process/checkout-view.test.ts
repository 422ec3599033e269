import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { startTaskBranch } from '../../../src/activities/git/task-branch.js';
import { runWorkspaceTests } from '../../../src/activities/tools/run-tests.js';
import { resolveInWorkspace } from '../../../src/activities/tools/workspace-path.js';
import { detectGates } from '../../../src/activities/verification/gates.js';
import { runGate } from '../../../src/activities/verification/run-gate.js';
import { sandboxedShell, unsandboxed } from '../../support/sandbox.js';
import { makeGitRepo } from '../../support/workspace.js';

/**
 * A Python project set up as its developers set it up: a `.venv` (ignored by git) where the package is installed in
 * editable mode, which points at the checkout's own `src/`. A task works on a branch in a worktree of its own; its
 * tests must run against the worktree's code, never the checkout's, which carries a marker it writes when imported.
 */
function editableProject(): { repo: string; marker: string } {
  const marker = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-imported-')), 'checkout-imported');
  const repo = makeGitRepo({
    '.gitignore': '.venv\n',
    'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1"\n',
    'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  });
  // What `pip install -e .` leaves: a .pth naming the checkout's src/ (pytest comes from the interpreter's own packages).
  execFileSync('python3', ['-m', 'venv', '--without-pip', '--system-site-packages', path.join(repo, '.venv')]);
  const lib = path.join(repo, '.venv', 'lib');
  const sitePackages = path.join(lib, readdirSync(lib)[0], 'site-packages');
  writeFileSync(path.join(sitePackages, '__editable__.calc-0.1.pth'), `${path.join(repo, 'src')}\n`);
  return { repo, marker };
}

test("branch mode: an editable install runs the task's code in its worktree, and a bug there fails run_tests and the tests gate", async () => {
  const { repo, marker } = editableProject();
  const started = await startTaskBranch({ workspace: repo, taskId: 'editable' });
  if (started.inPlace) throw new Error('expected a branch');
  // The developer's own uncommitted work in the checkout: importing it writes the marker.
  writeFileSync(
    path.join(repo, 'src/calc/__init__.py'),
    `open(${JSON.stringify(marker)}, "w").close()\n\ndef add(a, b):\n    return a + b\n`,
  );
  writeFileSync(path.join(started.worktree, 'src/calc/__init__.py'), 'def add(a, b):\n    return a - b\n');

  const shell = sandboxedShell();
  const tests = await runWorkspaceTests(shell, started.workspace, {});
  expect(tests.isError).toBe(true);
  expect(tests.content).toMatch(/test_add/);
  expect(tests.content).toMatch(/assert -1 == 5/);
  const gate = detectGates(started.workspace, shell.sandboxMode).find((candidate) => candidate.name === 'tests');
  expect(gate?.command).toContain(`${repo}/.venv/bin/python -m pytest`);
  expect((await runGate(shell, started.workspace, gate!)).passed).toBe(false);
  const imported = await shell('.venv/bin/python -c "import calc, inspect; print(inspect.getsource(calc.add).strip().splitlines()[-1])"', {
    workspace: started.workspace,
    timeoutMs: 30_000,
  });
  expect(imported.output.trim()).toBe('return a - b');

  // Unsandboxed, the worktree has none of the checkout's dependencies: its tests cannot reach the checkout's code.
  const bare = sandboxedShell(process.env, unsandboxed);
  const offTests = await runWorkspaceTests(bare, started.workspace, {});
  expect(offTests.isError).toBe(true);
  expect(existsSync(marker)).toBe(false);
}, 120_000);

test("a path the commands print (the checkout's) names the worktree's file for the file tools; paths elsewhere stay refused", async () => {
  const repo = makeGitRepo({ 'src/app.py': 'x = 1\n' });
  const started = await startTaskBranch({ workspace: repo, taskId: 'paths' });
  if (started.inPlace) throw new Error('expected a branch');
  const resolved = resolveInWorkspace(started.workspace, path.join(repo, 'src/app.py'));
  expect(resolved).toMatchObject({ absolute: path.join(started.worktree, 'src/app.py'), relative: 'src/app.py' });
  expect(() => resolveInWorkspace(started.workspace, path.join(path.dirname(repo), 'elsewhere.py'))).toThrow(/outside the workspace/);
});
