import type { ScriptedToolCall } from '../../tests/support/fake-messages-api.js';

/**
 * The tool calls a scripted session makes, in the shapes the model sees (src/shared/tools.ts): a session reads,
 * edits, creates and runs things the way the agent does, so the task, its tools and its gates do real work.
 */
export const read = (path: string): ScriptedToolCall => ({ name: 'read_file', input: { path } });
export const list = (path = '.'): ScriptedToolCall => ({ name: 'list_files', input: { path } });
export const search = (pattern: string): ScriptedToolCall => ({ name: 'search_codebase', input: { pattern } });
export const create = (path: string, content: string): ScriptedToolCall => ({ name: 'create_file', input: { path, content } });
export const edit = (path: string, ...edits: [search: string, replace: string][]): ScriptedToolCall => ({
  name: 'edit_file',
  input: { path, edits: edits.map(([search, replace]) => ({ search, replace })) },
});
export const runTests = (testPath?: string): ScriptedToolCall => ({ name: 'run_tests', input: testPath ? { test_path: testPath } : {} });
export const run = (command: string): ScriptedToolCall => ({ name: 'run_command', input: { command } });
export const ask = (question: string, context?: string): ScriptedToolCall => ({
  name: 'raise_blocker',
  input: context ? { question, context } : { question },
});

/** Lines joined with newlines and a final newline: file content as an editor saves it. */
export const lines = (...text: string[]): string => `${text.join('\n')}\n`;
