import type { ToolInput, ToolName } from '../../shared/tools.js';

const MAX_SUMMARY_CHARS = 120;

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line;
}

/**
 * The activity summary the Web UI shows for a tool call, e.g. `edit src/app.ts (2 edits)` or `run: npm test`,
 * so that a run's history reads like a transcript.
 */
export function summarizeToolCall<N extends ToolName>(name: N, input: ToolInput<N>): string {
  const call = { name, input } as { [K in ToolName]: { name: K; input: ToolInput<K> } }[ToolName];
  switch (call.name) {
    case 'read_file': {
      const { path, start_line: start, end_line: end } = call.input;
      return oneLine(start || end ? `read ${path}:${start ?? 1}-${end ?? 'end'}` : `read ${path}`);
    }
    case 'list_files':
      return oneLine(`list ${call.input.path ?? '.'}${call.input.pattern ? ` ${call.input.pattern}` : ''} (depth ${call.input.max_depth})`);
    case 'search_codebase':
      return oneLine(`search /${call.input.pattern}/${call.input.file_glob ? ` in ${call.input.file_glob}` : ''}`);
    case 'find_symbol':
      return oneLine(`find symbol ${call.input.name}`);
    case 'create_file':
      return oneLine(`create ${call.input.path}`);
    case 'delete_file':
      return oneLine(`delete ${call.input.path}`);
    case 'move_file':
      return oneLine(`move ${call.input.from} to ${call.input.to}`);
    case 'edit_file':
      return oneLine(`edit ${call.input.path} (${call.input.edits.length} edit${call.input.edits.length === 1 ? '' : 's'})`);
    case 'run_command':
      return oneLine(`run: ${call.input.command}`);
    case 'run_tests':
      return oneLine(`run tests${call.input.test_path ? `: ${call.input.test_path}` : ''}`);
    case 'raise_blocker':
      return oneLine(`ask: ${call.input.question}`);
  }
}
