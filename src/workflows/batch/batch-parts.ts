import type { BatchInput } from '../../shared/batch-input.js';
import type { BlockerDesk } from '../common/blocker-desk.js';
import type { BatchPatches } from './before-patches.js';
import type { BatchBudget } from './budget.js';
import type { DeadlineWatch } from './deadline.js';
import type { HostRunner } from './host-wait.js';
import type { InFlight } from './in-flight.js';
import type { IntegrationVerifier } from './integration-verification.js';
import type { BatchState, InboxItem } from './run-state.js';

/**
 * What every part of a batch (its task starts, its merges and what they settle, its stops) works on: the input and
 * the one `BatchState`, the parts that keep their own state, and the two things only the run can do, running work on
 * a host and showing the state. Parts change the state directly; nothing calls back into the run.
 */
export interface BatchParts {
  /** The batch input, its tasks as the first run read them (a tasks file's included). */
  readonly input: BatchInput;
  readonly state: BatchState;
  readonly patches: BatchPatches;
  readonly desk: BlockerDesk;
  readonly inFlight: InFlight;
  readonly deadline: DeadlineWatch;
  readonly budget: BatchBudget;
  readonly verifier: IntegrationVerifier;
  readonly onHost: HostRunner;
  /**
   * The tasks whose end came in during this run, handled or not (see `deliverEnd`): a stop that waits for cancelled
   * children looks here, since the main loop may already have taken their ends from the inbox.
   */
  readonly endsDelivered: Set<string>;
  /** Shows the state in the batch's current details and `CodeloopStatus`. */
  publish(): void;
}

/** A task's end (its report, or its child's failure) into the inbox, for the main loop to handle in order. */
export function deliverEnd(batch: BatchParts, item: InboxItem): void {
  batch.state.inbox.push(item);
  batch.endsDelivered.add(item.taskId);
}
