import { CancellationScope, ContinueAsNew, isCancellation, setHandler } from '@temporalio/workflow';
import { parseTaskInput } from '../shared/task-input.js';
import type { TaskResult } from '../shared/task-state.js';
import { getStateQuery } from '../shared/messages.js';
import { ParentReporter, type SpendReport } from './task/parent-report.js';
import { BatchOutageWait } from './task/batch-outage.js';
import type { TaskCarry } from './task/run-state.js';
import { TaskRun } from './task/task-run.js';

export type { TaskCarry } from './task/run-state.js';

/**
 * A coding task as a durable ReAct loop: each iteration is one model activity and then one activity per tool call,
 * until the model ends its turn without calling a tool. The conversation lives in workflow state, so a new worker
 * resumes exactly where a dead one stopped. `carry` is only passed by continue-as-new. A task started by a batch
 * reports its blockers and its end to the batch, and, when the batch asks for it, a model outage past its retries.
 */
export async function agentTaskWorkflow(rawInput: unknown, carry?: TaskCarry): Promise<TaskResult> {
  const input = parseTaskInput(rawInput);
  const parent = ParentReporter.forCurrentWorkflow();
  const reportSpend = input.reportSpend ? (spend: SpendReport) => parent?.spent(spend) : undefined;
  const outage = input.reportOutage && parent ? new BatchOutageWait((message) => parent.outage(message)) : undefined;
  const run = new TaskRun(input, carry, (open) => parent?.blockersChanged(open), reportSpend, outage);
  setHandler(getStateQuery, () => run.snapshot());
  run.desk.listen();
  try {
    const result = await run.execute();
    await parent?.finished('completed', run.desk.answeredQuestions(), result);
    return result;
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(async () => {
        run.settle('cancelled');
        await run.endTrail('cancelled');
        await parent?.finished('cancelled', run.desk.answeredQuestions(), run.usedSoFar());
      });
    } else if (!(error instanceof ContinueAsNew)) {
      await run.endTrail('failed');
      await parent?.finished('failed', run.desk.answeredQuestions(), undefined, error);
    }
    throw error;
  }
}
