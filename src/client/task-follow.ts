import { totalTokens } from '../shared/conversation.js';
import type { TaskStateSnapshot } from '../shared/task-state.js';
import { formatCount } from '../text/format.js';
import { emit, type OutputOptions } from './output.js';
import { pause, Progress } from './progress.js';
import { withClient } from './session.js';
import { renderTaskView, viewTask } from './task-view.js';

const POLL_MS = 1_000;

/**
 * `codeloop task follow ID`: a live view until the task ends: phase, iteration, last step, tokens and cost, and any
 * open blocker with the command that answers it. It queries by workflow id, so it keeps following across
 * continue-as-new. Exit code 0 only when the task completed.
 */
export async function followTask(workflowId: string, options: OutputOptions): Promise<void> {
  const progress = new Progress();
  await withClient(async (client) => {
    let view = await viewTask(client, workflowId);
    const announced = new Set<string>();
    let lastStep = '';
    while (view.execution === 'RUNNING') {
      const state = view.state;
      if (state && !options.json) {
        for (const blocker of state.openBlockers) {
          if (announced.has(blocker.id)) continue;
          announced.add(blocker.id);
          progress.log(
            `⏸ blocker ${blocker.id}: ${blocker.question}\n   answer: npx codeloop blockers answer ${workflowId} --blocker ${blocker.id} "…"`,
          );
        }
        const step = `${state.iteration}:${state.lastStep ?? ''}`;
        if (step !== lastStep && state.lastStep)
          progress.log(`  [${state.phase}] ${state.iteration}/${state.maxIterations} ${state.lastStep}`);
        lastStep = step;
        progress.status(statusLine(state));
      }
      await pause(POLL_MS);
      view = await viewTask(client, workflowId);
    }
    progress.clear();
    emit(options, view, renderTaskView);
    if (view.execution !== 'COMPLETED') process.exitCode = 1;
  });
}

function statusLine(state: TaskStateSnapshot): string {
  const tokens = totalTokens(state.usage);
  const blocked = state.openBlockers.length
    ? ` · WAITING FOR AN ANSWER (${state.openBlockers.map((blocker) => blocker.id).join(', ')})`
    : '';
  return `${state.status} · ${state.phase} · iteration ${state.iteration}/${state.maxIterations} · ${formatCount(tokens)} tokens · $${state.costUsd.toFixed(4)}${state.runs > 1 ? ` · run ${state.runs}` : ''}${blocked}`;
}
