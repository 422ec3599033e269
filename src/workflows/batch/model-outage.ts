import { condition, getExternalWorkflowHandle, log } from '@temporalio/workflow';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { STOP_WORDS } from '../../shared/blockers.js';
import { resumeModelCallsSignal } from '../../shared/messages.js';
import type { BlockerSpec } from '../common/blocker-desk.js';
import type { BatchParts } from './batch-parts.js';
import { stopAfterOutage } from './stops.js';

/**
 * A model outage past its tasks' retries pauses the batch (`batchPausesOnOutage`). Its tasks report the outage
 * instead of each asking a human (`reportOutage`) and wait; the batch asks one question, starts no new task while it
 * is open, and on 'retry' tells every waiting task to call the model again. A task that reports while the question is
 * open waits on the same question. The question is asked in the background (work of kind `outage`), so merges and
 * other tasks go on, and the batch does not continue as new while it is open.
 */
export class OutagePause {
  /** The tasks waiting on the open question. */
  private readonly waiting = new Map<string, BatchTaskState>();
  private question?: { id: string; question: string };

  constructor(private readonly batch: BatchParts) {}

  /** While the question is open no new task starts. */
  get paused(): boolean {
    return this.waiting.size > 0;
  }

  /** A running task's outage report: it waits on the open question, or on a new one. */
  report(state: BatchTaskState, message: string): void {
    if (state.status !== 'running' || this.waiting.has(state.id)) return;
    this.waiting.set(state.id, state);
    if (this.question) {
      state.pausedOn = this.question.id;
      this.batch.publish();
      return;
    }
    this.batch.inFlight.launch('outage', () => this.ask(state.id, message));
  }

  private async ask(taskId: string, message: string): Promise<void> {
    const asking = this.batch.desk.ask(outageQuestion(taskId, message), this.batch.deadline.remainingMs());
    // `ask` opens its blocker before it first waits, so the newest open one is this one.
    const { id, question } = this.batch.desk.open().at(-1)!;
    this.question = { id, question };
    for (const state of this.waiting.values()) state.pausedOn = id;
    log.warn('model API outage: the batch is paused', { taskId, blockerId: id, message });
    this.batch.publish();
    // Tasks that ended while waiting (fail-fast, the hard budget) need no answer: once none waits, the question goes.
    const waitingTasks = () => [...this.waiting.values()].filter((state) => state.status === 'running');
    void condition(() => waitingTasks().length === 0).then(() => this.batch.desk.withdraw(id));
    const outcome = await asking;
    const waiting = waitingTasks();
    this.waiting.clear();
    this.question = undefined;
    if (outcome.answered && STOP_WORDS.test(outcome.answer)) {
      await stopAfterOutage(this.batch, `stopped by a human after the model API outage (blocker ${id} answered '${outcome.answer}')`);
    } else if (outcome.answered) {
      // Any other answer resumes: 'stop' is the only way to end the batch here.
      await Promise.all(waiting.map((state) => resume(state)));
    }
    // Unanswered, the deadline came (it stops the running tasks, the waiting ones among them), or no task waits any more.
    for (const state of waiting) state.pausedOn = undefined;
    this.batch.publish();
  }
}

/** The one question: what failed, what the batch does meanwhile, and what each answer does. */
export function outageQuestion(taskId: string, message: string): BlockerSpec {
  return {
    origin: 'model-outage',
    question:
      `The model API kept failing past the retries (first reported by task ${taskId}): ${message}\n` +
      `The batch is paused: no new task starts, and its running tasks wait on this question. ` +
      `Answer 'retry' once the API is back to resume every task, or 'stop' to end the batch (running tasks are cancelled, pending ones skipped).`,
    options: ['retry', 'stop'],
  };
}

/** Tells a waiting task to call the model again; one that has ended meanwhile has nothing to resume. */
async function resume(state: BatchTaskState): Promise<void> {
  try {
    await getExternalWorkflowHandle(state.childWorkflowId).signal(resumeModelCallsSignal);
  } catch (error) {
    log.warn('could not resume a task after the model outage', { taskId: state.id, error: String(error) });
  }
}
