import type { ToolInput } from '../../shared/tools.js';
import { writeFileAtomic } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import { refuseGitWrite } from './git-directory.js';
import { openRegularFile, refuseNonRegular, withParentDirectory } from './safe-open.js';
import { readUpTo } from './text-file.js';
import { observeFile, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

/**
 * `create_file` refuses to overwrite: changing an existing file goes through `edit_file`'s targeted edits.
 * A retry that finds its own content already there reports success instead of a confusing refusal.
 */
export async function createWorkspaceFile(workspace: string, input: ToolInput<'create_file'>): Promise<ToolOutcome> {
  return observeFile(input.path, async () => {
    const file = resolveInWorkspace(workspace, input.path);
    refuseGitWrite(file, input.path);
    const content = Buffer.from(input.content, 'utf8');
    const refuseExisting = () => refuse(`${input.path} already exists; use edit_file to change it`);
    return withFileLock(file.absolute, () =>
      withParentDirectory(file, input.path, { create: true }, async (directory) => {
        const existing = await openRegularFile(directory);
        if (existing.kind === 'other') return refuseNonRegular(input.path, existing, 'create_file writes only new regular files');
        if (existing.kind === 'file') {
          const same = await readUpTo(existing.handle, content.length + 1).finally(() => existing.handle.close());
          if (same.equals(content)) return ok(`${file.relative} already exists with exactly this content`, file.relative);
          return refuseExisting();
        }
        if (!(await writeFileAtomic(directory, content, { replace: false }))) refuseExisting();
        const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
        return ok(`created ${file.relative} (${lines} lines)`, file.relative);
      }),
    );
  });
}
