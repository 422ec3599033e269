import { gateVerdict, type GateResult, type GateSpec } from '../../shared/gates.js';
import { commandActivities, fileActivities } from '../common/activities.js';
import { countGateResult } from '../common/metrics.js';
import { onHost } from '../common/host-wait.js';
import type { ToolTarget } from '../common/tool-calls.js';

export interface VerifierCarry {
  gates?: GateSpec[];
  results: GateResult[];
  /** The gates' results before the task changed anything (`gates: "no-regressions"`). */
  baseline?: GateResult[];
}

/** The final gates: detected once per task on the workspace host, then each run as its own activity. */
export class Verifier {
  private gates?: GateSpec[];
  results: GateResult[];
  baseline?: GateResult[];

  constructor(carry?: VerifierCarry) {
    this.gates = carry?.gates;
    this.results = carry?.results ?? [];
    this.baseline = carry?.baseline;
  }

  /**
   * Runs the gates the workspace had when the task started (found when it was described) once, so the end can be
   * judged against what already failed. The final gates are detected again at the end: the task may have added some.
   */
  async recordBaseline(target: ToolTarget, gates: GateSpec[]): Promise<GateResult[]> {
    this.baseline = await this.runAll(target, gates, 'before the task');
    return this.baseline;
  }

  async run(target: ToolTarget): Promise<GateResult[]> {
    const summary = 'detect verification gates';
    this.gates ??= await onHost(target.hostWait, summary, (limit) =>
      fileActivities.detectGates.executeWithOptions({ taskQueue: target.hostQueue, summary, ...limit }, [target.workspace]),
    );
    this.results = await this.runAll(target, this.gates);
    return this.results;
  }

  private async runAll(target: ToolTarget, gates: GateSpec[], when?: string): Promise<GateResult[]> {
    const results: GateResult[] = [];
    for (const gate of gates) {
      const baseline = when ? undefined : this.baseline?.find((result) => result.name === gate.name);
      const summary = `verify ${gate.name}${when ? ` ${when}` : ''}: ${gate.command}`;
      results.push(
        await onHost(target.hostWait, summary, (limit) =>
          commandActivities.runVerification.executeWithOptions(
            { taskQueue: target.hostQueue, summary, startToCloseTimeout: `${gate.timeoutSeconds + 60} seconds`, ...limit },
            [{ workspace: target.workspace, gate, access: target.access, ...(baseline ? { baseline } : {}) }],
          ),
        ),
      );
    }
    for (const result of results) countGateResult(result, when ? 'baseline' : 'final');
    return results;
  }

  /**
   * The test ids the test gates (by name: `tests`, `unit-test`...) reported failing before the task: what `run_tests`
   * compares its failures with. Lint and build findings stay out: no test id matches them, and each `run_tests` call
   * carries this list.
   */
  knownFailures(): string[] {
    const failing = (this.baseline ?? [])
      .filter((result) => !result.passed && /test/i.test(result.name))
      .flatMap((result) => result.failures ?? []);
    return [...new Set(failing)];
  }

  carry(): VerifierCarry {
    return { gates: this.gates, results: this.results, ...(this.baseline ? { baseline: this.baseline } : {}) };
  }
}

/**
 * What the agent is told when the task starts with gates that already fail (they are not its to fix) or cannot run
 * here, and how codeloop had to adjust a command so that it runs at all. Files a suite could not collect are named
 * once per cause, by the exception that stopped them.
 */
export function describeBaseline(results: GateResult[]): string | undefined {
  const lines = results.flatMap((result) => {
    const verdict = gateVerdict(result);
    const head = `- ${result.name} (\`${result.command}\`)`;
    const notes = (result.notes ?? []).map((note) => `  ${note.replace(/\n/g, '\n  ')}`);
    if (verdict === 'unverified')
      return [`${head} cannot say anything here: ${result.unverified ?? 'its program is not installed'}`, ...notes];
    if (verdict === 'passed') return notes.length ? [`${head} passes`, ...notes] : [];
    if (result.cannotRun !== undefined)
      return [`${head} cannot run here, so the end cannot be compared with the start: ${result.cannotRun}`, ...notes];
    const causes = (result.causes ?? []).map((cause) => `  could not collect: ${cause}`);
    const tests = (result.failures ?? []).filter((failure) => !(causes.length && /\.py$/.test(failure) && !failure.includes('::')));
    const what = tests.length ? `: ${tests.slice(0, 10).join('; ')}${tests.length > 10 ? '; …' : ''}` : '';
    return [`${head} already fails${what}`, ...causes, ...(causes.length ? [] : notes)];
  });
  if (lines.length === 0) return undefined;
  return `Before you changed anything, these checks already failed or could not run here. Failures are not yours to fix unless the task says so; at the end they must fail no worse than this (no new failing test, no new error):\n${lines.join('\n')}`;
}

/**
 * What the agent hears when no gate failed but some could not say anything (their program is missing, or they ran
 * no test): the task will end unverified unless it can check the work another way. `undefined` when every gate
 * passed, or there were none (the prompt said so when the task started).
 */
export function describeUnverified(results: GateResult[]): string | undefined {
  const silent = results.filter((result) => gateVerdict(result) === 'unverified');
  if (silent.length === 0) return undefined;
  const why = silent.map((result) => `- ${result.name} (\`${result.command}\`): ${result.unverified ?? 'its program is not installed'}`);
  const passed = results.filter((result) => gateVerdict(result) === 'passed').map((result) => result.name);
  return [
    'No gate failed, but these could not say anything about your work, so the task will be reported unverified:',
    ...why,
    ...(passed.length ? [`The other gates passed: ${passed.join(', ')}.`] : []),
    'If you can check the work another way here (run_tests, run_command), do it now; then reply with your summary again. The gates run once more.',
  ].join('\n');
}

/**
 * What goes back to the model when gates fail: each failing gate, with what is new against the start first when the
 * start failed too, and then how every other gate ended, so it knows what already holds.
 */
export function describeFailedGates(results: GateResult[], round: number, maxRounds: number): string {
  const failed = results.filter((result) => gateVerdict(result) === 'failed');
  const sections = failed.map((result) => {
    const heading = `## ${result.name} failed: \`${result.command}\``;
    const notes = result.notes?.length ? `\n${result.notes.join('\n')}` : '';
    if (!result.baseline || result.baseline.passed) return `${heading}\n${result.summary}${notes}`;
    const fresh = result.newFailures?.length ? `New since the task started: ${result.newFailures.join('; ')}\n` : '';
    return `${heading}\n${fresh}(${result.baseline.failures.length} failure(s) were there before the task: not yours to fix.)\n${result.summary}${notes}`;
  });
  const others = results
    .filter((result) => gateVerdict(result) !== 'failed')
    .map((result) =>
      gateVerdict(result) === 'passed' ? `${result.name} passed` : `${result.name} could not run (${result.unverified ?? 'not installed'})`,
    );
  const rest = others.length ? `\n\nThe other gates: ${others.join('; ')}.` : '';
  return `Verification failed (correction round ${round} of ${maxRounds}). Fix these, then finish again with a summary.\n\n${sections.join('\n\n')}${rest}`;
}
