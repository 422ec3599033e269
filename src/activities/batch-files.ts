import { readFile } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { BatchTask } from '../shared/batch-input.js';
import { parseTasksFile } from '../shared/batch-file.js';
import { ErrorType } from '../shared/errors.js';
import { resolveInWorkspace } from './tools/workspace-path.js';

/** Reads a batch's `tasksFile` when the batch starts, so a scheduled run picks up the file as it is tonight. */
export function createBatchFileActivities() {
  return {
    async readTasksFile(input: { workspace: string; file: string }): Promise<BatchTask[]> {
      let text: string;
      try {
        text = await readFile(resolveInWorkspace(input.workspace, input.file).absolute, 'utf8');
      } catch (error) {
        throw ApplicationFailure.nonRetryable(`cannot read tasks file ${input.file} in ${input.workspace}: ${(error as Error).message}`, ErrorType.InvalidBatch);
      }
      return parseTasksFile(text, input.file);
    },
  };
}
