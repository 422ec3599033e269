import type { ToolInput } from '../../shared/tools.js';
import { applyEdits, type MatchLevel } from '../editor/index.js';
import { writeFileAtomic } from './atomic-write.js';
import { isConfigFile, rewritesWhole } from './config-files.js';
import { withFileLock } from './file-lock.js';
import { refuseGitWrite } from './git-directory.js';
import { openRegularFile, refuseNonRegular, withParentDirectory, type HeldDirectory } from './safe-open.js';
import { decodeText, encodeText, MAX_EDIT_BYTES, readUpTo, type TextFile } from './text-file.js';
import { observeFile, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

export interface EditContext {
  /**
   * The activity attempt running this call, 1 for the first. Only a retry may find its edits already in place
   * (its earlier attempt wrote them); on a first attempt a search block that is not in the file is a failed edit,
   * even when its replacement happens to be there already.
   */
  attempt: number;
}

/**
 * `edit_file`: search/replace blocks through the editor. Nothing is written unless every block applies, and a
 * retried call whose result is already in place succeeds without applying twice. The file's bytes outside the
 * edited lines, its byte order mark and its line endings are kept.
 */
export async function editWorkspaceFile(
  workspace: string,
  input: ToolInput<'edit_file'>,
  context: EditContext = { attempt: 1 },
): Promise<ToolOutcome> {
  return observeFile(input.path, async () => {
    const file = resolveInWorkspace(workspace, input.path);
    refuseGitWrite(file, input.path);
    return withFileLock(file.absolute, () =>
      withParentDirectory(file, input.path, { create: false, refuseMissing: () => refuseMissing(input.path) }, async (directory) => {
        const { original, mode } = await readEditable(directory, input.path);
        if (isConfigFile(file.relative) && input.edits.some((edit) => rewritesWhole(original.text, edit.search))) {
          refuse(`${file.relative} is a config file: edit only the lines that must change, not the whole file`);
        }
        const outcome = applyEdits(file.relative, original.text, input.edits, { retried: context.attempt > 1 });
        if (!outcome.ok) return refuse(outcome.message);
        if (!outcome.changed && context.attempt > 1)
          return ok(`${file.relative}: the requested change is already in place; nothing to do`, file.relative);
        if (!outcome.changed) refuse(describeNoChange(file.relative, outcome.levels));
        await writeFileAtomic(directory, encodeText({ ...original, text: outcome.content }), { replace: true, mode });
        const how = outcome.levels.some((level) => level !== 'exact') ? ` (matched: ${outcome.levels.join(', ')})` : '';
        return ok(`edited ${file.relative}${how}\n${outcome.diff}`, file.relative);
      }),
    );
  });
}

/** The file's text and permissions; refused unless it is a regular UTF-8 text file small enough to edit. */
async function readEditable(directory: HeldDirectory, requested: string): Promise<{ original: TextFile; mode: number }> {
  const entry = await openRegularFile(directory);
  if (entry.kind === 'missing') return refuseMissing(requested);
  if (entry.kind === 'other') return refuseNonRegular(requested, entry, 'edit_file edits only regular files');
  try {
    const bytes = await readUpTo(entry.handle, MAX_EDIT_BYTES + 1);
    if (bytes.length > MAX_EDIT_BYTES) {
      refuse(`${requested} is over ${MAX_EDIT_BYTES / 1024 / 1024} MB, too large for edit_file; change it with run_command`);
    }
    return { original: decodeText(bytes, requested), mode: entry.stats.mode };
  } finally {
    await entry.handle.close();
  }
}

function refuseMissing(requested: string): never {
  return refuse(`file ${requested} does not exist; use create_file for a new file`);
}

/**
 * On a first attempt, edits that match but change nothing are no success: the search block most likely quoted the
 * wrong lines (a typo matched fuzzily onto text that already reads as the replacement).
 */
function describeNoChange(relative: string, levels: MatchLevel[]): string {
  return (
    `the edits leave ${relative} unchanged: each replacement equals the text its search block matched (matched: ${levels.join(', ')}). ` +
    'If the file needs a change, copy the lines to change from read_file output into the search block and retry.'
  );
}
