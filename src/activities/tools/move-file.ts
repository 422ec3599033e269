import { rename } from 'node:fs/promises';
import type { ToolInput } from '../../shared/tools.js';
import { missing, resolveMovable } from './delete-file.js';
import type { EditContext } from './edit-file.js';
import { withFileLock } from './file-lock.js';
import { openRegularFile, refuseNonRegular, withParentDirectory, type HeldDirectory } from './safe-open.js';
import { observeFile, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';
import { refuseGitWrite } from './git-directory.js';

/**
 * `move_file`: renames one regular file inside the workspace (directories on the way to `to` are made), never from
 * or to `.git/`, and never over an existing file. Both ends are reached through directories held open, as every
 * file tool reaches its file. A retried call whose first attempt already moved the file succeeds.
 */
export async function moveWorkspaceFile(
  workspace: string,
  input: ToolInput<'move_file'>,
  context: EditContext = { attempt: 1 },
): Promise<ToolOutcome> {
  return observeFile(input.from, async () => {
    const from = await resolveMovable(workspace, input.from);
    const to = resolveInWorkspace(workspace, input.to);
    refuseGitWrite(to, input.to);
    if (to.relative === from.relative) refuse(`from and to are the same file: ${from.relative}`);
    const moved = { ...ok(`moved ${from.relative} to ${to.relative}`, to.relative), alsoChanged: [from.relative] };
    return withFileLock(from.absolute, () =>
      withParentDirectory(from, input.from, { create: false, refuseMissing: () => refuse(missing(input.from)) }, (source) =>
        withParentDirectory(to, input.to, { create: true }, async (target) => {
          const entry = await openRegularFile(source);
          const arrived = await openRegularFile(target);
          if (arrived.kind === 'file') await arrived.handle.close();
          if (entry.kind === 'missing' && arrived.kind === 'file' && context.attempt > 1) return moved;
          if (entry.kind === 'missing') return refuse(missing(input.from));
          if (entry.kind === 'other')
            return refuseNonRegular(input.from, entry, 'move_file moves only files; move a directory with run_command');
          await entry.handle.close();
          if (arrived.kind !== 'missing') return refuse(`${input.to} already exists; delete it first with delete_file if it should go`);
          await renameHeld(source, target);
          return moved;
        }),
      ),
    );
  });
}

/** The rename itself, both names looked up through their held directories. */
function renameHeld(source: HeldDirectory, target: HeldDirectory): Promise<void> {
  return rename(source.pathOf(), target.pathOf());
}
