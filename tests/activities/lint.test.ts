import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { runProcess } from '../../src/activities/process/run-process.js';
import type { WorkspaceShell } from '../../src/activities/tools/run-command.js';
import { lintFile } from '../../src/activities/verification/lint.js';
import { ensureRuff } from '../support/ruff.js';
import { makeWorkspace } from '../support/workspace.js';

const shell: WorkspaceShell = (command, { workspace, timeoutMs }) => runProcess({ command, cwd: workspace, timeoutMs, env: { PATH: process.env.PATH } });

test('Python without ruff: a syntax check that leaves no __pycache__', async () => {
  const workspace = makeWorkspace({ 'ok.py': 'x = 1\n', 'bad.py': 'def f(:\n  pass\n' });
  expect(await lintFile(shell, workspace, 'ok.py', '')).toEqual({ linter: 'python syntax check', errors: undefined });
  const bad = await lintFile(shell, workspace, 'bad.py', '');
  expect(bad?.errors).toContain('SyntaxError');
  expect(existsSync(path.join(workspace, '__pycache__'))).toBe(false);
});

test("Python with the workspace's ruff: autofix first, then what is left", async () => {
  const workspace = makeWorkspace({ 'app.py': 'import os\nimport sys\n\nprint(undefined_name)\n' });
  mkdirSync(path.join(workspace, '.venv/bin'), { recursive: true });
  symlinkSync(ensureRuff(), path.join(workspace, '.venv/bin/ruff'));
  const report = await lintFile(shell, workspace, 'app.py', '');
  expect(report?.linter).toBe('ruff');
  expect(report?.errors).toContain('F821');
  expect(report?.errors).not.toContain('F401');
  expect(readFileSync(path.join(workspace, 'app.py'), 'utf8')).toBe('\nprint(undefined_name)\n');
}, 120_000);

test('TypeScript: tsc --noEmit when the project has it, only this file\'s errors', async () => {
  const workspace = makeWorkspace({
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true }, include: ['*.ts'] }),
    'good.ts': 'export const n: number = 1;\n',
    'other.ts': 'export const broken: number = "x";\n',
    'bad.ts': 'export const s: string = 42;\n',
  });
  symlinkSync(path.resolve('node_modules'), path.join(workspace, 'node_modules'));
  expect(await lintFile(shell, workspace, 'good.ts')).toEqual({ linter: 'tsc --noEmit', errors: undefined });
  const bad = await lintFile(shell, workspace, 'bad.ts');
  expect(bad?.errors).toContain("bad.ts(1,14): error TS2322");
  expect(bad?.errors).not.toContain('other.ts');
}, 60_000);

test('JavaScript, JSON and YAML', async () => {
  const workspace = makeWorkspace({ 'a.mjs': 'export const x = ;\n', 'c.json': '{"a": }', 'd.yaml': 'a: [1, 2\n', 'e.yaml': 'a: 1\n', 'notes.md': '# hi' });
  expect((await lintFile(shell, workspace, 'a.mjs'))?.errors).toContain('SyntaxError');
  expect((await lintFile(shell, workspace, 'c.json'))?.linter).toBe('JSON parse');
  expect((await lintFile(shell, workspace, 'c.json'))?.errors).toBeDefined();
  expect((await lintFile(shell, workspace, 'd.yaml'))?.errors).toBeDefined();
  expect(await lintFile(shell, workspace, 'e.yaml')).toEqual({ linter: 'YAML parse' });
  expect(await lintFile(shell, workspace, 'notes.md')).toBeUndefined();
});
