import type { ToolInput, ToolName } from '../../shared/tools.js';
import { formatLintErrors, lintFile, readWorkspaceConfig } from '../verification/index.js';
import { createWorkspaceFile } from './create-file.js';
import { editWorkspaceFile } from './edit-file.js';
import { listWorkspaceFiles } from './list-files.js';
import { readWorkspaceFile } from './read-file.js';
import { runWorkspaceCommand, type WorkspaceShell } from './run-command.js';
import { runWorkspaceTests } from './run-tests.js';
import { searchCodebase } from './search-codebase.js';
import type { ToolOutcome } from './tool-outcome.js';

/** One tool call: the workspace on this host and the model's validated input. */
export interface ToolCall<N extends ToolName> {
  workspace: string;
  input: ToolInput<N>;
}

export type { ToolOutcome } from './tool-outcome.js';
export type { WorkspaceShell } from './run-command.js';

/** One activity per tool, so each step is its own event in history with its own summary. */
export function createToolActivities(deps: { shell: WorkspaceShell }) {
  return {
    readFile: (call: ToolCall<'read_file'>): Promise<ToolOutcome> => readWorkspaceFile(call.workspace, call.input),
    listFiles: (call: ToolCall<'list_files'>): Promise<ToolOutcome> => listWorkspaceFiles(call.workspace, call.input),
    searchCodebase: (call: ToolCall<'search_codebase'>): Promise<ToolOutcome> => searchCodebase(call.workspace, call.input),
    createFile: async (call: ToolCall<'create_file'>): Promise<ToolOutcome> =>
      withLint(deps.shell, call.workspace, await createWorkspaceFile(call.workspace, call.input)),
    editFile: async (call: ToolCall<'edit_file'>): Promise<ToolOutcome> =>
      withLint(deps.shell, call.workspace, await editWorkspaceFile(call.workspace, call.input)),
    runCommand: (call: ToolCall<'run_command'>): Promise<ToolOutcome> => runWorkspaceCommand(deps.shell, call.workspace, call.input),
    runTests: (call: ToolCall<'run_tests'>): Promise<ToolOutcome> => runWorkspaceTests(deps.shell, call.workspace, call.input),
  };
}

/** Lints the file an edit or create wrote and appends what is left under "LINT ERRORS (must fix)". */
async function withLint(shell: WorkspaceShell, workspace: string, outcome: ToolOutcome): Promise<ToolOutcome> {
  if (outcome.isError || !outcome.changedFile || !readWorkspaceConfig(workspace).lint) return outcome;
  const report = await lintFile(shell, workspace, outcome.changedFile);
  if (!report?.errors) return outcome;
  return { ...outcome, content: outcome.content + formatLintErrors(report), lintErrors: report.errors };
}
