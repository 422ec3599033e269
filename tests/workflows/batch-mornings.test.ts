import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { waitForBatch } from '../support/batch.js';
import { byTask, byTurn, type Responder } from '../support/fake-messages-api.js';
import { makeGitRemote } from '../support/git-remote.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch } from '../support/workspace.js';

const harness = useTaskHarness('batch-mornings');

const startBatch = (input: Record<string, unknown>) =>
  harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('batch-mornings'),
  });

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, dependsOn });
const creates = (file: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: `created ${file}` }]);

describe('a fresh base', () => {
  test('a batch with a remote builds on what the team pushed after the worker checked out', async () => {
    const remote = makeGitRemote();
    remote.push('tonight.txt', 'pushed after the checkout\n');
    harness.fake.setResponder(byTask({ 'Task a': creates('a.txt') }));
    const handle = await startBatch({ workspace: remote.checkout, remote: 'origin', baseBranch: 'main', tasks: [task('a')] });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(fileOnBranch(remote.checkout, result.integrationBranch!, 'tonight.txt')).toBe('pushed after the checkout\n');
    expect(fileOnBranch(remote.checkout, result.integrationBranch!, 'a.txt')).toBe('a.txt\n');
    // The worker's own checkout was not moved.
    expect(fileOnBranch(remote.checkout, 'main', 'tonight.txt')).toBeUndefined();
  }, 120_000);

  test('a fetch that fails asks one question naming the remote and the error; stop ends the batch', async () => {
    const remote = makeGitRemote();
    const handle = await startBatch({ workspace: remote.checkout, remote: 'origin', baseBranch: 'gone', tasks: [task('a')] });
    const state = await waitForBatch(handle, (current) => current.openBlockers.length > 0);
    expect(state.status).toBe('blocked');
    expect(state.openBlockers).toHaveLength(1);
    expect(state.openBlockers[0]).toMatchObject({ origin: 'remote', options: ['retry', 'stop'] });
    expect(state.openBlockers[0].question).toContain('remote origin');
    expect(state.openBlockers[0].question).toContain("couldn't find remote ref refs/heads/gone");
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toContain('could not fetch from remote origin');
  }, 120_000);
});
