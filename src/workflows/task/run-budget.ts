import { workflowInfo } from '@temporalio/workflow';

/** Keep every run of the chain under this: the server's own suggestion comes at 4 MB, one model call too late. */
const HISTORY_BYTES_BUDGET = 3.5 * 1024 * 1024;
/** Tool calls and results of one iteration, on top of the model call's input. */
const ITERATION_MARGIN_BYTES = 128 * 1024;

/**
 * Whether to continue as new before the next iteration: when the server suggests it, or when the next model call
 * (whose input is the whole conversation) would push this run past the budget. Checking the projected size keeps
 * each run under 4 MB even when one iteration adds hundreds of KB.
 */
export function shouldContinueAsNew(nextModelInputBytes: number): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historySize + nextModelInputBytes + ITERATION_MARGIN_BYTES > HISTORY_BYTES_BUDGET;
}
