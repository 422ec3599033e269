import { setCurrentDetails } from '@temporalio/workflow';
import { renderOpenBlockers } from '../common/blocker-details.js';
import { gateVerdict, verificationReasons, type GateVerdict } from '../../shared/gates.js';
import type { TaskStateSnapshot } from '../../shared/task-state.js';

const VERDICT_MARKS: Record<GateVerdict, string> = { passed: '✅', failed: '❌', unverified: '⚠️ unverified:' };
import { formatCount } from '../../text/format.js';

/** The Web UI's "current details": a short markdown card of where the task stands. */
export function renderCurrentDetails(state: TaskStateSnapshot, extra: string[] = []): string {
  const usage = state.usage;
  const lines = [
    ...renderOpenBlockers(state),
    ...(state.waitingForBatch ? [`⏸ **Waiting for ${state.waitingForBatch}**`] : []),
    `**${state.title}**`,
    `Status: **${state.status}** · phase: **${state.phase}** · iteration ${state.iteration}/${state.maxIterations}${state.runs > 1 ? ` · run ${state.runs}` : ''}`,
    renderContainment(state),
    ...extra,
    state.lastStep ? `Last step: \`${state.lastStep}\`` : undefined,
    `Tokens: ${formatCount(usage.inputTokens)} in · ${formatCount(usage.outputTokens)} out · ${formatCount(usage.cacheReadTokens)} cache read · ${formatCount(usage.cacheWriteTokens)} cache write · $${state.costUsd.toFixed(4)}`,
    state.git
      ? `Branch: \`${state.git.branch}\` · ${state.git.end ? `${state.git.end.commits} commits · ${state.git.end.diffstat}` : `${state.git.checkpoints.length} checkpoints`}`
      : undefined,
    state.filesChanged.length ? `Files changed: ${state.filesChanged.map((file) => `\`${file}\``).join(', ')}` : undefined,
    state.outline ? `Outline:\n${state.outline}` : undefined,
    state.gates.length
      ? `Gates${state.correctionRounds ? ` (correction round ${state.correctionRounds})` : ''}: ${state.gates.map((gate) => `${VERDICT_MARKS[gateVerdict(gate)]} ${gate.name}`).join(' · ')}`
      : undefined,
    state.compactions ? `Compactions: ${state.compactions}` : undefined,
    state.result?.verification && state.result.verification !== 'verified'
      ? `Verification: **${state.result.verification}** (${verificationReasons(state.gates).join('; ')})`
      : undefined,
    state.openQuestions.length ? `Open questions:\n${state.openQuestions.map((question) => `- ${question}`).join('\n')}` : undefined,
    state.result ? `Result: ${state.result.summary}` : undefined,
  ];
  return lines.filter((line): line is string => line !== undefined).join('\n\n');
}

/** `sandbox: off` stands out: the worker runs this task's commands with its own rights. */
function renderContainment(state: TaskStateSnapshot): string | undefined {
  if (!state.sandbox) return undefined;
  const sandbox = state.sandbox === 'off' ? '⚠ sandbox: **off** (commands run unsandboxed on the worker)' : 'sandbox: on';
  return `Commands: ${sandbox} · network: ${state.network}`;
}

export function publishCurrentDetails(state: TaskStateSnapshot, extra: string[] = []): void {
  setCurrentDetails(renderCurrentDetails(state, extra));
}
