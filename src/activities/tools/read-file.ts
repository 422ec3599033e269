import type { FileHandle } from 'node:fs/promises';
import { READ_FILE } from '../../shared/constants.js';
import { formatCount } from '../../text/format.js';
import type { ToolInput } from '../../shared/tools.js';
import { fitLines } from './numbered-lines.js';
import { shellQuote } from './run-command.js';
import { openRegularFile, refuseNonRegular, withParentDirectory } from './safe-open.js';
import { scanLines, type ScannedLine } from './scan-lines.js';
import { observeFile, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

/** Room left in `READ_FILE.maxChars` for the header and the notes around the lines. */
const NOTES_CHARS = 1_000;

/**
 * `read_file`: line-numbered so the model can cite lines. A long file without a range shows its head and tail,
 * which is usually enough to decide where to look next. Whatever is left out is named in a note saying how to
 * read it.
 */
export async function readWorkspaceFile(workspace: string, input: ToolInput<'read_file'>): Promise<ToolOutcome> {
  return observeFile(input.path, async () => {
    const file = resolveInWorkspace(workspace, input.path);
    const refuseMissing = () => refuse(`file ${input.path} does not exist; use list_files to find it`);
    return withParentDirectory(file, input.path, { create: false, refuseMissing }, async (directory) => {
      const entry = await openRegularFile(directory);
      if (entry.kind === 'missing') return refuseMissing();
      if (entry.kind === 'other' && entry.isDirectory) return refuse(`${input.path} is a directory; use list_files to see its contents`);
      if (entry.kind === 'other') return refuseNonRegular(input.path, entry, 'read_file reads only regular files');
      try {
        return ok(await showFile(entry.handle, entry.stats.size, file.relative, input));
      } finally {
        await entry.handle.close();
      }
    });
  });
}

async function showFile(handle: FileHandle, size: number, relative: string, input: ToolInput<'read_file'>): Promise<string> {
  const ranged = input.start_line !== undefined || input.end_line !== undefined;
  const start = input.start_line ?? 1;
  const scan = await scanLines(handle, {
    from: start,
    to: ranged ? Math.min(input.end_line ?? Infinity, start + READ_FILE.maxLines - 1) : READ_FILE.longFileLines,
    tail: ranged ? 0 : READ_FILE.tailLines,
    maxLineChars: READ_FILE.maxLineChars,
  });
  if (scan.binary) return refuse(`${input.path} is a binary file (${size} bytes) and cannot be shown as text`);
  const { total } = scan;
  const header = `${relative} (${total} lines)`;
  const budget = READ_FILE.maxChars - NOTES_CHARS - 2 * relative.length;

  if (ranged) {
    const end = Math.min(input.end_line ?? total, total);
    if (start > total) refuse(`${input.path} has ${total} lines; start_line ${start} is past the end`);
    if (end < start) refuse(`end_line ${end} is before start_line ${start}`);
    const shown = fitLines(scan.lines, String(end).length, budget);
    return [`${header}, lines ${start}-${shown.lines.at(-1)!.number}:`, shown.text, ...describeOmissions(shown.lines, end, relative)].join(
      '\n',
    );
  }
  if (total <= READ_FILE.longFileLines) {
    const shown = fitLines(scan.lines, String(total).length, budget);
    const last = shown.lines.at(-1)!.number;
    return [
      last === total ? `${header}:` : `${header}, lines 1-${last}:`,
      shown.text,
      ...describeOmissions(shown.lines, total, relative),
    ].join('\n');
  }

  const width = String(total).length;
  const tail = fitLines(scan.tail, width, budget / 5, true);
  const head = fitLines(scan.lines.slice(0, READ_FILE.headLines), width, budget - tail.text.length);
  const headEnd = head.lines.length;
  const tailStart = tail.lines[0]?.number ?? total + 1;
  return [
    `${header}; showing the first ${headEnd} and last ${tail.lines.length} lines:`,
    head.text,
    `… lines ${headEnd + 1}-${tailStart - 1} omitted; pass start_line and end_line to read them …`,
    tail.text,
    ...describeOmissions([...head.lines, ...tail.lines], 0, relative),
  ].join('\n');
}

/** Notes on what the shown lines leave out: the lines after them up to `end`, and the rest of any cut line. */
function describeOmissions(shown: ScannedLine[], end: number, relative: string): string[] {
  const notes: string[] = [];
  const last = shown.at(-1)?.number ?? 0;
  if (last < end) {
    notes.push(
      `… lines ${last + 1}-${end} not shown: one call shows at most ${formatCount(READ_FILE.maxLines)} lines and ` +
        `${formatCount(READ_FILE.maxChars)} characters; pass start_line ${last + 1} to read on …`,
    );
  }
  const cut = shown.filter((line) => line.cut);
  if (cut.length > 0) {
    const { number } = cut[0]!;
    const which = cut.length === 1 ? `line ${number} is` : `${cut.length} lines are`;
    notes.push(
      `… ${which} longer than ${formatCount(READ_FILE.maxLineChars)} characters and cut; read_file shows no more of a line. ` +
        `Find text in it with search_codebase, or print a part with run_command, e.g. ` +
        `sed -n '${number}p' ${shellQuote(relative)} | cut -c ${READ_FILE.maxLineChars + 1}-${2 * READ_FILE.maxLineChars} …`,
    );
  }
  return notes;
}
