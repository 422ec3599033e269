import { readFile } from 'node:fs/promises';
import type { ToolInput } from '../../shared/tools.js';
import { writeFileAtomic } from './atomic-write.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

/**
 * `create_file` refuses to overwrite: changing an existing file goes through `edit_file`'s targeted edits.
 * A retry that finds its own content already there reports success instead of a confusing refusal.
 */
export async function createWorkspaceFile(workspace: string, input: ToolInput<'create_file'>): Promise<ToolOutcome> {
  return observe(async () => {
    const file = resolveInWorkspace(workspace, input.path);
    const existing = await readFile(file.absolute, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? undefined : refuse(`cannot create ${input.path}: ${error.code ?? error.message}`),
    );
    if (existing === input.content) return ok(`${file.relative} already exists with exactly this content`, file.relative);
    if (existing !== undefined) refuse(`${input.path} already exists; use edit_file to change it`);
    await writeFileAtomic(file.absolute, input.content);
    const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
    return ok(`created ${file.relative} (${lines} lines)`, file.relative);
  });
}
