import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { ToolInput } from '../../shared/tools.js';
import { globInWorkspace } from './glob-in-workspace.js';
import { looksBinary } from './ignored-paths.js';
import { readRegularFile } from './read-regular-file.js';
import { startRegexSearch, type MatchedLine, type SearchedFile } from './regex-search.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';

const MAX_FILE_BYTES = 1_000_000;
const MAX_LINE_CHARS = 200;
/** Text handed to the search thread at a time: each batch gets the full time limit, and the activity heartbeats between them. */
const BATCH_BYTES = 4_000_000;

/**
 * `search_codebase`: a regex over the workspace's text files, line by line. Only regular files inside the
 * workspace are read (see `globInWorkspace` and `readRegularFile`), and not the ones the walk skips: the fixed list
 * of dependency, cache and build directories, unless `file_glob` starts inside one (`dist/**`), and gitignored
 * paths, unless `file_glob` names the file without wildcards. Binaries and files over 1 MB are skipped, and
 * the regex runs on a thread of its own with a time limit, so a pattern that backtracks without end costs the model
 * one refused call and never blocks the worker.
 */
export async function searchCodebase(workspace: string, input: ToolInput<'search_codebase'>): Promise<ToolOutcome> {
  return observe(async () => {
    try {
      new RegExp(input.pattern);
    } catch (error) {
      return refuse(`invalid regular expression ${input.pattern}: ${(error as Error).message}`);
    }
    const glob = input.file_glob ?? '**/*';
    const root = await realpath(workspace);
    const files = await globInWorkspace({ root, cwd: root, pattern: glob, option: 'file_glob', onlyFiles: true });
    const found = await matchFiles(root, files, input);
    if (found.total === 0) {
      const skipped = found.tooLarge > 0 ? `; skipped ${found.tooLarge} files over 1 MB` : '';
      return ok(`no matches for /${input.pattern}/ in ${files.length} files matching ${glob}${skipped}`);
    }
    const shown = found.shown.map((match) => `${match.file}:${match.line}: ${match.text.trim()}`);
    const more = found.total > shown.length ? `\n… ${found.total - shown.length} more matches; narrow the pattern or file_glob` : '';
    return ok(`${found.total} matches for /${input.pattern}/:\n${shown.join('\n')}${more}`);
  });
}

interface Found {
  total: number;
  shown: MatchedLine[];
  tooLarge: number;
}

/** Reads the files in batches on this thread and matches each batch on the search thread. */
async function matchFiles(root: string, files: string[], input: ToolInput<'search_codebase'>): Promise<Found> {
  const found: Found = { total: 0, shown: [], tooLarge: 0 };
  if (files.length === 0) return found;
  const context = currentContext();
  const search = startRegexSearch(input.pattern, { maxLineChars: MAX_LINE_CHARS, signal: context?.cancellationSignal });
  let batch: SearchedFile[] = [];
  let batchBytes = 0;
  const matchBatch = async () => {
    const matches = await search.match(batch, input.max_results - found.shown.length);
    found.total += matches.total;
    found.shown.push(...matches.shown);
    batch = [];
    batchBytes = 0;
    context?.heartbeat();
  };
  try {
    for (const file of files) {
      context?.cancellationSignal.throwIfAborted();
      const bytes = await readRegularFile(root, path.join(root, file), MAX_FILE_BYTES);
      if (bytes === 'too-large') found.tooLarge += 1;
      if (typeof bytes === 'string' || looksBinary(bytes)) continue;
      batch.push({ name: file, bytes });
      batchBytes += bytes.length;
      if (batchBytes >= BATCH_BYTES) await matchBatch();
    }
    if (batch.length > 0) await matchBatch();
  } finally {
    await search.close();
  }
  return found;
}

/** The running activity, so a long search heartbeats and stops when cancelled; `undefined` outside an activity. */
function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
