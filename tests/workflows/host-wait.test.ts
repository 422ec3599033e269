import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { hostQueueFor } from '../../src/shared/host-queue.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { waitForBatch } from '../support/batch.js';
import { waitForBlockers } from '../support/blockers.js';
import { useTaskHarness } from '../support/task-harness.js';
import { modelEnv, uniqueName } from '../support/temporal.js';
import { spawnWorker } from '../support/worker-process.js';
import { fileOnBranch, makeGitRepo, makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('host-wait');

/** A task whose workspace tools are pinned to `hostId`, which has no worker until the test starts one. */
async function startPinned(hostId: string) {
  const workspace = makeWorkspace({ 'README.md': '# notes\n' });
  const handle = await harness.start({
    title: 'Write the note',
    description: 'Create note.txt',
    workspace,
    hostQueue: hostQueueFor(harness.taskQueue, hostId),
    hostTimeout: '2s',
  });
  return { handle, workspace };
}

describe('a host whose worker is gone', () => {
  test('its pinned task asks a human, naming the host, and goes on once the worker is back and the answer is retry', async () => {
    harness.fake.enqueue(
      { toolCalls: [{ name: 'create_file', input: { path: 'note.txt', content: 'noted\n' } }] },
      { text: 'Created note.txt.' },
    );
    const { handle, workspace } = await startPinned('build-07');
    const [blocker] = await waitForBlockers(handle);
    expect(blocker.origin).toBe('host-unavailable');
    expect(blocker.question).toMatch(
      /^Host build-07 has not started "open workspace .+" within 2s: its worker is down .+\(CODELOOP_HOST_ID=build-07\)/,
    );

    // The host comes back as its own process, the way `npm run worker` runs on it.
    const host = await spawnWorker({ ...modelEnv(harness.fake), CODELOOP_TASK_QUEUE: harness.taskQueue, CODELOOP_HOST_ID: 'build-07' });
    try {
      await handle.signal(answerBlockerSignal, { answer: 'retry' });
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      expect(existsSync(path.join(workspace, 'note.txt'))).toBe(true);
    } finally {
      await host.stop();
    }
  });

  test("'stop' fails the task with reason host_unavailable", async () => {
    const { handle } = await startPinned('build-08');
    const [blocker] = await waitForBlockers(handle);
    expect(blocker.question).toContain('Host build-08');
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    expect((error.cause as ApplicationFailure).details?.[0]).toMatchObject({ status: 'failed', reason: 'host_unavailable' });
  });
});

describe('a batch whose host is gone', () => {
  test('its own work on the host asks a human on the batch, naming the host; retry once the worker is back completes it', async () => {
    harness.fake.enqueue(
      { toolCalls: [{ name: 'create_file', input: { path: 'note.txt', content: 'noted\n' } }] },
      { text: 'Created note.txt.' },
    );
    const repo = makeGitRepo();
    const handle = await startBatch(repo, hostQueueFor(harness.taskQueue, 'build-09'));
    const blocked = await waitForBatch(handle, (state) => state.openBlockers.length > 0);
    expect(blocked.status).toBe('blocked');
    expect(blocked.openBlockers[0]).toMatchObject({ origin: 'host-unavailable' });
    expect(blocked.openBlockers[0].question).toMatch(
      /^Host build-09 has not started "bind workspace .+" within 2s: .+CODELOOP_HOST_ID=build-09/,
    );

    const host = await spawnWorker({ ...modelEnv(harness.fake), CODELOOP_TASK_QUEUE: harness.taskQueue, CODELOOP_HOST_ID: 'build-09' });
    try {
      await handle.signal(answerBlockerSignal, { answer: 'retry' });
      const result = (await handle.result()) as BatchResult;
      expect(result.status).toBe('completed');
      expect(fileOnBranch(repo, result.integrationBranch!, 'note.txt')).toBe('noted\n');
    } finally {
      await host.stop();
    }
  });

  test("'stop' fails the batch while it prepares, naming the host", async () => {
    const handle = await startBatch(makeGitRepo(), hostQueueFor(harness.taskQueue, 'build-10'));
    const blocked = await waitForBatch(handle, (state) => state.openBlockers.length > 0);
    await handle.signal(answerBlockerSignal, { blockerId: blocked.openBlockers[0].id, answer: 'stop' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    expect(error.cause?.message).toMatch(/^host build-10 did not take "bind workspace .+", and the question about it was answered 'stop'/);
  });
});

/** A one-task batch whose repository is pinned to `hostQueue`, whose tasks wait 2 s for their host. */
function startBatch(repo: string, hostQueue: string) {
  return harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [
      {
        workspace: repo,
        tasks: [{ id: 't1', title: 'Write the note', description: 'Create note.txt', hostQueue }],
        taskDefaults: { hostTimeout: '2s' },
      },
    ],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('host-wait-batch'),
  });
}
