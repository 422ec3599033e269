import { applyEdit } from './apply-edit.js';
import { describeFailure } from './describe-failure.js';
import { splitLines } from './line-endings.js';
import type { ApplyOptions, Edit, EditOutcome, MatchLevel } from './types.js';
import { createUnifiedDiff } from './unified-diff.js';

/**
 * Applies search/replace edits in order, each to the result of the one before, all or none: if any edit fails the
 * outcome carries no content, so the caller writes nothing and the model can resend the whole list.
 *
 * Pure, so the `edit_file` activity stays a read, this call and an atomic write, and a retried activity gets the
 * same answer (with `retried`, edits already in the file report `already-applied` and change nothing).
 *
 * @param path the file's workspace-relative path, used only in the diff headers and messages
 */
export function applyEdits(path: string, original: string, edits: Edit[], options: ApplyOptions = { retried: false }): EditOutcome {
  let content = original;
  const levels: MatchLevel[] = [];
  for (const [editIndex, edit] of edits.entries()) {
    const step = applyEdit(content, edit, options);
    if (!step.ok) {
      const lines = splitLines(content).map((line) => line.text);
      const context = { path, editIndex, editCount: edits.length, lines, earlierEditsChanged: content !== original };
      return { ok: false, editIndex, message: describeFailure(step.failure, context) };
    }
    content = step.content;
    levels.push(step.level);
  }
  return { ok: true, content, diff: createUnifiedDiff(path, original, content), levels, changed: content !== original };
}
