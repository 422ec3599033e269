import { log } from '@temporalio/workflow';
import { durationMs, STOP_WORDS } from '../../shared/blockers.js';
import { ErrorType } from '../../shared/errors.js';
import type { TaskInput } from '../../shared/task-input.js';
import { workflowNow } from '../common/workflow-time.js';
import type { BlockerSpec } from '../common/blocker-desk.js';
import { iterationBudget, type RunState } from './run-state.js';
import type { Spend } from '../common/spend.js';

/** A stalled model turn is retried this often before a human is asked. */
const STALL_RETRIES = 2;

/** What the policies need from a run: its input and state, its spend, and the ways to ask a human or to fail. */
export interface PolicyHost {
  readonly input: TaskInput;
  readonly state: RunState;
  readonly spend: Spend;
  askHuman(spec: BlockerSpec): Promise<string>;
  fail(reason: string, type: string, message: string): never;
}

/** Asks a human for guidance; 'stop' fails the task with `reason`. */
export async function askForGuidance(host: PolicyHost, spec: BlockerSpec, reason: string): Promise<string> {
  const answer = await host.askHuman(spec);
  if (STOP_WORDS.test(answer)) host.fail(reason, ErrorType.TaskFailed, `stopped by a human: ${spec.question.split('\n')[0]}`);
  return answer;
}

/** An exhausted budget asks instead of failing: "continue" grants as many again, "continue 20" that many. */
export async function askForMoreIterations(host: PolicyHost): Promise<void> {
  const budget = iterationBudget(host.input, host.state);
  const answer = await host.askHuman({
    origin: 'budget',
    question: `The iteration budget of ${budget} is used up. Answer 'continue' for ${host.input.maxIterations} more (or 'continue N'), or 'stop' to end the task as failed.`,
    options: ['continue', 'stop'],
  });
  const granted = /^\s*continue(?:\s+(?:with\s+)?(\d+))?/i.exec(answer);
  if (!granted) host.fail('budget_exhausted', ErrorType.BudgetExhausted, `iteration budget of ${budget} exhausted`);
  host.state.grantedIterations += granted[1] ? Number(granted[1]) : host.input.maxIterations;
}

/** How long the task may go without a successful tool call before it counts as stalled. */
export function stallMs(input: TaskInput): number {
  return durationMs(input.stallTimeout);
}

/** Whether the stall watch has run out since the last progress. */
export function isStalled(host: PolicyHost): boolean {
  return workflowNow() - host.state.lastProgressAt > stallMs(host.input);
}

/**
 * A stall: retry the turn (twice, then ask), ask a human, or fail, as `onStall` says. `askElsewhere` asks someone
 * else instead of a human, when it can (a model call that does not finish is an outage its batch answers for all).
 */
export async function onStall(host: PolicyHost, what: string, askElsewhere?: (message: string) => Promise<boolean>): Promise<void> {
  const { input, state } = host;
  const message = `${what} within the stall timeout of ${input.stallTimeout}`;
  if (input.onStall === 'fail') host.fail('stalled', ErrorType.TaskFailed, `stalled: ${message}`);
  state.stallRetries += 1;
  if (input.onStall === 'blocker' || state.stallRetries > STALL_RETRIES) {
    if (askElsewhere && (await askElsewhere(message))) {
      state.stallRetries = 0;
      return;
    }
    await askForGuidance(
      host,
      { origin: 'stall', question: `The task stalled: ${message}. Answer 'retry' or 'stop'.`, options: ['retry', 'stop'] },
      'stalled',
    );
    state.stallRetries = 0;
  }
  log.warn('stall', { message, retries: state.stallRetries });
  state.lastProgressAt = workflowNow();
}
