import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { COMMAND_OUTPUT_CHARS } from '../../shared/constants.js';
import type { ToolInput } from '../../shared/tools.js';
import { asRecord, readPackageManifest, type PackageManifest } from '../tech-stack.js';
import type { ToolOutcome } from './tool-outcome.js';
import { describeEnding, describeRun, shellQuote, type WorkspaceShell } from './run-command.js';
import { resolveInWorkspace } from './workspace-path.js';
import { observe, refuse } from './tool-outcome.js';
import { countLine, failingTests, firstFailure, splitByBaseline } from './test-report.js';
import { describeMissingRunner, missingRunner } from './missing-runner.js';
import { runTestCommand } from './test-command.js';
import { sourcePathPrefix, testPython, usesUnittest } from './python-suite.js';
import { makeTarget, unittestCommand } from './working-test-command.js';
import { findExecutable } from '../process/find-executable.js';
import { DEFAULT_CHECK_SECONDS, type WorkspaceConfig } from '../../shared/gates.js';
import type { SandboxMode } from '../../shared/command-access.js';
import { readWorkspaceConfig } from '../verification/workspace-config.js';

/**
 * The command that runs a workspace's tests: `codeloop.json`'s `test.command`; else `npm test` when package.json
 * defines it (without its pre/post hooks under `test.hooks: false`); else `go test ./...` for a Go module and `cargo
 * test` for a Rust crate; else pytest, or, for a unittest suite where pytest is not installed, the makefile's `test`
 * target or `python -m unittest`. A package.json that cannot be read defines no script here; `run_tests` says why
 * before it gets this far.
 */
export function detectTestCommand(
  workspace: string,
  packageJson: PackageManifest = readPackageManifest(workspace),
  config: WorkspaceConfig['test'] = readWorkspaceConfig(workspace).test,
  sandboxMode?: SandboxMode,
): string | undefined {
  if (config?.command) return config.command;
  if (packageJson.state === 'read') {
    const script = asRecord(packageJson.manifest.scripts)?.test;
    if (typeof script === 'string' && script && !script.includes('no test specified')) {
      return `npm test --silent${config?.hooks === false ? ' --ignore-scripts' : ''} --`;
    }
  }
  const compiled = compiledTestCommand(workspace);
  if (compiled) return compiled;
  const python = ['pyproject.toml', 'pytest.ini', 'setup.cfg', 'setup.py', 'tox.ini', 'tests', 'test', 'testing'].some((name) =>
    existsSync(path.join(workspace, name)),
  );
  if (!python) return undefined;
  if (usesUnittest(workspace) && !hasPytest(workspace, sandboxMode)) {
    return makeTarget(workspace, 'test') ? 'make test' : `${sourcePathPrefix(workspace)}${unittestCommand(workspace, sandboxMode)}`;
  }
  return `${sourcePathPrefix(workspace)}${testPython(workspace, sandboxMode)} -m pytest -q`;
}

/** `go test ./...` for a Go module, `cargo test` for a Rust crate (or workspace), by the manifest at the top. */
export function compiledTestCommand(workspace: string): string | undefined {
  if (existsSync(path.join(workspace, 'go.mod'))) return 'go test ./...';
  if (existsSync(path.join(workspace, 'Cargo.toml'))) return 'cargo test';
  return undefined;
}

/** Whether pytest is there for the tests' Python: in the workspace's virtualenv when it has one, else on `PATH`. */
function hasPytest(workspace: string, sandboxMode?: SandboxMode): boolean {
  const python = testPython(workspace, sandboxMode);
  if (python === 'python3') return findExecutable('pytest') !== undefined;
  const lib = path.join(path.dirname(path.dirname(python)), 'lib');
  try {
    return readdirSync(lib).some((version) => existsSync(path.join(lib, version, 'site-packages/pytest')));
  } catch {
    return false;
  }
}

/**
 * `run_tests`: without `verbose`, a failing run lists the failing tests, the ones that are new against
 * `knownFailures` (what failed before the task) first, then the first new failure's report (at most 50 lines of
 * traceback) and a count of the ones that were there before. A run whose failures were all there before the task is
 * not an error: nothing the task did broke.
 */
export async function runWorkspaceTests(
  shell: WorkspaceShell,
  workspace: string,
  input: ToolInput<'run_tests'>,
  knownFailures: readonly string[] = [],
): Promise<ToolOutcome> {
  return observe(async () => {
    const packageJson = readPackageManifest(workspace);
    if (packageJson.state === 'unreadable') {
      refuse(`package.json cannot be read: ${packageJson.problem}; fix it so run_tests can find the "test" script`);
    }
    let config: WorkspaceConfig['test'];
    try {
      config = readWorkspaceConfig(workspace).test;
    } catch (error) {
      refuse(`${(error as Error).message}; fix it so run_tests knows how to run the tests`);
    }
    const base = detectTestCommand(workspace, packageJson, config, shell.sandboxMode);
    if (!base) {
      return {
        content: 'no test runner found: add a "test" script to package.json, pytest tests, or "test": "<command>" to codeloop.json',
        isError: true,
      };
    }
    const target = input.test_path ? ` ${shellQuote(testTarget(workspace, input.test_path))}` : '';
    const run = await runTestCommand(shell, workspace, `${base}${target}`, (config?.timeoutSeconds ?? DEFAULT_CHECK_SECONDS) * 1000);
    const { command, result } = run;
    const notes = run.notes.length ? `\n\n${run.notes.join('\n\n')}` : '';
    const passed = result.exitCode === 0 && !result.timedOut;
    if (passed && !input.verbose)
      return { content: `$ ${command}\n${describeEnding(result)}: ${countLine(result.output)}${notes}`, isError: false };
    if (input.verbose || passed || result.timedOut) {
      return { content: describeRun(command, result, COMMAND_OUTPUT_CHARS) + notes, isError: !passed };
    }
    const missing = missingRunner(command, result);
    if (missing) {
      const why = describeMissingRunner(workspace, missing);
      return { content: `${describeRun(command, result, COMMAND_OUTPUT_CHARS)}\n\n${why}${notes}`, isError: true };
    }
    const report = describeFailures(result.output, knownFailures);
    return { content: describeRun(command, { ...result, output: report.text }, COMMAND_OUTPUT_CHARS) + notes, isError: !report.noWorse };
  });
}

const LISTED_FAILURES = 20;

/** The failing tests, new ones first, and the report of the first new one (or of the first failure). */
function describeFailures(output: string, knownFailures: readonly string[]): { text: string; noWorse: boolean } {
  const failing = failingTests(output);
  if (failing.length === 0) return { text: firstFailure(output), noWorse: false };
  const { fresh, before } = splitByBaseline(failing, knownFailures);
  const noWorse = before.length > 0 && fresh.length === 0;
  const list = (ids: string[], label: string) =>
    ids.length === 0
      ? []
      : [
          `${label} (${ids.length}):`,
          ...ids.slice(0, LISTED_FAILURES).map((id) => `  ${id}`),
          ...(ids.length > LISTED_FAILURES ? ['  …'] : []),
        ];
  const heading = noWorse
    ? [`No new failures: the ${before.length} failing test(s) failed before the task too, so they are not yours to fix.`]
    : [
        ...list(fresh, before.length ? 'New failures, since the task started' : 'Failing tests'),
        ...(before.length ? [`${before.length} other failing test(s) failed before the task too: not yours to fix.`] : []),
      ];
  const first = fresh[0] ?? failing[0];
  return { text: [...heading, '', firstFailure(output, first)].join('\n'), noWorse };
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
