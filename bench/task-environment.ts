import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareTaskEnvironment } from '../src/activities/environment/prepare-environment.js';
import { runInTaskEnvironment } from '../src/activities/environment/run-in-environment.js';
import { stopEnvironment } from '../src/activities/environment/task-environments.js';
import { startTaskBranch } from '../src/activities/git/task-branch.js';
import { worktreeStateDir } from '../src/activities/process/workspace-mounts.js';
import { createSandbox } from '../src/activities/process/sandbox.js';
import { startNpmRegistry } from '../tests/support/npm-registry.js';
import { sandboxedShell } from '../tests/support/sandbox.js';
import { makeGitRepo } from '../tests/support/workspace.js';
import { percentile, stamp, table, writeSection, type BenchEnv } from './harness.js';

const PACKAGES = 40;
const PACKAGE_KB = 256;
const DEPENDENCY_FILES = 20_000;
const RUNS = 20;

/**
 * What a task's environment costs, in one run: (1) the checkout's dependencies shown copy-on-write in a task
 * worktree, against read-only, per command and per task (time, and disk after a tool writes its cache), with a copy
 * by hard links as the alternative measured beside them; (2) `setup: ["npm ci"]` for the first and the second task of
 * one repository, with the shared package cache and without it, against a real registry (verdaccio) on loopback.
 */
export async function benchTaskEnvironment(_env: BenchEnv): Promise<void> {
  const rows = await writableDependencies();
  const setup = await setupWithCache();
  const markdown = `## Task environments: writable dependencies, and setup with a shared package cache

\`npm run bench -- environment\`, ${stamp()}.

**Writable dependencies.** A checkout with a \`node_modules\` of ${DEPENDENCY_FILES.toLocaleString('en-US')} files; a task's
worktree of it; \`node -e 1\` run ${RUNS} times each way, one way after the other (ms); the load average when it
ran: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores. Per task: the first command, which makes the
mount points, and the disk a tool's cache write takes (\`node_modules/.cache\`, 1 MB). The hard-link copy is what a
per-task copy would cost instead, made once per task.

${table(['dependencies in the worktree', 'per command p50', 'p95', 'per task', 'disk after a 1 MB cache write'], rows)}

**Setup with a shared cache.** ${PACKAGES} packages of ${PACKAGE_KB} KB each from verdaccio on loopback, reached through
the task's network list and proxy; \`npm ci\` as the repository's setup, in a first and then a second task's worktree
(s).

${table(['package cache', 'first task', 'second task'], setup)}
`;
  writeSection('65-task-environment', markdown);
  console.log(markdown);
}

async function writableDependencies(): Promise<(string | number)[][]> {
  const repo = makeGitRepo({ '.gitignore': 'node_modules\n' });
  for (let index = 0; index < DEPENDENCY_FILES; index += 1) {
    const dir = path.join(repo, 'node_modules', `pkg${Math.floor(index / 50)}`);
    if (index % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${index % 50}.js`), 'module.exports = 1;\n');
  }
  const sandboxes = { cow: createSandbox(process.env), ro: createSandbox(process.env, undefined, { overlays: false }) };
  const rows: (string | number)[][] = [];
  const times = { cow: [] as number[], ro: [] as number[] };
  const first: Record<string, number> = {};
  const disk: Record<string, string> = {};
  for (const mode of ['cow', 'ro'] as const) {
    const started = await startTaskBranch({ workspace: repo, taskId: `bench-deps-${mode}-${Date.now()}` });
    if (started.inPlace) throw new Error('expected a branch');
    const access = { network: 'off' as const, env: [], dependencies: 'checkout' as const };
    const run = async (command: string) => {
      const began = performance.now();
      await runInTaskEnvironment({
        command,
        cwd: started.workspace,
        timeoutMs: 60_000,
        env: process.env,
        sandbox: sandboxes[mode],
        access,
      });
      return performance.now() - began;
    };
    first[mode] = await run('true');
    for (let index = 0; index < RUNS; index += 1) times[mode].push(await run('node -e 1'));
    await run('mkdir -p node_modules/.cache && head -c 1048576 /dev/urandom > node_modules/.cache/blob || echo read-only');
    disk[mode] = execFileSync('du', ['-sh', worktreeStateDir(started.worktree)], { encoding: 'utf8' }).split('\t')[0];
  }
  const copy = mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-copy-'));
  const copyStarted = performance.now();
  execFileSync('cp', ['-al', path.join(repo, 'node_modules'), copy]);
  const copyMs = performance.now() - copyStarted;
  rows.push([
    'copy-on-write (overlay)',
    fixed(percentile(times.cow, 50)),
    fixed(percentile(times.cow, 95)),
    `${fixed(first.cow)} ms`,
    disk.cow,
  ]);
  rows.push([
    'read-only bind (no overlay)',
    fixed(percentile(times.ro, 50)),
    fixed(percentile(times.ro, 95)),
    `${fixed(first.ro)} ms`,
    `${disk.ro} (the write fails)`,
  ]);
  rows.push([
    'per-task copy by hard links',
    'as read-only',
    '',
    `${fixed(copyMs)} ms`,
    `${execFileSync('du', ['-sh', copy], { encoding: 'utf8' }).split('\t')[0]} (du counts the linked files; they share the checkout's blocks, and a write in place changes the checkout's file)`,
  ]);
  return rows;
}

async function setupWithCache(): Promise<(string | number)[][]> {
  const registry = await startNpmRegistry();
  const dependencies: Record<string, string> = {};
  for (let index = 0; index < PACKAGES; index += 1) {
    const name = `bench-pkg-${index}`;
    registry.publish({ 'package.json': JSON.stringify({ name, version: '1.0.0' }), 'blob.txt': 'x'.repeat(PACKAGE_KB * 1024) });
    dependencies[name] = '1.0.0';
  }
  const rows: (string | number)[][] = [];
  try {
    for (const cache of ['shared', 'off'] as const) {
      const sandbox = createSandbox({
        ...process.env,
        CODELOOP_PACKAGE_CACHE: cache === 'off' ? 'off' : mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-cache-')),
      });
      const shell = sandboxedShell(process.env, sandbox);
      const repo = makeGitRepo({
        '.gitignore': 'node_modules\n',
        '.npmrc': `registry=${registry.url}/\n`,
        'package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies }),
        'codeloop.json': JSON.stringify({ setup: ['npm ci --no-audit --no-fund --prefer-offline'] }),
      });
      execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--registry', `${registry.url}/`], {
        cwd: repo,
        stdio: 'pipe',
      });
      execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '-A'], { cwd: repo });
      execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'lock'], { cwd: repo });
      const seconds: string[] = [];
      for (const task of ['first', 'second']) {
        const started = await startTaskBranch({ workspace: repo, taskId: `bench-setup-${cache}-${task}` });
        if (started.inPlace) throw new Error('expected a branch');
        const key = `bench-setup-${cache}-${task}-${Date.now()}`;
        const began = performance.now();
        const report = await prepareTaskEnvironment(shell, { workspace: started.workspace, network: [registry.host], env: [], key });
        if (report.failed) throw new Error(`setup failed: ${report.failed.output}`);
        seconds.push(((performance.now() - began) / 1000).toFixed(1));
        await stopEnvironment(key);
      }
      rows.push([cache === 'shared' ? 'shared, per repository (the default)' : 'off (CODELOOP_PACKAGE_CACHE=off)', ...seconds]);
    }
  } finally {
    await registry.stop();
  }
  return rows;
}

const fixed = (ms: number) => ms.toFixed(0);
