import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { waitForBlockers } from '../support/blockers.js';
import type { ScriptedTurn } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('stall');

/** A model turn still streaming long after a 3 s stall timeout. */
const slowTurn: ScriptedTurn = { text: 'too slow', stallMs: 20_000 };
/** A command that fails after outlasting a 3 s stall timeout: no successful tool call in that time. */
const slowFailure: ScriptedTurn = { toolCalls: [{ name: 'run_command', input: { command: 'sleep 4; exit 3' } }] };

async function failureOf(handle: Awaited<ReturnType<typeof harness.start>>): Promise<{ message: string; result: TaskResult }> {
  const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
  const failure = error.cause as ApplicationFailure;
  return { message: failure.message, result: failure.details?.[0] as TaskResult };
}

describe('a slow model call', () => {
  test('onStall "blocker": a human is asked at once; "retry" runs the turn again', async () => {
    harness.fake.enqueue(slowTurn, { text: 'on time' });
    const handle = await harness.start({ description: 'stall', workspace: makeWorkspace(), stallTimeout: '3s', onStall: 'blocker' });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({
      origin: 'stall',
      question: "The task stalled: the model call did not finish within the stall timeout of 3s. Answer 'retry' or 'stop'.",
      options: ['retry', 'stop'],
    });
    await handle.signal(answerBlockerSignal, { answer: 'retry' });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'on time', iterations: 1 });
  });

  test('onStall "fail": the task fails with reason stalled, without a retry', async () => {
    harness.fake.enqueue(slowTurn);
    const handle = await harness.start({ description: 'stall', workspace: makeWorkspace(), stallTimeout: '3s', onStall: 'fail' });
    const { message, result } = await failureOf(handle);
    expect(message).toBe('stalled: the model call did not finish within the stall timeout of 3s');
    expect(result).toMatchObject({ status: 'failed', reason: 'stalled', iterations: 1 });
  });
});

describe('no successful tool call within the stall timeout', () => {
  test('onStall "blocker": asked before the next model call; "stop" fails the task', async () => {
    harness.fake.enqueue(slowFailure);
    const before = harness.fake.requests.length;
    const handle = await harness.start({ description: 'stall', workspace: makeWorkspace(), stallTimeout: '3s', onStall: 'blocker' });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({
      origin: 'stall',
      question: "The task stalled: no successful tool call within the stall timeout of 3s. Answer 'retry' or 'stop'.",
    });
    expect(harness.fake.requests.length - before).toBe(1);
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const { result } = await failureOf(handle);
    expect(result).toMatchObject({ status: 'failed', reason: 'stalled', iterations: 1 });
  });

  test('onStall "fail": the task fails before the next model call', async () => {
    harness.fake.enqueue(slowFailure);
    const handle = await harness.start({ description: 'stall', workspace: makeWorkspace(), stallTimeout: '3s', onStall: 'fail' });
    const { message, result } = await failureOf(handle);
    expect(message).toBe('stalled: no successful tool call within the stall timeout of 3s');
    expect(result).toMatchObject({ status: 'failed', reason: 'stalled', iterations: 1 });
  });

  test('a successful tool call in time is progress: no stall', async () => {
    harness.fake.enqueue(
      { toolCalls: [{ name: 'run_command', input: { command: 'sleep 2; echo ok' } }] },
      { toolCalls: [{ name: 'run_command', input: { command: 'sleep 2; echo ok again' } }] },
      { text: 'done' },
    );
    const handle = await harness.start({ description: 'steady', workspace: makeWorkspace(), stallTimeout: '3s', onStall: 'fail' });
    expect(await handle.result()).toMatchObject({ status: 'completed', iterations: 3 });
  });
});
