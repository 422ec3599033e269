import { realpath } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import { stringify } from 'yaml';
import { ErrorType } from '../shared/errors.js';
import { readWorkspaceDocument } from './batch-files.js';
import { writeFileAtomic } from './tools/atomic-write.js';
import { withParentDirectory } from './tools/safe-open.js';
import { ToolRefusal } from './tools/tool-outcome.js';
import { resolveInWorkspace } from './tools/workspace-path.js';

/** A PRD is prose; a megabyte is already far more than planning can use. */
const PRD_MAX_BYTES = 1024 * 1024;

/** Where an approved plan goes, relative to the workspace: the batch file `codeloop batch start` reads. */
export const planFilePath = (planId: string) => `codeloop/plans/${planId}.yaml`;

/** What planning reads and writes in the workspace besides the read-only tools. */
export function createPlanFileActivities() {
  return {
    async readPrdFile(input: { workspace: string; file: string }): Promise<string> {
      return readWorkspaceDocument(input, 'PRD', PRD_MAX_BYTES, ErrorType.InvalidInput);
    },

    /**
     * Writes the approved plan as a batch file, replacing an earlier write of the same plan (a retry) atomically. The
     * path is resolved and opened like the file tools' own, so a symlink in the way is refused, never followed.
     */
    async writePlanFile(input: { workspace: string; planId: string; batch: Record<string, unknown> }): Promise<string> {
      const relative = planFilePath(input.planId);
      const header = `# Plan ${input.planId}, written by codeloop when it was approved. Run it with: npx codeloop batch start ${relative}\n`;
      const content = Buffer.from(header + stringify(input.batch, { lineWidth: 0 }), 'utf8');
      try {
        const file = resolveInWorkspace(await realpath(input.workspace), relative);
        await withParentDirectory(file, relative, { create: true }, (directory) => writeFileAtomic(directory, content, { replace: true }));
      } catch (error) {
        const why = error instanceof ToolRefusal ? error.message : String(error);
        throw ApplicationFailure.nonRetryable(
          `cannot write the plan file ${relative} in ${input.workspace}: ${why}`,
          ErrorType.InvalidInput,
        );
      }
      return relative;
    },
  };
}
