import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMAND_OUTPUT_CHARS, COMMAND_TIMEOUT } from '../../shared/constants.js';
import type { ToolInput } from '../../shared/tools.js';
import type { ToolOutcome } from './tool-outcome.js';
import { describeRun, type WorkspaceShell } from './run-command.js';
import { resolveInWorkspace } from './workspace-path.js';
import { observe } from './tool-outcome.js';

const TRACEBACK_LINES = 50;

/** The command that runs a workspace's tests: `npm test` when package.json defines it, else pytest. */
export function detectTestCommand(workspace: string): string | undefined {
  const packageJson = path.join(workspace, 'package.json');
  if (existsSync(packageJson)) {
    const script = (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts?: Record<string, string> }).scripts?.test;
    if (script && !script.includes('no test specified')) return 'npm test --silent --';
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
    const base = detectTestCommand(workspace);
    if (!base) {
      return { content: 'no test runner found: add a "test" script to package.json or pytest tests', isError: true };
    }
    const target = input.test_path ? ` ${quote(resolveInWorkspace(workspace, input.test_path).relative)}` : '';
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
 * The first failure in pytest, vitest, jest or node:test output, plus the runner's summary line. Falls back to the
 * output's tail when no failure marker is recognised.
 */
export function firstFailure(output: string): string {
  const lines = output.split(/\r?\n/);
  const pytestHeader = lines.findIndex((line) => /^_{3,} .+ _{3,}$/.test(line));
  let start = pytestHeader;
  if (start === -1) start = lines.findIndex((line) => /(^|\s)(FAIL|✗|×|✕|not ok)\s/.test(line) || /^\s*●\s/.test(line));
  const summary = lines.filter((line) => /\b\d+ (failed|passed)\b|Tests?:?\s+\d+ failed|# fail \d+/.test(line)).slice(-2);
  if (start === -1) return [...lines.slice(-TRACEBACK_LINES)].join('\n');
  let end = Math.min(lines.length, start + TRACEBACK_LINES);
  if (pytestHeader !== -1) {
    const next = lines.findIndex((line, index) => index > start && /^_{3,} .+ _{3,}$|^={3,}/.test(line));
    if (next !== -1) end = Math.min(end, next);
  }
  return [...lines.slice(start, end), ...(summary.length ? ['…', ...summary] : [])].join('\n');
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
