import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES } from '../../shared/constants.js';
import type { BatchStateSnapshot } from '../../shared/batch-state.js';
import type { TaskPhase, TaskStateSnapshot, TaskStatus } from '../../shared/task-state.js';
import { formatCount } from '../../shared/format.js';

export const statusKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.status, SearchAttributeType.KEYWORD);
export const phaseKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.phase, SearchAttributeType.KEYWORD);

/**
 * Keeps `CodeloopStatus` / `CodeloopPhase` current for visibility queries, upserting only on change so history
 * gains one event per transition and not per iteration.
 */
export class SearchAttributeTracker {
  private status?: string;
  private phase?: string;

  /** A task's status and phase; a batch's status, with the phase `conducting`. */
  update(status: TaskStatus | BatchStateSnapshot['status'], phase: TaskPhase | 'conducting'): void {
    if (status === this.status && phase === this.phase) return;
    this.status = status;
    this.phase = phase;
    upsertSearchAttributes([
      { key: statusKey, value: status },
      { key: phaseKey, value: phase },
    ]);
  }
}


/** The open question first and prominent, with the two ways to answer it. */
function renderOpenBlockers(state: TaskStateSnapshot): string[] {
  const { workflowId } = workflowInfo();
  return state.openBlockers.map((blocker) => {
    const options = blocker.options ? ` (${blocker.options.map((option) => `'${option}'`).join(' or ')})` : '';
    return [
      `### ⏸ Waiting for a human: blocker \`${blocker.id}\`${options}`,
      blocker.question
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n'),
      blocker.context ? `Context: ${blocker.context}` : undefined,
      `Asked ${blocker.askedAt}. Answer with \`npx codeloop blockers answer ${workflowId} --blocker ${blocker.id} "…"\` or \`temporal workflow signal --workflow-id ${workflowId} --name answerBlocker --input '{"blockerId":"${blocker.id}","answer":"…"}'\``,
    ]
      .filter(Boolean)
      .join('\n\n');
  });
}

/** The Web UI's "current details": a short markdown card of where the task stands. */
export function renderCurrentDetails(state: TaskStateSnapshot, extra: string[] = []): string {
  const usage = state.usage;
  const lines = [
    ...renderOpenBlockers(state),
    `**${state.title}**`,
    `Status: **${state.status}** · phase: **${state.phase}** · iteration ${state.iteration}/${state.maxIterations}${state.runs > 1 ? ` · run ${state.runs}` : ''}`,
    renderContainment(state),
    ...extra,
    state.lastStep ? `Last step: \`${state.lastStep}\`` : undefined,
    `Tokens: ${formatCount(usage.inputTokens)} in · ${formatCount(usage.outputTokens)} out · ${formatCount(usage.cacheReadTokens)} cache read · ${formatCount(usage.cacheWriteTokens)} cache write · $${state.costUsd.toFixed(4)}`,
    state.filesChanged.length ? `Files changed: ${state.filesChanged.map((file) => `\`${file}\``).join(', ')}` : undefined,
    state.outline ? `Outline:\n${state.outline}` : undefined,
    state.gates.length
      ? `Gates${state.correctionRounds ? ` (correction round ${state.correctionRounds})` : ''}: ${state.gates.map((gate) => `${gate.passed ? '✅' : '❌'} ${gate.name}`).join(' · ')}`
      : undefined,
    state.compactions ? `Compactions: ${state.compactions}` : undefined,
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
