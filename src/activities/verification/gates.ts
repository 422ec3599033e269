import { existsSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { COMMAND_OUTPUT_CHARS } from '../../shared/constants.js';
import { DEFAULT_CHECK_SECONDS, type GateResult, type GateSpec } from '../../shared/gates.js';
import { truncateMiddle } from '../../text/truncate.js';
import type { SandboxMode } from '../../shared/command-access.js';
import { dependencyDir } from '../dependency-links.js';
import { findExecutable } from '../process/find-executable.js';
import { asRecord, readManifest, readPackageManifest } from '../tech-stack.js';
import { IGNORED_DIRECTORIES } from '../tools/ignored-paths.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { detectTestCommand } from '../tools/run-tests.js';
import { failuresIn, firstFailure } from '../tools/test-report.js';
import { readWorkspaceConfig } from './workspace-config.js';

/**
 * The gates a finished task must pass: the workspace's `codeloop.json` gates when it has them, otherwise what its
 * manifests show: tests, lint, type check, build.
 */
export function detectGates(workspace: string, sandboxMode?: SandboxMode): GateSpec[] {
  const config = readWorkspaceConfig(workspace);
  const seconds = config.gateTimeoutSeconds ?? DEFAULT_CHECK_SECONDS;
  if (config.gates) return config.gates.map((gate) => ({ ...gate, timeoutSeconds: gate.timeoutSeconds ?? seconds }));
  const gates: GateSpec[] = [];
  const add = (name: string, command: string, timeoutSeconds = seconds) => gates.push({ name, command, timeoutSeconds });
  const packageJson = readPackageManifest(workspace);
  if (packageJson.state === 'read') {
    const scripts = asRecord(packageJson.manifest.scripts) ?? {};
    if (scripts.lint) add('lint', 'npm run lint --silent');
    if (scripts.typecheck) add('typecheck', 'npm run typecheck --silent');
    else if (
      existsSync(path.join(workspace, 'tsconfig.json')) &&
      existsSync(path.join(dependencyDir(workspace, 'node_modules', sandboxMode), '.bin/tsc'))
    ) {
      add('typecheck', 'node_modules/.bin/tsc --noEmit');
    }
    if (scripts.build) add('build', 'npm run build --silent');
  }
  const python = ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'].some((name) => existsSync(path.join(workspace, name)));
  if (python) {
    const ruff = findExecutable('ruff', [path.join(dependencyDir(workspace, '.venv', sandboxMode), 'bin/ruff')]);
    if (ruff) add('ruff', `${ruff} check --no-fix --output-format concise .`);
  }
  const tests = detectTestCommand(workspace, packageJson, config.test, sandboxMode);
  if (tests && (config.test?.command || tests.startsWith('npm') || hasPythonTests(workspace))) {
    add('tests', tests.replace(/ --$/, ''), config.test?.timeoutSeconds ?? seconds);
  }
  return gates;
}

/**
 * Whether the project has Python tests pytest would collect: the `testpaths` its pytest configuration names
 * (pytest.ini, tox.ini, setup.cfg, pyproject.toml), or `test_*.py` / `*_test.py` files in the usual places and
 * layouts (the top level, tests/, test/, testing/, spec/, and packages' own tests/ under src/), a few levels deep.
 */
function hasPythonTests(workspace: string): boolean {
  const configured = pytestTestpaths(workspace);
  if (configured.some((dir) => existsSync(path.join(workspace, dir)))) return true;
  return hasTestFile(workspace, 3);
}

const looksLikePythonTest = (name: string) => /^test_.*\.py$|_test\.py$/.test(name);

function hasTestFile(dir: string, depth: number): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((entry) => entry.isFile() && looksLikePythonTest(entry.name))) return true;
  if (depth === 0) return false;
  return entries.some(
    (entry) =>
      entry.isDirectory() &&
      !entry.name.startsWith('.') &&
      !IGNORED_DIRECTORIES.includes(entry.name) &&
      hasTestFile(path.join(dir, entry.name), depth - 1),
  );
}

/** `testpaths` from the first pytest configuration that sets it, as pytest reads them. */
function pytestTestpaths(workspace: string): string[] {
  const read = (name: string) => {
    const text = readManifest(path.join(workspace, name));
    return typeof text === 'string' ? text : undefined;
  };
  for (const [file, section] of [
    ['pytest.ini', 'pytest'],
    ['pyproject.toml', 'tool.pytest.ini_options'],
    ['tox.ini', 'pytest'],
    ['setup.cfg', 'tool:pytest'],
  ] as const) {
    const text = read(file);
    const body = text && sectionBody(text, section);
    const value = body && /^\s*testpaths\s*=\s*(\[[^\]]*\]|.+)$/m.exec(body)?.[1];
    if (value)
      return value
        .replace(/[[\]"',]/g, ' ')
        .split(/\s+/)
        .filter(Boolean);
  }
  return [];
}

/** The lines of an INI or TOML `[section]`, up to the next section. */
function sectionBody(text: string, section: string): string | undefined {
  const start = text.split(/\r?\n/).findIndex((line) => line.trim() === `[${section}]`);
  if (start === -1) return undefined;
  const lines = text.split(/\r?\n/).slice(start + 1);
  const end = lines.findIndex((line) => /^\s*\[/.test(line));
  return (end === -1 ? lines : lines.slice(0, end)).join('\n');
}

/** Runs one gate; a failure is a result for the model, never a failed activity. */
export async function runGate(
  shell: WorkspaceShell,
  workspace: string,
  gate: GateSpec,
  /** The same gate's result from before the task: a failure that is no worse than it lets the task finish. */
  baseline?: GateResult,
): Promise<GateResult> {
  const result = await shell(gate.command, { workspace, timeoutMs: gate.timeoutSeconds * 1000 });
  const exited = result.exitCode === 0 && !result.timedOut;
  const output = result.output.trim();
  const common = {
    name: gate.name,
    command: gate.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
  };
  if (exited) return { ...common, passed: true, summary: truncateMiddle(output.split('\n').slice(-3).join('\n'), 500) };
  if (result.timedOut)
    return judged({ ...common, passed: false, summary: `timed out after ${gate.timeoutSeconds}s`, failures: ['timed out'] }, baseline);
  const missing = missingTool(result.exitCode, output);
  if (missing) {
    return {
      ...common,
      passed: true,
      unavailable: true,
      summary: `not run: ${missing} is not installed here, so this gate cannot say anything`,
    };
  }
  const summary = truncateMiddle(firstFailure(output), COMMAND_OUTPUT_CHARS);
  return judged({ ...common, passed: false, summary, failures: failuresIn(output) }, baseline);
}

/**
 * A failed gate against its run before the task: no worse when everything failing now was failing then, as often
 * (a finding that occurs once more than before is new).
 */
function judged(result: GateResult, baseline: GateResult | undefined): GateResult {
  if (!baseline) return result;
  const before = baseline.passed ? [] : (baseline.failures ?? []);
  const known = new Map<string, number>();
  for (const failure of before) known.set(failure, (known.get(failure) ?? 0) + 1);
  const newFailures = (result.failures ?? []).filter((failure) => {
    const left = known.get(failure) ?? 0;
    known.set(failure, left - 1);
    return left <= 0;
  });
  const noWorse = !baseline.passed && !baseline.unavailable && newFailures.length === 0;
  return {
    ...result,
    passed: noWorse,
    baseline: { passed: baseline.passed, failures: before },
    newFailures,
    summary: noWorse ? `failing as before the task, and nothing new: ${result.summary}` : result.summary,
  };
}

/**
 * The program a failed command could not find: the shell's words for it (`sh: 1: nub: not found`, `bash: line 1:
 * nub: command not found`), Python's (`No module named pytest`), or exit 127 alone.
 */
function missingTool(exitCode: number | undefined, output: string): string | undefined {
  const said = /:\s*([\w./-]+): (?:command )?not found/.exec(output) ?? /No module named ([\w.]+)/.exec(output);
  if (said) return said[1];
  return exitCode === 127 ? 'a program it runs' : undefined;
}
