import { mkdtempSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { byTask, byTurn } from './fake-messages-api.js';
import { useTaskHarness } from './task-harness.js';
import { gitUser, makeGitRepo } from './workspace.js';

/**
 * What the README's commands run with: a harness of the file's own, the environment the commands see (the task queue
 * becomes the file's own, `codeloop` in the README), and the batch results they wait for.
 */
export function useReadmeHarness(prefix: string) {
  const harness = useTaskHarness(prefix);
  return {
    harness,
    env: () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue, ...gitUser('operator') }),
    onOurQueue: (): [string, string] => ['--task-queue codeloop', `--task-queue ${harness.taskQueue}`],
    result: (workflowId: string) => harness.temporal.client.workflow.getHandle(workflowId).result() as Promise<BatchResult>,
  };
}

/** The tasks both README batches name, each creating one file. */
export const readmeTasks = () =>
  byTask({
    'Task model': byTurn([
      { toolCalls: [{ name: 'create_file', input: { path: 'task.py', content: 'TASK = 1\n' } }] },
      { text: 'model done' },
    ]),
    'CLI commands': byTurn([
      { toolCalls: [{ name: 'create_file', input: { path: 'cli.py', content: 'CLI = 1\n' } }] },
      { text: 'cli done' },
    ]),
  });

/** A git repository at `<tmp>/my-repo`, the name the README uses. */
export function myRepo(): string {
  const repo = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-readme-')), 'my-repo');
  renameSync(makeGitRepo(), repo);
  return repo;
}
