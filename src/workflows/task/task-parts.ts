import type { TaskResult } from '../../shared/task-state.js';
import type { BlockerDesk } from '../common/blocker-desk.js';
import type { HostWait } from '../common/host-wait.js';
import type { BatchOutageWait } from './batch-outage.js';
import type { Guards } from './guards.js';
import type { PolicyHost } from './policies.js';
import type { TaskTrail } from './task-trail.js';
import type { Verifier } from './verifier.js';

/**
 * What every part of a task run (its preparation, its model calls, its finish) works on: the input and the one
 * `RunState`, the parts that keep their own state, and what only the run can do: ask a human, wait for a host, show
 * the state, continue as new, end. Parts change the state directly, as a batch's parts do (see `BatchParts`).
 */
export interface TaskParts extends PolicyHost {
  readonly desk: BlockerDesk;
  readonly guards: Guards;
  readonly verifier: Verifier;
  readonly trail: TaskTrail;
  /** In a batch that pauses on a model outage, where an outage past the retries goes instead of a blocker. */
  readonly outage?: BatchOutageWait;
  /** The system prompt, built once per run (by the first run's preparation, or from the carried project). */
  system: string;
  /** Work for `hostId` that its worker has not taken within `hostTimeout` asks a human: wait again, or stop. */
  hostWait(hostId: string): HostWait;
  /** Shows the state in the task's current details and search attributes. */
  publish(): void;
  continueAsNew(): Promise<never>;
  /** Ends the task as completed with `summary`. */
  complete(summary: string): TaskResult;
  /** Stops the task's services, if it has any. */
  endEnvironment(): Promise<void>;
}
