import { lstat, realpath } from 'node:fs/promises';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { BatchTask } from '../shared/batch-input.js';
import { parseTasksFile, type OperatorAccess } from '../shared/batch-file.js';
import { ErrorType } from '../shared/errors.js';
import { answeredQuestions, type AnsweredQuestion } from '../shared/blockers.js';
import { getStateQuery } from '../shared/messages.js';
import { readRegularFile } from './tools/read-regular-file.js';
import { resolveInWorkspace } from './tools/workspace-path.js';

/** Far above a 50,000-task list; a bigger file is not read into the worker's memory. */
const TASKS_FILE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * A document named by a workflow's input (a tasks file, a PRD), read when the workflow needs it. Only a regular file
 * inside the workspace is opened: a FIFO there would otherwise hold the activity for ever. Anything else fails at
 * once with `errorType`, naming the file and why.
 */
export async function readWorkspaceDocument(input: { workspace: string; file: string }, what: string, maxBytes: number, errorType: string) {
  const cannotRead = (why: string) =>
    ApplicationFailure.nonRetryable(`cannot read ${what} ${input.file} in ${input.workspace}: ${why}`, errorType);
  let bytes: Awaited<ReturnType<typeof readRegularFile>>;
  try {
    const root = await realpath(input.workspace);
    const file = resolveInWorkspace(root, input.file).absolute;
    await lstat(file); // a missing file is named as such, not as "not a regular file"
    bytes = await readRegularFile(root, file, maxBytes);
  } catch (error) {
    throw cannotRead((error as Error).message);
  }
  if (bytes === 'not-regular')
    throw cannotRead('it is not a regular file inside the workspace (a FIFO, device, directory or symlink out is never read)');
  if (bytes === 'too-large') throw cannotRead(`it is larger than ${maxBytes / 1024 / 1024} MB`);
  return bytes.toString('utf8');
}

/** What the conductor reads outside git: the batch's tasks file, and (for older runs) what a child task was told by humans. */
export function createBatchFileActivities() {
  return {
    /**
     * Reads a batch's `tasksFile` when the batch starts, so a scheduled run picks up the file as it is tonight. Only a
     * regular file inside the workspace is opened: a FIFO there would otherwise hold the activity for ever. Its tasks
     * may not ask for more than `access`, what the batch input gives (see `parseTasksFile`).
     */
    async readTasksFile(input: { workspace: string; file: string; access?: OperatorAccess }): Promise<BatchTask[]> {
      const text = await readWorkspaceDocument(input, 'tasks file', TASKS_FILE_MAX_BYTES, ErrorType.InvalidBatch);
      return parseTasksFile(text, input.file, input.access);
    },

    /**
     * The blockers a task's latest run had answered, from its `getState` (closed runs answer queries too). Only batch
     * runs whose history predates `batchAnswersFromReports` call it (newer ones get the answers with the child's final
     * report); it goes when that patch is deprecated. A task that never started has none.
     */
    async readAnsweredQuestions(workflowId: string): Promise<AnsweredQuestion[]> {
      try {
        const state = await Context.current().client.workflow.getHandle(workflowId).query(getStateQuery);
        return answeredQuestions(state.answeredBlockers);
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return [];
        throw error;
      }
    },
  };
}
