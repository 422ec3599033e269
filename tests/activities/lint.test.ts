import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { checkpointTask, startTaskBranch } from '../../src/activities/git/task-branch.js';
import { createSandbox } from '../../src/activities/process/sandbox.js';
import { createToolActivities } from '../../src/activities/tools/index.js';
import { lintFile } from '../../src/activities/verification/lint.js';
import { ensureRuff } from '../support/ruff.js';
import { sandboxedShell } from '../support/sandbox.js';
import { makeGitRepo, makeWorkspace } from '../support/workspace.js';

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

test("Python with the workspace's ruff: nothing is fixed, and an untracked file's findings are all the edit's", async () => {
  const source = 'import os\nimport sys\n\nprint(undefined_name)\n';
  const workspace = withRuff(makeWorkspace({ 'app.py': source }));
  const report = await lintFile(shell, workspace, 'app.py', '');
  expect(report?.linter).toBe('ruff');
  expect(report?.errors).toContain('app.py:4:7: F821 Undefined name `undefined_name`');
  expect(report?.errors).toContain('app.py:1:8: F401');
  expect(report?.preExisting).toBe(0);
  expect(readFileSync(path.join(workspace, 'app.py'), 'utf8')).toBe(source);
}, 120_000);

test('ruff: findings the committed file had are counted, not reported, however far the edit moved them', async () => {
  const committed = ['import os', 'import sys', '', 'def f(x):', '    return x', ''].join('\n');
  // Pyflakes only, so the figures do not move with ruff's default rule set.
  const workspace = withRuff(makeGitRepo({ 'app.py': committed, 'ruff.toml': '[lint]\nselect = ["F"]\n' }));
  // The edit adds lines above the unused imports (so they move) and a new undefined name.
  writeFileSync(path.join(workspace, 'app.py'), ['# Docs.', '', committed, 'print(missing)', ''].join('\n'));
  const report = await lintFile(shell, workspace, 'app.py', '');
  expect(report?.errors).toBe('app.py:9:7: F821 Undefined name `missing`');
  expect(report?.preExisting).toBe(2);
  const tools = createToolActivities({ shell });
  const outcome = await tools.editFile({
    workspace,
    input: { path: 'app.py', edits: [{ search: 'print(missing)', replace: 'print(f(1))' }] },
  });
  expect(outcome.lintErrors).toBeUndefined();
  expect(outcome.content).toContain(
    'ruff: nothing new. 2 other findings of ruff in this file were there before this task: not yours to fix.',
  );
}, 120_000);

test('TypeScript: the incremental checker reports what the edit broke, here and in other files, not what was broken', async () => {
  const workspace = makeGitRepo({
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true }, include: ['*.ts'] }),
    'area.ts': 'export function area(width: number, height: number): number {\n  return width * height;\n}\n',
    'room.ts': "import { area } from './area';\nexport const floor: number = area(3, 4);\n",
    'old.ts': 'export const broken: number = "x";\n',
  });
  // No node_modules at all: the checker is codeloop's own TypeScript.
  writeFileSync(
    path.join(workspace, 'area.ts'),
    'export function area(width: number, height: number): number {\n  return width * height;\n}\n',
  );
  expect(await lintFile(shell, workspace, 'area.ts')).toEqual({ linter: 'tsc (incremental)', errors: undefined, preExisting: 0 });
  writeFileSync(
    path.join(workspace, 'area.ts'),
    'export function area(size: { width: number; height: number }): number {\n  return size.width * size.height;\n}\n',
  );
  const broke = await lintFile(shell, workspace, 'area.ts');
  expect(broke?.errors).toMatch(/^room\.ts\(2,38\): error TS2554: Expected 1 arguments, but got 2\.$/);
  expect(broke?.errors).not.toContain('old.ts');
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

/** The pinned ruff, where a project keeps its own: `.venv/bin/ruff`. */
function withRuff(workspace: string): string {
  mkdirSync(path.join(workspace, '.venv/bin'), { recursive: true });
  symlinkSync(ensureRuff(), path.join(workspace, '.venv/bin/ruff'));
  return workspace;
}

/** A workspace with an eslint config and a stand-in `node_modules/.bin/eslint` running `script` (sh). */
function eslintWorkspace(script: string, files: Record<string, string> = {}): string {
  const workspace = makeWorkspace({ 'eslint.config.js': 'export default [];\n', ...files });
  const eslint = path.join(workspace, 'node_modules/.bin/eslint');
  mkdirSync(path.dirname(eslint), { recursive: true });
  writeFileSync(eslint, `#!/bin/sh\n${script}\n`);
  chmodSync(eslint, 0o755);
  return workspace;
}

test('eslint output that is not its JSON report is shown whole, and nothing is fixed', async () => {
  // Like eslint: report an unused variable and exit 1, or print nothing and exit 0.
  const workspace = eslintWorkspace(
    [
      'echo "$@" > eslint-args.txt',
      'grep -q unused "$3" || exit 0',
      'printf "%s\\n" "$PWD/$3" "  1:7  error  \'unused\' is assigned a value but never used  no-unused-vars" "" "1 problem (1 error, 0 warnings)"',
      'exit 1',
    ].join('\n'),
    { 'bad.js': 'const unused = 1;\n', 'good.js': 'export const used = 1;\n' },
  );
  const bad = await lintFile(shell, workspace, 'bad.js');
  expect(bad?.linter).toBe('eslint');
  expect(bad?.errors).toBe(
    `${workspace}/bad.js\n  1:7  error  'unused' is assigned a value but never used  no-unused-vars\n\n1 problem (1 error, 0 warnings)`,
  );
  expect(readFileSync(path.join(workspace, 'eslint-args.txt'), 'utf8')).toBe('--format json bad.js\n');
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

test("JavaScript with the workspace's real eslint: only the errors the change introduced, and the file left as written", async () => {
  const config =
    "export default [{ rules: { 'no-unused-vars': 'error', 'no-undef': 'error' }, languageOptions: { globals: { console: 'readonly' } } }];\n";
  const committed = 'const old = 1;\nconsole.log(2);\n';
  const workspace = makeGitRepo({ 'eslint.config.mjs': config, 'app.js': committed });
  mkdirSync(path.join(workspace, 'node_modules/.bin'), { recursive: true });
  symlinkSync(path.resolve('node_modules/eslint/bin/eslint.js'), path.join(workspace, 'node_modules/.bin/eslint'));
  const edited = `// header\n${committed}console.log(nowhere);\n`;
  writeFileSync(path.join(workspace, 'app.js'), edited);
  const report = await lintFile(shell, workspace, 'app.js');
  expect(report).toEqual({ linter: 'eslint', errors: "app.js:4:13: no-undef 'nowhere' is not defined.", preExisting: 1 });
  expect(readFileSync(path.join(workspace, 'app.js'), 'utf8')).toBe(edited);
}, 120_000);

test("in a task's branch, a finding the task made before a checkpoint is still the task's after it", async () => {
  const config = "export default [{ rules: { 'no-unused-vars': 'error' } }];\n";
  const repo = makeGitRepo({ 'eslint.config.mjs': config, 'app.js': 'const old = 1;\n' });
  // The checkout's dependencies, which the sandbox shows in the task's worktree.
  mkdirSync(path.join(repo, 'node_modules/.bin'), { recursive: true });
  symlinkSync(path.resolve('node_modules/eslint/bin/eslint.js'), path.join(repo, 'node_modules/.bin/eslint'));
  const started = await startTaskBranch({ workspace: repo, taskId: 'lint-start' });
  if (started.inPlace) throw new Error('expected a branch');
  const { worktree } = started;
  writeFileSync(path.join(worktree, 'app.js'), 'const old = 1;\nconst mine = 2;\n');
  const first = await lintFile(shell, worktree, 'app.js');
  expect(first).toMatchObject({ errors: "app.js:2:7: no-unused-vars 'mine' is assigned a value but never used.", preExisting: 1 });
  expect((await checkpointTask({ worktree, iteration: 1 })).commit).toBeDefined();
  writeFileSync(path.join(worktree, 'app.js'), '// iteration 2\nconst old = 1;\nconst mine = 2;\n');
  expect(await lintFile(shell, worktree, 'app.js')).toEqual({
    linter: 'eslint',
    errors: "app.js:3:7: no-unused-vars 'mine' is assigned a value but never used.",
    preExisting: 1,
  });
}, 120_000);

test('a rename across files: type errors are labelled as such, and the edit that finishes it says they are gone', async () => {
  const workspace = makeGitRepo({
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true }, include: ['*.ts'] }),
    'users.ts': 'export function getUsr(id: number): string {\n  return `user ${id}`;\n}\n',
    'report.ts': "import { getUsr } from './users';\nexport const line = getUsr(1);\n",
  });
  const tools = createToolActivities({ shell });
  const renamed = await tools.editFile({
    workspace,
    input: { path: 'users.ts', edits: [{ search: 'export function getUsr(', replace: 'export function getUser(' }] },
  });
  expect(renamed.content).toContain('TYPE ERRORS from tsc (incremental), to fix before you finish');
  expect(renamed.content).toContain("report.ts(1,10): error TS2724: '\"./users\"' has no exported member named 'getUsr'");
  expect(renamed.content).not.toContain('LINT ERRORS');
  const finished = await tools.editFile({
    workspace,
    input: {
      path: 'report.ts',
      edits: [
        {
          search: "import { getUsr } from './users';\nexport const line = getUsr(1);",
          replace: "import { getUser } from './users';\nexport const line = getUser(1);",
        },
      ],
    },
  });
  expect(finished.lintErrors).toBeUndefined();
  expect(finished.content).toMatch(/\n\ntsc \(incremental\): clean again; the errors the last check found are gone\.( |$)/);
  const again = await tools.editFile({
    workspace,
    input: { path: 'report.ts', edits: [{ search: 'getUser(1)', replace: 'getUser(2)' }] },
  });
  expect(again.content).not.toContain('clean again');
}, 60_000);
