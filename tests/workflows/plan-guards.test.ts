import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, test } from 'vitest';
import { answerBlockerSignal, getPlanStateQuery } from '../../src/shared/messages.js';
import type { PlanStateSnapshot } from '../../src/shared/plan-state.js';
import type { planWorkflow } from '../../src/workflows/index.js';
import type { RecordedRequest, Responder } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('plan-guards');

const PRD = '# Notes\nA command-line notes keeper: `add <text>` and `list`.';
const PLAN = {
  tasks: [
    { id: 'notes', title: 'Build notes', description: 'Add notes.py.', dependsOn: [], complexity: 1, acceptance: ['add and list work'] },
  ],
};
const submit = { toolCalls: [{ name: 'submit_plan', input: PLAN }] };

let since = 0;
const isPlanning = (request: RecordedRequest) => (request.body.tools ?? []).some((tool) => tool.name === 'submit_plan');
const planningRequests = () => harness.fake.requests.slice(since).filter(isPlanning);

const startPlan = (input: Record<string, unknown>, responder: Responder) => {
  since = harness.fake.requests.length;
  harness.fake.setResponder(responder);
  return harness.temporal.client.workflow.start<typeof planWorkflow>('planWorkflow', {
    args: [{ workspace: makeGitRepo(), prd: PRD, ...input }],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('plan-guards'),
  });
};

async function waitForQuestion(handle: WorkflowHandle, answered = 0): Promise<PlanStateSnapshot> {
  const state = await eventually(
    () => handle.query(getPlanStateQuery).catch(() => undefined),
    (current) => current !== undefined && current.openBlockers.length === 1 && current.answeredBlockers.length === answered,
    'the plan never asked',
  );
  return state!;
}

const answer = (handle: WorkflowHandle, text: string) => handle.signal(answerBlockerSignal, { answer: text });

describe('planning is a first-class run', () => {
  test('a spend cap the next planning call would cross asks a human first; a raised cap lets planning go on', async () => {
    const handle = await startPlan({ maxCostUsd: 0.0001 }, () => submit);
    const asked = await waitForQuestion(handle);
    expect(asked.openBlockers[0]).toMatchObject({ origin: 'budget' });
    expect(asked.openBlockers[0].question).toContain('Before the next planning call: the cost cap of $0.00 would be exceeded');
    expect(planningRequests()).toHaveLength(0);
    await answer(handle, 'raise to 10');
    const review = await waitForQuestion(handle, 1);
    expect(review.openBlockers[0].origin).toBe('plan-review');
    await answer(handle, 'approve');
    const result = await handle.result();
    expect(result.plan.tasks.map((task) => task.id)).toEqual(['notes']);
    expect(result.spendByPurpose.planning?.calls).toBe(1);
    await recordHistory('plan-spend-cap', handle);
  });

  test('a failing planning call with no usable fallback asks a human, naming both models; stop ends the plan', async () => {
    const unusable = (request: RecordedRequest) => ({
      error: { status: 404, type: 'not_found_error', message: `model: ${request.body.model}` },
    });
    const handle = await startPlan({ model: 'claude-plan-gone', models: { default: 'claude-default-gone' } }, unusable);
    const asked = await waitForQuestion(handle);
    expect(asked.openBlockers[0]).toMatchObject({ origin: 'model-unavailable', options: ['retry', 'stop'] });
    expect(asked.openBlockers[0].question).toContain('A planning call failed on claude-plan-gone');
    expect(asked.openBlockers[0].question).toContain("on the task's default model, claude-default-gone");
    await answer(handle, 'stop');
    await expect(handle.result()).rejects.toMatchObject({
      cause: { message: expect.stringContaining('stopped by a human after the planning call failed') },
    });
  });

  test("a long exploration is compacted before it reaches the planning model's window", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 8 }, (_, index) => [`notes/part${index}.md`, `${`line ${index}\n`.repeat(700)}`]),
    );
    let turn = 0;
    const responder: Responder = (request) => {
      if (!isPlanning(request)) return { text: '- read the eight parts of notes/; nothing else matters' };
      turn += 1;
      return turn <= 8 ? { toolCalls: [{ name: 'read_file', input: { path: `notes/part${turn - 1}.md` } }] } : submit;
    };
    since = harness.fake.requests.length;
    harness.fake.setResponder(responder);
    const handle = await harness.temporal.client.workflow.start<typeof planWorkflow>('planWorkflow', {
      args: [{ workspace: makeGitRepo({ 'README.md': '# notes\n', ...files }), prd: PRD, contextWindow: 10_000 }],
      taskQueue: harness.taskQueue,
      workflowId: uniqueName('plan-guards'),
    });
    await waitForQuestion(handle);
    const sizes = planningRequests().map((request) => JSON.stringify(request.body.messages).length);
    const text = (request: RecordedRequest) => JSON.stringify(request.body.messages);
    // Masking old reads was not enough for a 10,000-token window: the summary model summarised them.
    const summaries = harness.fake.requests.slice(since).filter((request) => !isPlanning(request));
    expect(summaries.length).toBeGreaterThan(0);
    expect(text(summaries[0])).toContain('notes/part0.md');
    expect(planningRequests().some((request) => text(request).includes('read the eight parts of notes/'))).toBe(true);
    // Eight reads of ~4 KB each, yet the conversation stops growing at the last five exchanges and the summary.
    const perRead = sizes[1] - sizes[0];
    expect(sizes).toHaveLength(9);
    expect(Math.max(...sizes)).toBeLessThan(6 * perRead);
    expect(sizes.at(-1)).toBeLessThan(8 * perRead);
    await answer(handle, 'approve');
    expect((await handle.result()).plan.tasks).toHaveLength(1);
    await recordHistory('plan-compacted', handle);
  });
});
