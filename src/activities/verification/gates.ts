import { existsSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { SandboxMode } from '../../shared/command-access.js';
import { DEFAULT_CHECK_SECONDS, type GateSpec } from '../../shared/gates.js';
import { dependencyDir } from '../dependency-links.js';
import { findExecutable } from '../process/find-executable.js';
import { asRecord, readPackageManifest } from '../tech-stack.js';
import { pytestSetting } from '../tools/pytest-config.js';
import { IGNORED_DIRECTORIES } from '../tools/ignored-paths.js';
import { compiledTestCommand, detectTestCommand } from '../tools/run-tests.js';
import { readWorkspaceConfig } from './workspace-config.js';

/**
 * The gates a finished task must pass: the workspace's `codeloop.json` gates when it has them, otherwise what its
 * manifests show: tests, lint, type check, build; for a Go module `go vet` and `go test`, for a Rust crate `cargo
 * build` (tests included, so a test that no longer compiles fails it) and `cargo test`.
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
  const compiled = compiledTestCommand(workspace);
  if (compiled?.startsWith('go ')) add('vet', 'go vet ./...');
  if (compiled?.startsWith('cargo ')) add('build', 'cargo build --all-targets');
  const tests = detectTestCommand(workspace, packageJson, config.test, sandboxMode);
  if (tests && (config.test?.command || tests.startsWith('npm') || tests === compiled || hasPythonTests(workspace))) {
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
  const configured = pytestSetting(workspace, 'testpaths') ?? [];
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
