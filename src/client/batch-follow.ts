import type { BatchTaskState } from '../shared/batch-state.js';
import { emit, type OutputOptions } from './output.js';
import { formatDuration } from '../text/format.js';
import { pause, Progress } from './progress.js';
import { withClient } from './session.js';
import { renderBatchView, viewBatch, type BatchView } from './batch-view.js';

const POLL_MS = 1_000;

/**
 * `codeloop batch follow ID`: live progress (done / running / blocked / failed / skipped) until the batch ends, with
 * a line for each task that changes state. It follows the batch across continue-as-new. Exit code 0 only when the
 * batch completed.
 */
export async function followBatch(workflowId: string, options: OutputOptions): Promise<void> {
  const progress = new Progress();
  await withClient(async (client) => {
    const seen = new Map<string, string>();
    let view: BatchView;
    for (;;) {
      view = await viewBatch(client, workflowId);
      for (const task of view.state?.tasks ?? []) {
        const key = `${task.status}${task.blockedOn ? ':blocked' : ''}`;
        if (seen.get(task.id) !== key && !options.json) progress.log(describeChange(task));
        seen.set(task.id, key);
      }
      if (view.execution !== 'RUNNING') break;
      if (view.state && !options.json) progress.status(counts(view));
      await pause(POLL_MS);
    }
    progress.clear();
    emit(options, view, (final) => renderBatchView(final));
    if (view.result?.status !== 'completed') process.exitCode = 1;
  });
}

function counts(view: BatchView): string {
  const state = view.state!;
  const blocked = state.tasks.filter((task) => task.blockedOn).length + state.openBlockers.length;
  const { completed, running, merging, failed, skipped, pending } = state.counts;
  return `${state.batchId}: done ${completed}/${state.tasks.length} · running ${running + merging} · blocked ${blocked} · failed ${failed} · skipped ${skipped} · waiting ${pending}`;
}

function describeChange(task: BatchTaskState): string {
  if (task.blockedOn) return `⏸ ${task.id} is blocked: ${task.blockedOn.map((blocker) => blocker.question).join(' / ')}`;
  const took = task.startedAt && task.endedAt ? ` in ${formatDuration(task.endedAt - task.startedAt)}` : '';
  return `${task.id} ${task.status}${took}${task.reason ? `: ${task.reason}` : ''}`;
}
