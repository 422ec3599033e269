import path from 'node:path';
import { globInWorkspace } from '../glob-in-workspace.js';
import { looksBinary } from '../ignored-paths.js';
import { readRegularFile } from '../read-regular-file.js';
import { startRegexSearch, type SearchedFile } from '../regex-search.js';
import { refuse } from '../tool-outcome.js';
import { MAX_SEARCHED_FILE_BYTES, type SearchEngine, type SearchRequest, type SearchResult } from './search-engine.js';

/** Text handed to the search thread at a time: each batch gets the full time limit, and the activity heartbeats between them. */
const BATCH_BYTES = 4_000_000;

/**
 * The search a worker without ripgrep uses: a JavaScript regular expression over the workspace's text files, line
 * by line. Only regular files inside the workspace are read (see `globInWorkspace` and `readRegularFile`), and not
 * the ones the walk skips: the fixed list of dependency, cache and build directories, unless `file_glob` starts inside
 * one (`dist/**`), and gitignored paths, unless `file_glob` names the file without wildcards. Binaries and files over
 * 1 MB are skipped, and the regex runs on a thread of its own with a time limit, so a pattern that backtracks
 * without end costs the model one refused call and never blocks the worker. Far slower than ripgrep on a large tree:
 * every file is read into the worker.
 */
export const builtInSearch: SearchEngine = {
  name: 'built-in',
  description:
    'search_codebase uses its built-in search, because ripgrep (rg) is not installed: far slower on large repositories; ' +
    'install it (Debian/Ubuntu: apt-get install ripgrep) and restart the worker',
  async search(root, request) {
    const flags = request.caseInsensitive ? 'i' : '';
    try {
      new RegExp(request.pattern, flags);
    } catch (error) {
      refuse(`invalid regular expression ${request.pattern}: ${(error as Error).message}`);
    }
    const glob = request.glob ?? '**/*';
    const files = await globInWorkspace({ root, cwd: root, pattern: glob, option: 'file_glob', onlyFiles: true });
    return matchFiles(root, files, request, flags);
  },
};

/** Reads the files in batches on this thread and matches each batch on the search thread. */
async function matchFiles(root: string, files: string[], request: SearchRequest, flags: string): Promise<SearchResult> {
  const found: SearchResult = { total: 0, shown: [], files: files.length, tooLarge: 0 };
  if (files.length === 0) return found;
  const search = startRegexSearch(request.pattern, { maxLineChars: request.maxLineChars, flags, signal: request.signal });
  let batch: SearchedFile[] = [];
  let batchBytes = 0;
  const matchBatch = async () => {
    const matches = await search.match(batch, request.maxResults - found.shown.length);
    found.total += matches.total;
    found.shown.push(...matches.shown);
    batch = [];
    batchBytes = 0;
    request.heartbeat?.();
  };
  try {
    for (const file of files) {
      request.signal?.throwIfAborted();
      const bytes = await readRegularFile(root, path.join(root, file), MAX_SEARCHED_FILE_BYTES);
      if (bytes === 'too-large') found.tooLarge! += 1;
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
