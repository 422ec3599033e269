import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMAND_OUTPUT_CHARS } from '../../shared/constants.js';
import type { GateResult, GateSpec } from '../../shared/gates.js';
import { truncateMiddle } from '../../text/truncate.js';
import { findExecutable } from '../process/find-executable.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { detectTestCommand, firstFailure } from '../tools/run-tests.js';
import { readWorkspaceConfig } from './workspace-config.js';

const DEFAULT_GATE_SECONDS = 300;

/**
 * The gates a finished task must pass: the workspace's `codeloop.json` gates when it has them, otherwise what its
 * manifests show: tests, lint, type check, build.
 */
export function detectGates(workspace: string): GateSpec[] {
  const config = readWorkspaceConfig(workspace);
  if (config.gates) return config.gates;
  const gates: GateSpec[] = [];
  const add = (name: string, command: string) => gates.push({ name, command, timeoutSeconds: DEFAULT_GATE_SECONDS });
  const packageJson = path.join(workspace, 'package.json');
  if (existsSync(packageJson)) {
    const scripts = (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
    if (scripts.lint) add('lint', 'npm run lint --silent');
    if (scripts.typecheck) add('typecheck', 'npm run typecheck --silent');
    else if (existsSync(path.join(workspace, 'tsconfig.json')) && existsSync(path.join(workspace, 'node_modules/.bin/tsc'))) {
      add('typecheck', 'node_modules/.bin/tsc --noEmit');
    }
    if (scripts.build) add('build', 'npm run build --silent');
  }
  const python = ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'].some((name) => existsSync(path.join(workspace, name)));
  if (python) {
    const ruff = findExecutable('ruff', [path.join(workspace, '.venv/bin/ruff')]);
    if (ruff) add('ruff', `${ruff} check .`);
  }
  const tests = detectTestCommand(workspace);
  if (tests && (tests.startsWith('npm') || hasPythonTests(workspace))) add('tests', tests.replace(/ --$/, ''));
  return gates;
}

function hasPythonTests(workspace: string): boolean {
  const looksLikeTest = (name: string) => /^test_.*\.py$|_test\.py$/.test(name);
  const top = readdirSync(workspace);
  if (top.some(looksLikeTest)) return true;
  return ['tests', 'test'].some(
    (dir) => existsSync(path.join(workspace, dir)) && readdirSync(path.join(workspace, dir)).some(looksLikeTest),
  );
}

/** Runs one gate; a failure is a result for the model, never a failed activity. */
export async function runGate(shell: WorkspaceShell, workspace: string, gate: GateSpec): Promise<GateResult> {
  const result = await shell(gate.command, { workspace, timeoutMs: gate.timeoutSeconds * 1000 });
  const passed = result.exitCode === 0 && !result.timedOut;
  const output = result.output.trim();
  const summary = passed
    ? truncateMiddle(output.split('\n').slice(-3).join('\n'), 500)
    : result.timedOut
      ? `timed out after ${gate.timeoutSeconds}s`
      : truncateMiddle(firstFailure(output), COMMAND_OUTPUT_CHARS);
  return {
    name: gate.name,
    command: gate.command,
    passed,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    summary,
  };
}
