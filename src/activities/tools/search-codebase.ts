import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import type { ToolInput } from '../../shared/tools.js';
import { IGNORE_GLOBS, looksBinary } from './ignored-paths.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';

const MAX_FILE_BYTES = 1_000_000;
const MAX_LINE_CHARS = 200;

/** `search_codebase`: a regex over the workspace's text files, line by line, skipping binaries and huge files. */
export async function searchCodebase(workspace: string, input: ToolInput<'search_codebase'>): Promise<ToolOutcome> {
  return observe(async () => {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern);
    } catch (error) {
      return refuse(`invalid regular expression ${input.pattern}: ${(error as Error).message}`);
    }
    const glob = input.file_glob ?? '**/*';
    if (path.isAbsolute(glob) || glob.split('/').includes('..')) refuse(`file_glob ${glob} must stay inside the workspace`);
    const files = (await fg(glob, { cwd: workspace, dot: true, ignore: IGNORE_GLOBS, followSymbolicLinks: false, suppressErrors: true })).sort();
    const matches: string[] = [];
    let total = 0;
    for (const file of files) {
      const absolute = path.join(workspace, file);
      // lstat: a symlink could lead outside the workspace, so only regular files are read.
      const info = await lstat(absolute).catch(() => undefined);
      if (!info?.isFile() || info.size > MAX_FILE_BYTES) continue;
      const buffer = await readFile(absolute);
      if (looksBinary(buffer)) continue;
      const lines = buffer.toString('utf8').split(/\r?\n/);
      lines.forEach((line, index) => {
        if (!regex.test(line)) return;
        total += 1;
        if (matches.length < input.max_results) {
          const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
          matches.push(`${file}:${index + 1}: ${text.trim()}`);
        }
      });
    }
    if (total === 0) return ok(`no matches for /${input.pattern}/ in ${files.length} files matching ${glob}`);
    const more = total > matches.length ? `\n… ${total - matches.length} more matches; narrow the pattern or file_glob` : '';
    return ok(`${total} matches for /${input.pattern}/:\n${matches.join('\n')}${more}`);
  });
}
