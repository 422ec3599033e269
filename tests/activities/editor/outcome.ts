import type { EditOutcome } from '../../../src/activities/editor/index.js';

/** The successful outcome, or a thrown error carrying the editor's own message. */
export function expectApplied(outcome: EditOutcome): Extract<EditOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`expected the edits to apply, got: ${outcome.message}`);
  return outcome;
}

export function expectRejected(outcome: EditOutcome): Extract<EditOutcome, { ok: false }> {
  if (outcome.ok) throw new Error(`expected the edits to fail, got content:\n${outcome.content}`);
  return outcome;
}

/** A file body from lines, each ending in `\n`. */
export function linesOf(...lines: string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}
