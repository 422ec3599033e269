import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { byTask, byTurn, type Responder } from '../support/fake-messages-api.js';
import { startWebhookReceiver } from '../support/morning-receivers.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('batch-budget');

const startBatch = (input: Record<string, unknown>) =>
  harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('batch-budget'),
  });

const task = (id: string) => ({ id, title: `Task ${id}`, description: `do ${id}` });
const creates = (file: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: `created ${file}` }]);
/** A task that would go on for ever: each turn lists the files again, a little later. */
const endless: Responder = async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { toolCalls: [{ name: 'list_files', input: {} }] };
};

describe('a budget', () => {
  test('at the soft limit no new task starts: the running one finishes and merges, the rest are skipped, and the result says budget', async () => {
    const hooks = await startWebhookReceiver();
    try {
      harness.fake.setResponder(byTask({ 'Task a': creates('a.txt'), 'Task b': creates('b.txt'), 'Task c': creates('c.txt') }));
      // One model call of the fake costs about a tenth of a cent: the first call reaches the soft limit.
      const handle = await startBatch({
        workspace: makeGitRepo(),
        tasks: [task('a'), task('b'), task('c')],
        maxParallel: 1,
        maxCostUsd: { soft: 0.0001, hard: 1 },
        notify: [{ kind: 'webhook', url: `${hooks.url}/budget` }],
      });
      const result = (await handle.result()) as BatchResult;
      expect(result.status).toBe('budget');
      expect(result.tasks.map(({ id, status }) => ({ id, status }))).toEqual([
        { id: 'a', status: 'completed' },
        { id: 'b', status: 'skipped' },
        { id: 'c', status: 'skipped' },
      ]);
      expect(result.tasks[1].reason).toMatch(/^not started: the batch reached its budget \(\$0\.\d{4} spent, soft limit \$0\.0001\)$/);
      expect(result.budget).toMatchObject({ softUsd: 0.0001, hardUsd: 1, reached: 'soft', spentUsd: result.totals.costUsd });
      expect(result.budget!.spentUsd).toBeGreaterThan(0.0001);
      expect(result.budget!.byPurpose.default).toMatchObject({ calls: 2, costUsd: result.totals.costUsd });
      // The morning message leads with the budget.
      const [post] = hooks.posts;
      expect(hooks.posts).toHaveLength(1);
      expect(String(post.body.text).split('\n')[0]).toBe(
        `Budget reached: no new task started: spent $${result.totals.costUsd.toFixed(2)} of $0.00 soft, $1.00 hard (default $${result.totals.costUsd.toFixed(4)} (2 calls))`,
      );
      await recordHistory('batch-budget-soft', handle);
    } finally {
      await hooks.close();
    }
  }, 120_000);

  test('at the hard limit a running task is cancelled after its step, from the spend it reports as it goes', async () => {
    harness.fake.setResponder(byTask({ 'Task a': endless, 'Task b': creates('b.txt') }));
    const handle = await startBatch({ workspace: makeGitRepo(), tasks: [task('a'), task('b')], maxParallel: 1, maxCostUsd: 0.003 });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('budget');
    expect(result.tasks[0]).toMatchObject({ id: 'a', status: 'cancelled' });
    expect(result.tasks[0].reason).toMatch(/^stopped at the batch's budget \(\$0\.\d{4} spent, hard limit \$0\.003\)$/);
    expect(result.tasks[1]).toMatchObject({ id: 'b', status: 'skipped' });
    expect(result.budget).toMatchObject({ softUsd: 0.003, hardUsd: 0.003, reached: 'hard' });
    expect(result.budget!.spentUsd).toBeGreaterThanOrEqual(0.003);
    // It stopped within a call or two of the limit, not at the task's own iteration budget.
    expect(result.tasks[0].iterations ?? 0).toBeLessThan(10);
    await recordHistory('batch-budget-hard', handle);
  }, 120_000);
});
