import { COMMAND_OUTPUT_CHARS } from '../../shared/constants.js';
import type { GateResult, GateSpec } from '../../shared/gates.js';
import { truncateMiddle } from '../../text/truncate.js';
import { collectionErrors, describeCollectionErrors } from '../tools/collection-errors.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { couldNotStart } from '../tools/missing-runner.js';
import { runTestCommand } from '../tools/test-command.js';
import { workingTestCommand } from '../tools/working-test-command.js';
import { cannotRun, describeCannotRun } from './cannot-run.js';
import { countLine, failingTests, failuresIn, firstFailure, splitByBaseline } from '../tools/test-report.js';

/**
 * Runs one gate; a failure is a result for the model, never a failed activity. A gate whose own program cannot
 * start is `unverified`, not passed: nothing checked the work.
 */
export async function runGate(
  shell: WorkspaceShell,
  workspace: string,
  gate: GateSpec,
  /** The same gate's result from before the task: a failure that is no worse than it lets the task finish. */
  baseline?: GateResult,
): Promise<GateResult> {
  const { command, result, notes } = await runTestCommand(shell, workspace, gate.command, gate.timeoutSeconds * 1000);
  const output = result.output.trim();
  const common = {
    name: gate.name,
    command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    ...(notes.length ? { notes } : {}),
  };
  if (result.exitCode === 0 && !result.timedOut) return { ...common, passed: true, summary: passingSummary(gate, output) };
  if (result.timedOut)
    return judged({ ...common, passed: false, summary: `timed out after ${gate.timeoutSeconds}s`, failures: ['timed out'] }, baseline);
  const notStarted = couldNotStart(gate.command, result);
  if (notStarted) {
    const better = workingTestCommand(workspace, notStarted, shell.sandboxMode);
    const why = `${notStarted} is not installed where the gates run${better ? `; fix: set codeloop.json's "test" to ${JSON.stringify(better)}` : ''}`;
    return { ...common, passed: false, unavailable: true, unverified: why, summary: `not run: ${why} (${firstLine(output)})` };
  }
  const errors = collectionErrors(output);
  const causes = describeCollectionErrors(errors);
  const failures = failuresIn(output);
  const nothingRan = isTestGate(gate) && !ranTests(output);
  const why = nothingRan ? describeCannotRun(await cannotRun(shell, workspace, gate, result, errors)) : undefined;
  const failed: GateResult = {
    ...common,
    passed: false,
    summary: output,
    failures,
    ...(causes.length ? { causes } : {}),
    ...(why ? { cannotRun: why } : {}),
  };
  return judged(failed, baseline);
}

const isTestGate = (gate: { name: string }) => /test/i.test(gate.name);

/** A passing test gate says how many tests ran; another gate, its last lines. */
function passingSummary(gate: GateSpec, output: string): string {
  if (isTestGate(gate)) return countLine(output);
  return truncateMiddle(output.split('\n').slice(-3).join('\n'), 500);
}

/**
 * A failed gate against its run before the task: no worse when everything failing now was failing then, as often
 * (a finding that occurs once more than before is new), matched by `failureKey` so renumbered pytest cases are the
 * same failures. The summary shows the first new failure's report, the one the model has to fix. A test gate that
 * ran no test, before or now, is no worse but says nothing: `unverified`.
 */
function judged(result: GateResult, baseline: GateResult | undefined): GateResult {
  const output = result.summary;
  if (!baseline) return { ...result, summary: truncateMiddle(firstFailure(output), COMMAND_OUTPUT_CHARS) };
  if (!baseline.passed && baseline.cannotRun !== undefined) return againstNothing(result, baseline, baseline.cannotRun);
  const before = baseline.passed ? [] : (baseline.failures ?? []);
  const { fresh: newFailures } = splitByBaseline(result.failures ?? [], before);
  const comparable = !baseline.passed && baseline.unverified === undefined && !baseline.unavailable;
  const noWorse = comparable && newFailures.length === 0;
  const report = truncateMiddle(firstFailure(output, newFailures[0]), COMMAND_OUTPUT_CHARS);
  const silent = noWorse && isTestGate(result) && !ranTests(output);
  return {
    ...result,
    passed: noWorse && !silent,
    ...(silent ? { unverified: 'it ran no test, before the task or now, so it cannot tell whether the work holds' } : {}),
    baseline: { passed: baseline.passed, failures: before },
    newFailures,
    summary: noWorse ? `failing as before the task, and nothing new: ${report}` : report,
  };
}

/**
 * A failed gate whose run before the task ran no test: nothing to be "no worse" than. Still unable to run, it is
 * `unverified` with the reason and the fix; having run tests now, each failure counts, as under strict gates.
 */
function againstNothing(result: GateResult, baseline: GateResult, why: string): GateResult {
  const report = truncateMiddle(firstFailure(result.summary), COMMAND_OUTPUT_CHARS);
  const common = { ...result, baseline: { passed: false, failures: baseline.failures ?? [] } };
  if (result.cannotRun !== undefined)
    return { ...common, unverified: `it could not run before the task, nor now: ${result.cannotRun}`, newFailures: [], summary: report };
  return {
    ...common,
    newFailures: result.failures ?? [],
    summary: `before the task it could not run (${why}); now it does, and fails: ${report}`,
  };
}

/**
 * Whether a test run got as far as running tests: it names a failing test (a file pytest or unittest could not
 * import is no test), or counts tests that passed or failed (go's `ok  pkg 0.01s`, cargo's `test result: ok. 3 passed`).
 */
function ranTests(output: string): boolean {
  const uncollected = (id: string) => /\.py$/.test(id) && !id.includes('::');
  const failing = failingTests(output);
  if (failing.some((id) => !uncollected(id))) return true;
  // unittest counts a module it could not import as a test that ran.
  const ran = Number(/^Ran (\d+) tests? in /m.exec(output)?.[1] ?? 0);
  if (ran > failing.length) return true;
  return /\b[1-9]\d* (passed|failed|failing|passing)\b|^# (pass|fail)\s+[1-9]|^ok\s+\S+\s+[\d.]+s$|^test result: \w+\. [1-9]/m.test(output);
}

const firstLine = (text: string) => text.split('\n')[0] ?? '';
