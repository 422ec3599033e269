import type { GateResult, GateSpec } from '../../shared/gates.js';
import { commandActivities, fileActivities } from './activities.js';
import type { ToolTarget } from './tool-calls.js';

export interface VerifierCarry {
  gates?: GateSpec[];
  results: GateResult[];
}

/** The final gates: detected once per task on the workspace host, then each run as its own activity. */
export class Verifier {
  private gates?: GateSpec[];
  results: GateResult[];

  constructor(carry?: VerifierCarry) {
    this.gates = carry?.gates;
    this.results = carry?.results ?? [];
  }

  async run(target: ToolTarget): Promise<GateResult[]> {
    this.gates ??= await fileActivities.detectGates.executeWithOptions(
      { taskQueue: target.hostQueue, summary: 'detect verification gates' },
      [target.workspace],
    );
    const results: GateResult[] = [];
    for (const gate of this.gates) {
      results.push(
        await commandActivities.runVerification.executeWithOptions(
          {
            taskQueue: target.hostQueue,
            summary: `verify ${gate.name}: ${gate.command}`,
            startToCloseTimeout: `${gate.timeoutSeconds + 60} seconds`,
          },
          [{ workspace: target.workspace, gate, access: target.access }],
        ),
      );
    }
    this.results = results;
    return results;
  }

  carry(): VerifierCarry {
    return { gates: this.gates, results: this.results };
  }
}

/** What goes back to the model when gates fail. */
export function describeFailedGates(results: GateResult[], round: number, maxRounds: number): string {
  const failed = results.filter((result) => !result.passed);
  const sections = failed.map((result) => `## ${result.name} failed: \`${result.command}\`\n${result.summary}`);
  return `Verification failed (correction round ${round} of ${maxRounds}). Fix these, then finish again with a summary.\n\n${sections.join('\n\n')}`;
}
