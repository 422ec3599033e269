import { readFile, stat } from 'node:fs/promises';
import { READ_FILE } from '../../shared/constants.js';
import type { ToolInput } from '../../shared/tools.js';
import { looksBinary } from './ignored-paths.js';
import { numberLines, splitLines } from './numbered-lines.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

/**
 * `read_file`: line-numbered so the model can cite lines. A long file without a range shows its head and tail,
 * which is usually enough to decide where to look next.
 */
export async function readWorkspaceFile(workspace: string, input: ToolInput<'read_file'>): Promise<ToolOutcome> {
  return observe(async () => {
    const file = resolveInWorkspace(workspace, input.path);
    const info = await stat(file.absolute).catch(() => refuse(`file ${input.path} does not exist; use list_files to find it`));
    if (info.isDirectory()) refuse(`${input.path} is a directory; use list_files to see its contents`);
    const buffer = await readFile(file.absolute);
    if (looksBinary(buffer)) refuse(`${input.path} is a binary file (${buffer.length} bytes) and cannot be shown as text`);
    const lines = splitLines(buffer.toString('utf8'));
    const total = lines.length;
    const header = `${file.relative} (${total} lines)`;

    if (input.start_line !== undefined || input.end_line !== undefined) {
      const start = input.start_line ?? 1;
      const end = Math.min(input.end_line ?? total, total);
      if (start > total) refuse(`${input.path} has ${total} lines; start_line ${start} is past the end`);
      if (end < start) refuse(`end_line ${end} is before start_line ${start}`);
      return ok(`${header}, lines ${start}-${end}:\n${numberLines(lines.slice(start - 1, end), start, String(end).length)}`);
    }
    if (total <= READ_FILE.longFileLines) return ok(`${header}:\n${numberLines(lines, 1)}`);

    const width = String(total).length;
    const tailStart = total - READ_FILE.tailLines + 1;
    return ok(
      [
        `${header}; showing the first ${READ_FILE.headLines} and last ${READ_FILE.tailLines} lines:`,
        numberLines(lines.slice(0, READ_FILE.headLines), 1, width),
        `… lines ${READ_FILE.headLines + 1}-${tailStart - 1} omitted; pass start_line and end_line to read them …`,
        numberLines(lines.slice(tailStart - 1), tailStart, width),
      ].join('\n'),
    );
  });
}
