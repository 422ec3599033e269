import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { expect, test } from 'vitest';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal, getStateQuery } from '../../src/shared/messages.js';
import { waitForState } from '../support/blockers.js';
import type { RecordedRequest } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('gates');

/** One gate that fails until the agent creates DONE. */
const markerWorkspace = () =>
  makeWorkspace({
    'codeloop.json': JSON.stringify({
      gates: [{ name: 'marker', command: 'test -f DONE || { echo "DONE is missing"; exit 1; }', timeoutSeconds: 5 }],
    }),
  });

const lastMessage = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1)!.content);
const OUTLINE = '1. create DONE\n2. finish with a summary';

/**
 * An agent that outlines, then claims to be done 5 times without fixing anything: the gate fails 5 rounds. The third
 * failure escalates (the same error 3 times); the fifth reaches the round limit.
 */
function enqueueFiveFailedRounds(): void {
  harness.fake.enqueue(
    { text: `<outline>\n${OUTLINE}\n</outline>` },
    { text: 'All done.' },
    { text: 'All done.' },
    { text: 'All done.' },
    (request) => {
      expect(lastMessage(request)).toContain('Verification failed (correction round 3 of 5)');
      expect(lastMessage(request)).toContain('Guidance from a human: the gate needs a DONE file');
      return { text: 'All done.' };
    },
    { text: 'All done.' },
  );
}

/** Answers the escalation at round 3, then returns the round-limit blocker and the Web UI's current details. */
async function reachRoundLimit(handle: Awaited<ReturnType<typeof harness.start>>) {
  const escalated = await waitForState(handle, (state) => state.openBlockers.length === 1);
  const [escalation] = escalated.openBlockers;
  expect(escalation.origin).toBe('escalation');
  expect(escalation.question).toMatch(/^Escalating: the same error 3 times \(gate:marker\)\. The attempts so far:\n/);
  for (const [attempt, iteration] of [
    [1, 2],
    [2, 3],
    [3, 4],
  ]) {
    expect(escalation.question).toContain(`${attempt}. iteration ${iteration}, gate:marker: DONE is missing`);
  }
  expect(escalated.correctionRounds).toBe(3);
  await handle.signal(answerBlockerSignal, { answer: 'the gate needs a DONE file' });

  const limited = await waitForState(handle, (state) => state.openBlockers.length === 1 && state.answeredBlockers.length === 1);
  const [limit] = limited.openBlockers;
  expect(limit).toMatchObject({
    origin: 'escalation',
    question: "The gates (marker) still fail after 5 correction rounds. Answer 'continue' for 5 more rounds, or 'stop'.",
    options: ['continue', 'stop'],
  });
  expect(limited).toMatchObject({ status: 'blocked', correctionRounds: 5, iteration: 6, gates: [{ name: 'marker', passed: false }] });
  const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
  return { limit, currentDetails };
}

test('a gate that keeps failing escalates at the third failure, and at the round limit asks; "stop" fails the task', async () => {
  enqueueFiveFailedRounds();
  const handle = await harness.start({ description: 'make the marker', workspace: markerWorkspace(), gates: 'strict' });
  const { currentDetails } = await reachRoundLimit(handle);
  expect(currentDetails).toContain(`Outline:\n${OUTLINE}`);
  expect(currentDetails).toContain('Gates (correction round 5): ❌ marker');
  await handle.signal(answerBlockerSignal, { answer: 'stop' });

  const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
  const failure = error.cause as ApplicationFailure;
  expect(failure.message).toMatch(/^stopped by a human: The gates \(marker\) still fail after 5 correction rounds/);
  expect(failure.details?.[0] as TaskResult).toMatchObject({
    status: 'failed',
    reason: 'verification_failed',
    iterations: 6,
    gates: [{ passed: false }],
  });
});

test('"continue" at the round limit grants 5 more rounds; the task completes only once the gate passes', async () => {
  enqueueFiveFailedRounds();
  harness.fake.enqueue(
    (request) => {
      expect(lastMessage(request)).toContain('Verification failed (correction round 5 of 10)');
      return { toolCalls: [{ name: 'create_file', input: { path: 'DONE', content: '' } }] };
    },
    { text: 'Created DONE.' },
  );
  const handle = await harness.start({ description: 'make the marker', workspace: markerWorkspace(), gates: 'strict' });
  await reachRoundLimit(handle);
  await handle.signal(answerBlockerSignal, { answer: 'continue' });
  expect(await handle.result()).toMatchObject({
    status: 'completed',
    summary: 'Created DONE.',
    iterations: 8,
    gates: [{ name: 'marker', passed: true }],
  });
  const state = await handle.query(getStateQuery);
  expect(state.correctionRounds).toBe(5);
  expect(state.outline).toBe(OUTLINE);
});
