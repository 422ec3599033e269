import { realpath } from 'node:fs/promises';
import { Context } from '@temporalio/activity';
import type { ToolInput } from '../../shared/tools.js';
import type { FoundLine, SearchEngine } from './search/search-engine.js';
import { defaultSearchEngine } from './search/search-engines.js';
import { observe, ok, type ToolOutcome } from './tool-outcome.js';

/** Characters shown of a matching line; a longer one ends in `…`. */
const MAX_LINE_CHARS = 200;

/**
 * `search_codebase`: a regular expression over the workspace's text files, line by line, by `engine` (ripgrep in
 * the sandbox where the worker has it; see `createSearchEngine`). Matching lines come back verbatim, indentation
 * included, as `path:line | text`, the form `read_file` shows them in, so a line can be pasted into an edit's search
 * block; then how many more there are.
 */
export async function searchCodebase(
  workspace: string,
  input: ToolInput<'search_codebase'>,
  engine: SearchEngine = defaultSearchEngine(),
): Promise<ToolOutcome> {
  return observe(async () => {
    const context = currentContext();
    const found = await engine.search(await realpath(workspace), {
      pattern: input.pattern,
      glob: input.file_glob,
      caseInsensitive: input.case_insensitive ?? false,
      maxResults: input.max_results,
      maxLineChars: MAX_LINE_CHARS,
      signal: context?.cancellationSignal,
      heartbeat: context && (() => context.heartbeat()),
    });
    const shownPattern = `/${input.pattern}/${input.case_insensitive ? 'i' : ''}`;
    if (found.total === 0) {
      const skipped = found.tooLarge ? `; skipped ${found.tooLarge} files over 1 MB` : '';
      return ok(`no matches for ${shownPattern} in ${found.files ?? 0} files matching ${input.file_glob ?? '**/*'}${skipped}`);
    }
    const more =
      found.total > found.shown.length ? `\n… ${found.total - found.shown.length} more matches; narrow the pattern or file_glob` : '';
    return ok(`${found.total} matches for ${shownPattern}:\n${found.shown.map(formatLine).join('\n')}${more}`);
  });
}

/** `path:line | text`, as `read_file` numbers lines. */
export function formatLine(found: FoundLine): string {
  return `${found.file}:${found.line} | ${found.text}`;
}

/** The running activity, so a long search heartbeats and stops when cancelled; `undefined` outside an activity. */
function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
