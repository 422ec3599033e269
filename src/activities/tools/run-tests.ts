import { existsSync } from 'node:fs';
import path from 'node:path';
import { COMMAND_OUTPUT_CHARS, COMMAND_TIMEOUT } from '../../shared/constants.js';
import type { ToolInput } from '../../shared/tools.js';
import { asRecord, readPackageManifest, type PackageManifest } from '../tech-stack.js';
import type { ToolOutcome } from './tool-outcome.js';
import { describeRun, shellQuote, type WorkspaceShell } from './run-command.js';
import { resolveInWorkspace } from './workspace-path.js';
import { observe, refuse } from './tool-outcome.js';

const TRACEBACK_LINES = 50;

/**
 * The command that runs a workspace's tests: `npm test` when package.json defines it, else pytest. A package.json
 * that cannot be read defines no script here; `run_tests` says why before it gets this far.
 */
export function detectTestCommand(workspace: string, packageJson: PackageManifest = readPackageManifest(workspace)): string | undefined {
  if (packageJson.state === 'read') {
    const script = asRecord(packageJson.manifest.scripts)?.test;
    if (typeof script === 'string' && script && !script.includes('no test specified')) return 'npm test --silent --';
  }
  const python = ['pyproject.toml', 'pytest.ini', 'setup.cfg', 'setup.py', 'tox.ini', 'tests', 'test'].some((name) =>
    existsSync(path.join(workspace, name)),
  );
  if (!python) return undefined;
  const venvPython = ['.venv/bin/python', 'venv/bin/python'].map((p) => path.join(workspace, p)).find(existsSync);
  return `${venvPython ?? 'python3'} -m pytest -q`;
}

/**
 * `run_tests`: without `verbose`, a failing run shows the first failing test and at most 50 lines of its
 * traceback, which is what the model needs to fix it and no more.
 */
export async function runWorkspaceTests(shell: WorkspaceShell, workspace: string, input: ToolInput<'run_tests'>): Promise<ToolOutcome> {
  return observe(async () => {
    const packageJson = readPackageManifest(workspace);
    if (packageJson.state === 'unreadable') {
      refuse(`package.json cannot be read: ${packageJson.problem}; fix it so run_tests can find the "test" script`);
    }
    const base = detectTestCommand(workspace, packageJson);
    if (!base) {
      return { content: 'no test runner found: add a "test" script to package.json or pytest tests', isError: true };
    }
    const target = input.test_path ? ` ${shellQuote(testTarget(workspace, input.test_path))}` : '';
    const command = `${base}${target}`;
    const result = await shell(command, { workspace, timeoutMs: COMMAND_TIMEOUT.maxSeconds * 1000 });
    const passed = result.exitCode === 0;
    if (input.verbose || passed || result.timedOut) {
      return { content: describeRun(command, result, passed ? 1_500 : COMMAND_OUTPUT_CHARS), isError: !passed };
    }
    return { content: describeRun(command, { ...result, output: firstFailure(result.output) }, COMMAND_OUTPUT_CHARS), isError: true };
  });
}

/**
 * `test_path` as a path inside the workspace that no runner can read as an option: one starting with `-` is refused
 * (pytest's `--basetemp=DIR` deletes DIR), and the resolved path goes to the runner as `./relative`.
 */
function testTarget(workspace: string, testPath: string): string {
  if (testPath.startsWith('-'))
    refuse(`test_path ${testPath} looks like an option; pass a file or directory in the workspace, e.g. tests/test_app.py`);
  const { relative } = resolveInWorkspace(workspace, testPath);
  return relative === '.' ? '.' : `./${relative}`;
}

/**
 * Where each runner's failure report starts, most specific first: pytest's `___ test ___` header, jest's `●`,
 * vitest's `FAIL file > test`, TAP's `not ok` (node:test), then any failure mark in a result list.
 */
const FAILURE_STARTS = [/^_{3,} .+ _{3,}$/, /^\s*●\s/, /^\s*FAIL\s.*\s>\s/, /^\s*not ok\s/, /(^|\s)(FAIL|✗|×|✕)\s/];

/**
 * The first failure in pytest, vitest, jest or node:test output, up to where the next failure (or pytest's closing
 * rule, or TAP's next subtest) starts and at most 50 lines, plus the runner's summary line. Falls back to the output's
 * tail when no failure marker is recognised.
 */
export function firstFailure(output: string): string {
  const lines = output.split(/\r?\n/);
  const marker = FAILURE_STARTS.find((pattern) => lines.some((line) => pattern.test(line)));
  const summary = lines.filter((line) => /\b\d+ (failed|passed)\b|Tests?:?\s+\d+ failed|# fail \d+/.test(line)).slice(-2);
  if (!marker) return [...lines.slice(-TRACEBACK_LINES)].join('\n');
  const start = lines.findIndex((line) => marker.test(line));
  const next = lines.findIndex((line, index) => index > start && (marker.test(line) || /^={3,}|^\s*# Subtest:/.test(line)));
  const end = Math.min(next === -1 ? lines.length : next, start + TRACEBACK_LINES);
  return [...lines.slice(start, end), ...(summary.length ? ['…', ...summary] : [])].join('\n');
}
