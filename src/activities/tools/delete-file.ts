import { lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ToolInput } from '../../shared/tools.js';
import type { EditContext } from './edit-file.js';
import { withFileLock } from './file-lock.js';
import { refuseGitWrite } from './git-directory.js';
import { openRegularFile, refuseNonRegular, withParentDirectory } from './safe-open.js';
import { observeFile, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace, type WorkspacePath } from './workspace-path.js';

/**
 * `delete_file`: removes one regular file inside the workspace, never under `.git/`, through the directory held open
 * (a path swapped for a symlink meanwhile is refused, never followed). A retried call whose first attempt already
 * removed the file succeeds. The deletion is a change like an edit: the task's trail records it.
 */
export async function deleteWorkspaceFile(
  workspace: string,
  input: ToolInput<'delete_file'>,
  context: EditContext = { attempt: 1 },
): Promise<ToolOutcome> {
  return observeFile(input.path, async () => {
    const file = await resolveMovable(workspace, input.path);
    return withFileLock(file.absolute, () =>
      withParentDirectory(file, input.path, { create: false, refuseMissing: () => refuse(missing(input.path)) }, async (directory) => {
        const entry = await openRegularFile(directory);
        if (entry.kind === 'missing') return refuseMissing(input.path, context);
        if (entry.kind === 'other')
          return refuseNonRegular(input.path, entry, 'delete_file deletes only files; remove a directory with run_command');
        await entry.handle.close();
        await unlink(directory.pathOf());
        return ok(`deleted ${file.relative}`, file.relative);
      }),
    );
  });
}

/**
 * A path the file tools may remove or move: inside the workspace, not under `.git/`, not the workspace itself, and
 * not a symlink (the path would resolve to the file it points to, which is not what removing a link means).
 */
export async function resolveMovable(workspace: string, requested: string): Promise<WorkspacePath> {
  const link = await lstat(path.resolve(workspace, requested)).catch(() => undefined);
  const file = resolveInWorkspace(workspace, requested);
  refuseGitWrite(file, requested);
  if (file.relative === '.') refuse(`${requested} is the workspace itself`);
  if (link?.isSymbolicLink()) refuse(`${requested} is a symlink; remove or move a link with run_command`);
  return file;
}

/** The refusal for a file to remove or move that is not there. */
export const missing = (requested: string) => `file ${requested} does not exist; use list_files to find it`;

function refuseMissing(requested: string, context: EditContext): ToolOutcome {
  // A retry finds the file gone because its first attempt removed it.
  if (context.attempt > 1) return ok(`${requested} is already gone; nothing to do`, requested);
  return refuse(missing(requested));
}
