import { readFile } from 'node:fs/promises';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { BatchTask } from '../shared/batch-input.js';
import { parseTasksFile } from '../shared/batch-file.js';
import { ErrorType } from '../shared/errors.js';
import { answeredQuestions } from '../shared/blockers.js';
import type { AnsweredQuestion } from '../shared/prompt.js';
import { getStateQuery } from '../workflows/messages.js';
import { resolveInWorkspace } from './tools/workspace-path.js';

/** What the conductor reads outside git: the batch's tasks file, and what a child task was told by humans. */
export function createBatchFileActivities() {
  return {
    /** Reads a batch's `tasksFile` when the batch starts, so a scheduled run picks up the file as it is tonight. */
    async readTasksFile(input: { workspace: string; file: string }): Promise<BatchTask[]> {
      let text: string;
      try {
        text = await readFile(resolveInWorkspace(input.workspace, input.file).absolute, 'utf8');
      } catch (error) {
        throw ApplicationFailure.nonRetryable(`cannot read tasks file ${input.file} in ${input.workspace}: ${(error as Error).message}`, ErrorType.InvalidBatch);
      }
      return parseTasksFile(text, input.file);
    },

    /**
     * The blockers a task's latest run had answered, from its `getState` (closed runs answer queries too), so the
     * batch can hand them to the task's next run. A task that never started has none.
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
