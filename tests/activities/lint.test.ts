import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createSandbox } from '../../src/activities/process/sandbox.js';
import { createToolActivities } from '../../src/activities/tools/index.js';
import { lintFile } from '../../src/activities/verification/lint.js';
import { ensureRuff } from '../support/ruff.js';
import { sandboxedShell } from '../support/sandbox.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * Linters run sandboxed as on the worker. The workspaces here link to this checkout's pinned ruff and node_modules,
 * which the sandbox sees only when bound read-only, as an operator would with CODELOOP_SANDBOX_READONLY.
 */
const env = { PATH: process.env.PATH, CODELOOP_SANDBOX_READONLY: `${path.resolve('.tools')}:${path.resolve('node_modules')}` };
const shell = sandboxedShell(env, createSandbox(env));

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

test("TypeScript: tsc --noEmit when the project has it, only this file's errors", async () => {
  const workspace = makeWorkspace({
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true }, include: ['*.ts'] }),
    'good.ts': 'export const n: number = 1;\n',
    'other.ts': 'export const broken: number = "x";\n',
    'bad.ts': 'export const s: string = 42;\n',
  });
  symlinkSync(path.resolve('node_modules'), path.join(workspace, 'node_modules'));
  expect(await lintFile(shell, workspace, 'good.ts')).toEqual({ linter: 'tsc --noEmit', errors: undefined });
  const bad = await lintFile(shell, workspace, 'bad.ts');
  expect(bad?.errors).toContain('bad.ts(1,14): error TS2322');
  expect(bad?.errors).not.toContain('other.ts');
}, 60_000);

test('JavaScript, JSON and YAML', async () => {
  const workspace = makeWorkspace({
    'a.mjs': 'export const x = ;\n',
    'c.json': '{"a": }',
    'd.yaml': 'a: [1, 2\n',
    'e.yaml': 'a: 1\n',
    'notes.md': '# hi',
  });
  expect((await lintFile(shell, workspace, 'a.mjs'))?.errors).toContain('SyntaxError');
  expect((await lintFile(shell, workspace, 'c.json'))?.linter).toBe('JSON parse');
  expect((await lintFile(shell, workspace, 'c.json'))?.errors).toBeDefined();
  expect((await lintFile(shell, workspace, 'd.yaml'))?.errors).toBeDefined();
  expect(await lintFile(shell, workspace, 'e.yaml')).toEqual({ linter: 'YAML parse' });
  expect(await lintFile(shell, workspace, 'notes.md')).toBeUndefined();
});

/** A workspace with an eslint config and a stand-in `node_modules/.bin/eslint` running `script` (sh). */
function eslintWorkspace(script: string, files: Record<string, string> = {}): string {
  const workspace = makeWorkspace({ 'eslint.config.js': 'export default [];\n', ...files });
  const eslint = path.join(workspace, 'node_modules/.bin/eslint');
  mkdirSync(path.dirname(eslint), { recursive: true });
  writeFileSync(eslint, `#!/bin/sh\n${script}\n`);
  chmodSync(eslint, 0o755);
  return workspace;
}

test("JavaScript with the workspace's eslint and config: --fix on the file, then what is left", async () => {
  // Like eslint: report an unused variable and exit 1, or print nothing and exit 0.
  const workspace = eslintWorkspace(
    [
      'echo "$@" > eslint-args.txt',
      'grep -q unused "$2" || exit 0',
      'printf "%s\\n" "$PWD/$2" "  1:7  error  \'unused\' is assigned a value but never used  no-unused-vars" "" "1 problem (1 error, 0 warnings)"',
      'exit 1',
    ].join('\n'),
    { 'bad.js': 'const unused = 1;\n', 'good.js': 'export const used = 1;\n' },
  );
  const bad = await lintFile(shell, workspace, 'bad.js');
  expect(bad?.linter).toBe('eslint');
  expect(bad?.errors).toBe(
    `${workspace}/bad.js\n  1:7  error  'unused' is assigned a value but never used  no-unused-vars\n\n1 problem (1 error, 0 warnings)`,
  );
  expect(readFileSync(path.join(workspace, 'eslint-args.txt'), 'utf8')).toBe('--fix bad.js\n');
  expect(await lintFile(shell, workspace, 'good.js')).toEqual({ linter: 'eslint', errors: undefined });
});

test('lint output past 2,000 chars is cut, and the tool result carries it under "LINT ERRORS (must fix)"', async () => {
  const report = Array.from({ length: 100 }, (_, n) => `app.js:${n + 1}:1  error  line ${n + 1} breaks a rule  rule-${n}`).join('\n');
  expect(report.length).toBeGreaterThan(4_000);
  const workspace = eslintWorkspace('cat lint-report.txt; exit 1', { 'lint-report.txt': `${report}\n` });
  const tools = createToolActivities({ shell });
  const outcome = await tools.createFile({ workspace, input: { path: 'app.js', content: 'export const x = 1;\n' } });
  const capped = `${report.slice(0, 2_000)}\n… [truncated: ${report.length - 2_000} more characters]`;
  expect(outcome.lintErrors).toBe(capped);
  expect(outcome.content).toBe(`created app.js (1 lines)\n\nLINT ERRORS (must fix) from eslint:\n${capped}`);
  expect(outcome.isError).toBe(false);
});
