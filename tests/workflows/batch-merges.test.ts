import { execFileSync } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { answerBlockerSignal, retryTaskSignal } from '../../src/shared/messages.js';
import { PATCHES } from '../../src/workflows/common/patches.js';
import { waitForBlockers } from '../support/blockers.js';
import { waitForBatch } from '../support/batch.js';
import { byTask, byTurn, type Responder } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('batch-merges');

const startBatch = (input: Record<string, unknown>) =>
  harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('batch-merges'),
  });

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, dependsOn });
const creates = (file: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: 'done' }]);
const fails: Responder = () => ({ error: { status: 400, type: 'invalid_request_error', message: 'this task cannot be done' } });

/** The activities the batch scheduled, by type, each with its first argument. */
async function scheduled(handle: WorkflowHandle): Promise<{ type: string; input: Record<string, unknown> }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .map((event) => event.activityTaskScheduledEventAttributes)
    .filter((attributes) => attributes != null)
    .map((attributes) => ({
      type: attributes.activityType!.name!,
      input: defaultPayloadConverter.fromPayload<Record<string, unknown>>(attributes.input!.payloads![0]),
    }));
}

const markers = async (handle: WorkflowHandle) =>
  ((await handle.fetchHistory()).events ?? [])
    .map((event) => event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0])
    .filter((payload) => payload != null)
    .map((payload) => defaultPayloadConverter.fromPayload<{ id: string }>(payload).id);

describe('merging', () => {
  test('finished tasks merge in shared steps that cut the worktree of the dependent they make ready, and merged worktrees go', async () => {
    harness.fake.setResponder(
      byTask({ 'Task a': creates('a.txt'), 'Task b': creates('b.txt'), 'Task c': creates('c.txt'), 'Task d': creates('d.txt') }),
    );
    const repo = makeGitRepo();
    const handle = await startBatch({ workspace: repo, tasks: [task('a'), task('b'), task('c'), task('d', ['a', 'b', 'c'])] });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) expect(fileOnBranch(repo, result.integrationBranch!, file)).toBe(`${file}\n`);

    const activities = await scheduled(handle);
    const merges = activities.filter(({ type }) => type === 'integrateTasks');
    const merged = merges.flatMap(({ input }) => (input.tasks as { taskId: string }[]).map(({ taskId }) => taskId));
    expect([...merged].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(merges.length).toBeLessThanOrEqual(4);
    // d's worktree was cut by the merge that made it ready, from the tip holding a, b and c.
    const cut = activities.filter(({ type }) => type === 'createTaskWorktree').map(({ input }) => input.taskId);
    expect([...cut].sort()).toEqual(['a', 'b', 'c']);
    expect(activities.map(({ type }) => type)).not.toContain('integrateTask');
    expect(activities.map(({ type }) => type)).not.toContain('removeTaskWorktree');
    expect(await markers(handle)).toEqual(expect.arrayContaining([PATCHES.batchMergesTogether.id, PATCHES.batchMergesPipelined.id]));

    const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo })
      .toString()
      .split('\n')
      .filter((line) => line.startsWith('worktree '));
    expect(worktrees).toHaveLength(2);
    expect(worktrees[1]).toMatch(/\/_integration$/);
    await recordHistory('batch-merges-together', handle);
  }, 120_000);

  test('a re-run gets the earlier answers from the final report of the child, not from querying it', async () => {
    const told = (request: Parameters<Responder>[0]) => JSON.stringify(request.body.system).includes('Q: Which database?\\nA: Postgres');
    const asksThenFails = byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which database?' } }] }, fails]);
    // `hold` keeps the batch open until the re-run is done.
    const hold = byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Hold on?' } }] }, { text: 'done' }]);
    harness.fake.setResponder(
      byTask({ 'Task ask': (request) => (told(request) ? { text: 'done' } : asksThenFails(request)), 'Task hold': hold }),
    );
    const handle = await startBatch({ workspace: makeGitRepo(), tasks: [task('ask'), task('hold')] });
    const child = harness.temporal.client.workflow.getHandle(`${handle.workflowId}/ask`);
    await waitForBlockers(child);
    await child.signal(answerBlockerSignal, { answer: 'Postgres' });
    const failed = await waitForBatch(handle, (state) => state.counts.failed === 1);
    expect(failed.tasks.find((t) => t.id === 'ask')!.answers).toEqual([{ question: 'Which database?', answer: 'Postgres' }]);
    await handle.signal(retryTaskSignal, { taskId: 'ask' });
    await waitForBatch(handle, (state) => state.counts.completed === 1);
    await harness.temporal.client.workflow.getHandle(`${handle.workflowId}/hold`).signal(answerBlockerSignal, { answer: 'go' });
    const result = (await handle.result()) as BatchResult;
    expect(result.tasks.find((t) => t.id === 'ask')).toMatchObject({ status: 'completed', attempts: 2 });
    expect((await scheduled(handle)).map(({ type }) => type)).not.toContain('readAnsweredQuestions');
    expect(await markers(handle)).toContain(PATCHES.batchAnswersFromReports.id);
    await recordHistory('batch-answers-from-reports', handle);
  }, 120_000);
});
