import { renderOpenBlockers } from '../common/blocker-details.js';
import type { BatchStateSnapshot } from '../../shared/batch-state.js';

/** The batch's "current details" in the Web UI: its own open question first, then counts and blocked tasks. */
export function renderBatchDetails(state: BatchStateSnapshot): string {
  const lines = [
    ...renderOpenBlockers(state),
    `**Batch ${state.batchId}**: ${state.status} · ${state.tasks.length} tasks · max ${state.maxParallel} in parallel · on failure: ${state.onFailure}`,
    Object.entries(state.counts)
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `${name} ${count}`)
      .join(' · '),
    ...(state.integration ? [`Integration branch: ${state.integration}`] : []),
    ...state.tasks
      .filter((task) => task.blockedOn)
      .map((task) => `Task \`${task.id}\` is blocked: ${task.blockedOn!.map((blocker) => blocker.question).join(' / ')}`),
    ...state.tasks
      .filter((task) => task.pausedOn)
      .map((task) => `Task \`${task.id}\` waits on the batch's question ${task.pausedOn} (model API outage)`),
  ];
  return lines.join('\n\n');
}
