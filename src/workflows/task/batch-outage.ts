import type { Duration } from '@temporalio/common';
import { condition, setHandler } from '@temporalio/workflow';
import { resumeModelCallsSignal } from '../../shared/messages.js';

/** How a wait for the batch ended: its 'retry', the task's `blockerTimeout`, or no batch left to ask. */
export type OutageWaitOutcome = 'resumed' | 'timed-out' | 'no-batch';

/**
 * A batch task's side of a model outage that outlasted its retries (`reportOutage`): it tells its batch and waits for
 * the batch's word instead of asking a human itself, so a batch whose tasks all meet the same outage asks once.
 */
export class BatchOutageWait {
  /** How many times the batch said 'retry'; a wait ends at the first one after it began. */
  private resumes = 0;
  /** What the task waits for while it waits, for `getState` and the Web UI. */
  waiting?: string;

  constructor(private readonly report: (message: string) => Promise<boolean>) {
    setHandler(resumeModelCallsSignal, () => {
      this.resumes += 1;
    });
  }

  /** Tells the batch, then waits for its 'retry' or for `timeout` (the task's `blockerTimeout`). */
  async wait(message: string, timeout: Duration | undefined, onChange: () => void): Promise<OutageWaitOutcome> {
    const before = this.resumes;
    const resumed = () => this.resumes > before;
    this.waiting = `the batch's answer about the model API outage: ${message}`;
    onChange();
    try {
      if (!(await this.report(message))) return 'no-batch';
      if (timeout === undefined) await condition(resumed);
      else if (!(await condition(resumed, timeout))) return 'timed-out';
      return 'resumed';
    } finally {
      this.waiting = undefined;
      onChange();
    }
  }
}
