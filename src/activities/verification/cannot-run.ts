import type { GateSpec } from '../../shared/gates.js';
import { asRecord, readPackageManifest } from '../tech-stack.js';
import { describeCollectionErrors, type CollectionError } from '../tools/collection-errors.js';
import { missingRunner } from '../tools/missing-runner.js';
import type { ProcessResult } from '../process/run-process.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { workingTestCommand } from '../tools/working-test-command.js';

/** Why a test gate ran no test at all, and what codeloop.json could say so that it does. */
export interface CannotRun {
  why: string;
  /** The fix, in words: the `"test"` (or `"setup"`) codeloop.json should hold. */
  fix?: string;
}

/**
 * Why a failed test gate that ran no test could not run, most telling first: npm's `pretest` script failing before
 * any test (run once more on its own to be sure), a runner the command or its script could not find (exit 127),
 * test files none of which could be collected, or, failing those, the output's last line. With the fix codeloop.json
 * can hold: `"test": {"hooks": false}` for a pretest, a command that works here for a missing runner.
 */
export async function cannotRun(
  shell: WorkspaceShell,
  workspace: string,
  gate: GateSpec,
  result: ProcessResult,
  errors: CollectionError[],
): Promise<CannotRun> {
  const pretest = await failingPretest(shell, workspace, gate);
  if (pretest) return pretest;
  const missing = missingRunner(gate.command, result);
  const command = workingTestCommand(workspace, missing?.name, shell.sandboxMode);
  const fix = command ? `set codeloop.json's "test" to ${JSON.stringify(command)}` : undefined;
  if (missing) return { why: `${missing.name} is not installed where the tests run (${missing.how})`, ...(fix ? { fix } : {}) };
  if (errors.length > 0) {
    const causes = describeCollectionErrors(errors).join('; ');
    return {
      why: `no test file could be collected: ${causes}`,
      fix: `install what the tests import with codeloop.json's "setup" (for instance "pip install -e .[test]")${command ? `, or ${fix}` : ''}`,
    };
  }
  const last = result.output.trim().split('\n').at(-1)?.trim() ?? '';
  return { why: `it ran no test${last ? ` (${last.slice(0, 200)})` : ''}`, ...(fix ? { fix } : {}) };
}

/** `npm test` with a `pretest` script that fails on its own: the tests never started. */
async function failingPretest(shell: WorkspaceShell, workspace: string, gate: GateSpec): Promise<CannotRun | undefined> {
  if (!/^npm (test|t|run test)\b/.test(gate.command.trim()) || gate.command.includes('--ignore-scripts')) return undefined;
  const manifest = readPackageManifest(workspace);
  const pretest = manifest.state === 'read' ? asRecord(manifest.manifest.scripts)?.pretest : undefined;
  if (typeof pretest !== 'string') return undefined;
  const run = await shell('npm run pretest --silent', { workspace, timeoutMs: gate.timeoutSeconds * 1000 });
  if (run.exitCode === 0 && !run.timedOut) return undefined;
  const first =
    run.output
      .trim()
      .split('\n')
      .find((line) => line.trim() !== '') ?? `exit ${run.exitCode}`;
  return {
    why: `its pretest script (\`${pretest}\`) fails before any test runs: ${first.trim().slice(0, 200)}`,
    fix: 'set codeloop.json\'s "test" to {"hooks": false}, which runs the tests without it',
  };
}

/** The reason and the fix in one line, for results and reports. */
export const describeCannotRun = ({ why, fix }: CannotRun) => (fix ? `${why}; fix: ${fix}` : why);
