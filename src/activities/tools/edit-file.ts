import { readFile } from 'node:fs/promises';
import type { ToolInput } from '../../shared/tools.js';
import { applyEdits } from '../editor/index.js';
import { writeFileAtomic } from './atomic-write.js';
import { isConfigFile, rewritesWhole } from './config-files.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

/**
 * `edit_file`: search/replace blocks through the editor. Nothing is written unless every block applies, and a
 * retried call whose result is already in place succeeds without applying twice.
 */
export async function editWorkspaceFile(workspace: string, input: ToolInput<'edit_file'>): Promise<ToolOutcome> {
  return observe(async () => {
    const file = resolveInWorkspace(workspace, input.path);
    const original = await readFile(file.absolute, 'utf8').catch(() =>
      refuse(`file ${input.path} does not exist; use create_file for a new file`),
    );
    if (isConfigFile(file.relative) && input.edits.some((edit) => rewritesWhole(original, edit.search))) {
      refuse(`${file.relative} is a config file: edit only the lines that must change, not the whole file`);
    }
    const outcome = applyEdits(file.relative, original, input.edits);
    if (!outcome.ok) return refuse(outcome.message);
    if (!outcome.changed) return ok(`${file.relative}: the requested change is already in place; nothing to do`, file.relative);
    await writeFileAtomic(file.absolute, outcome.content);
    const how = outcome.levels.some((level) => level !== 'exact') ? ` (matched: ${outcome.levels.join(', ')})` : '';
    return ok(`edited ${file.relative}${how}\n${outcome.diff}`, file.relative);
  });
}
