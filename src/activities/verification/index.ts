import type { GateResult, GateSpec } from '../../shared/gates.js';
import type { CommandAccess } from '../process/sandbox.js';
import { withAccess, type WorkspaceShell } from '../tools/run-command.js';
import { detectGates } from './gates.js';
import { runGate } from './run-gate.js';

export { formatLintErrors, lintFile, type LintReport } from './lint.js';
export { rememberOutcome } from './lint-memory.js';
export { readWorkspaceConfig } from './workspace-config.js';

/** The final verification gates: detection once, then one activity per gate with its own timeout. */
export function createVerificationActivities(deps: { shell: WorkspaceShell }) {
  return {
    async detectGates(workspace: string): Promise<GateSpec[]> {
      return detectGates(workspace, deps.shell.sandboxMode);
    },
    async runVerification(call: { workspace: string; gate: GateSpec; access?: CommandAccess; baseline?: GateResult }): Promise<GateResult> {
      return runGate(withAccess(deps.shell, call.access), call.workspace, call.gate, call.baseline);
    },
  };
}
