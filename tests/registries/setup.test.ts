import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { prepareTaskEnvironment } from '../../src/activities/environment/prepare-environment.js';
import { stopEnvironment } from '../../src/activities/environment/task-environments.js';
import { startTaskBranch, finishTaskBranch } from '../../src/activities/git/task-branch.js';
import type { CommandAccess } from '../../src/activities/process/sandbox.js';
import { startNpmRegistry, type NpmRegistry } from '../support/npm-registry.js';
import { startPythonIndex } from '../support/python-index.js';
import { sandboxedShell } from '../support/sandbox.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

/**
 * `setup` in codeloop.json against a real npm registry on the worker's loopback, through the task's network list:
 * the task installs its own dependencies in its worktree, adds one, and the checkout's own never change.
 */

let registry: NpmRegistry;
const shell = sandboxedShell();

beforeAll(async () => {
  registry = await startNpmRegistry();
  for (const version of ['1.0.0', '1.1.0'])
    registry.publish({
      'package.json': JSON.stringify({ name: 'tiny-dep', version, main: 'index.js' }),
      'index.js': `module.exports = () => '${version}';\n`,
    });
}, 60_000);
afterAll(() => registry?.stop());

/** A Node project whose lock resolves `tiny-dep` from the registry; its checkout has a node_modules of its own. */
function nodeProject(): string {
  const repo = makeGitRepo({
    '.gitignore': 'node_modules\n.env.test\n',
    '.npmrc': `registry=${registry.url}/\n`,
    'package.json': JSON.stringify({
      name: 'app',
      version: '1.0.0',
      dependencies: { 'tiny-dep': '1.0.0' },
      scripts: { test: 'node test.js' },
    }),
    'test.js':
      "const v = require('tiny-dep')(); if (!v.startsWith('1.')) process.exit(1); console.log('tiny-dep', v, process.env.APP_SECRET ?? 'no env file');\n",
    'codeloop.json': JSON.stringify({ setup: ['npm ci --no-audit --no-fund'], files: ['.env.test', 'missing.json'] }),
  });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--registry', `${registry.url}/`], { cwd: repo, stdio: 'pipe' });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'lock', '--allow-empty'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'package-lock.json'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'lock'], { cwd: repo });
  writeFileSync(path.join(repo, '.env.test'), 'APP_SECRET=from-the-checkout\n');
  writeFileSync(path.join(repo, 'node_modules', 'checkout-marker.txt'), 'the checkout’s own\n');
  return repo;
}

test('setup installs the task’s own dependencies through the network list; the task adds one; the checkout’s stay as they were', async () => {
  const repo = nodeProject();
  const before = readdirSync(path.join(repo, 'node_modules')).sort();
  const started = await startTaskBranch({ workspace: repo, taskId: 'setup-npm' });
  if (started.inPlace) throw new Error('expected a branch');
  const key = `setup-npm-${process.pid}-${Date.now()}`;
  try {
    const report = await prepareTaskEnvironment(shell, { workspace: started.workspace, network: [registry.host], env: [], key });
    expect(report.failed).toBeUndefined();
    expect(report.dependencies).toBe('own');
    expect(report.setup.map((step) => [step.command, step.exitCode])).toEqual([['npm ci --no-audit --no-fund', 0]]);
    expect(report.files).toEqual({ copied: ['.env.test'], missing: ['missing.json'] });
    expect(existsSync(path.join(started.worktree, 'node_modules', 'tiny-dep', 'index.js'))).toBe(true);

    const access: CommandAccess = { network: [registry.host], env: [], dependencies: 'own', environment: { key } };
    const tests = await shell('set -a; . ./.env.test; npm test --silent', { workspace: started.workspace, timeoutMs: 60_000, access });
    expect(tests.output).toContain('tiny-dep 1.0.0 from-the-checkout');
    const added = await shell('npm install --no-audit --no-fund tiny-dep@1.1.0', {
      workspace: started.workspace,
      timeoutMs: 120_000,
      access,
    });
    expect(added.exitCode).toBe(0);
    const end = await finishTaskBranch({ ...started, message: 'add tiny-dep 1.1.0', always: true });
    expect(end.commits).toBe(1);
    expect(JSON.parse(fileOnBranch(repo, started.branch, 'package.json')!).dependencies['tiny-dep']).toBe('^1.1.0');
    expect(fileOnBranch(repo, started.branch, 'package-lock.json')).toContain('tiny-dep/-/tiny-dep-1.1.0.tgz');
    // Neither the task's node_modules nor the copied .env.test is in any commit.
    expect(execFileSync('git', ['ls-tree', '-r', '--name-only', started.branch], { cwd: repo, encoding: 'utf8' })).not.toMatch(
      /node_modules|\.env\.test/,
    );
  } finally {
    await stopEnvironment(key);
  }
  expect(readdirSync(path.join(repo, 'node_modules')).sort()).toEqual(before);
  expect(readFileSync(path.join(repo, 'node_modules', 'tiny-dep', 'index.js'), 'utf8')).toContain("'1.0.0'");
}, 240_000);

test('a setup command that fails stops setup and says which, with the tail of its output', async () => {
  const repo = makeGitRepo({
    'codeloop.json': JSON.stringify({ setup: ['echo preparing', 'echo broken install >&2; exit 3', 'echo never'] }),
  });
  const started = await startTaskBranch({ workspace: repo, taskId: 'setup-fails' });
  if (started.inPlace) throw new Error('expected a branch');
  const report = await prepareTaskEnvironment(shell, { workspace: started.workspace, network: 'off', env: [], key: `fails-${Date.now()}` });
  expect(report.setup.map((step) => step.exitCode)).toEqual([0, 3]);
  expect(report.failed).toMatchObject({ command: 'echo broken install >&2; exit 3', exitCode: 3 });
  expect(report.failed?.output).toContain('broken install');
});

test('codeloop.json may narrow the network the task was given, never widen it', async () => {
  const widen = makeGitRepo({ 'codeloop.json': JSON.stringify({ network: 'on' }) });
  expect((await prepareTaskEnvironment(shell, { workspace: widen, network: 'off', env: [], key: `w-${Date.now()}` })).network).toBe('off');
  const narrow = makeGitRepo({ 'codeloop.json': JSON.stringify({ network: ['registry.npmjs.org', 'evil.example'] }) });
  const given = ['registry.npmjs.org', 'pypi.org'];
  expect((await prepareTaskEnvironment(shell, { workspace: narrow, network: given, env: [], key: `n-${Date.now()}` })).network).toEqual([
    'registry.npmjs.org',
  ]);
});

test('a Python src layout: setup makes a virtualenv and installs the project editable from the loopback index; its tests import the worktree’s code', async () => {
  const index = await startPythonIndex();
  try {
    index.addWheel('tinycalc', '1.0', 'def double(x):\n    return 2 * x\n');
    const repo = makeGitRepo({
      '.gitignore': '.venv\n',
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=64", "wheel"]\nbuild-backend = "setuptools.build_meta"\n\n' +
        '[project]\nname = "app"\nversion = "0.1"\ndependencies = ["tinycalc"]\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
      'src/app/__init__.py': 'from tinycalc import double\n\ndef quadruple(x):\n    return double(double(x))\n',
      'tests/test_app.py': 'from app import quadruple\n\ndef test_quadruple():\n    assert quadruple(2) == 8\n',
      'codeloop.json': JSON.stringify({
        setup: ['python3 -m venv --system-site-packages .venv', `.venv/bin/pip install -q -e . --index-url ${index.url}`],
      }),
    });
    const started = await startTaskBranch({ workspace: repo, taskId: 'setup-pip' });
    if (started.inPlace) throw new Error('expected a branch');
    const key = `setup-pip-${process.pid}-${Date.now()}`;
    try {
      const report = await prepareTaskEnvironment(shell, { workspace: started.workspace, network: [index.host], env: [], key });
      expect(report.failed?.output).toBeUndefined();
      // The task's own change, in the worktree: the editable install runs it, not the checkout's.
      writeFileSync(
        path.join(started.worktree, 'src/app/__init__.py'),
        'from tinycalc import double\n\ndef quadruple(x):\n    return double(x)\n',
      );
      const access: CommandAccess = { network: [index.host], env: [], dependencies: 'own', environment: { key } };
      const tests = await shell('.venv/bin/python -m pytest -q', { workspace: started.workspace, timeoutMs: 60_000, access });
      expect(tests.output).toMatch(/assert 4 == 8/);
      expect(existsSync(path.join(repo, '.venv'))).toBe(false);
    } finally {
      await stopEnvironment(key);
    }
  } finally {
    await index.stop();
  }
}, 240_000);
