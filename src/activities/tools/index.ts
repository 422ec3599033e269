import { Context } from '@temporalio/activity';
import type { ToolInput, ToolName } from '../../shared/tools.js';
import { findSymbol } from '../code-map/find-symbol.js';
import type { CommandAccess } from '../process/sandbox.js';
import { formatLintErrors, lintFile, readWorkspaceConfig, rememberOutcome } from '../verification/index.js';
import { createWorkspaceFile } from './create-file.js';
import { deleteWorkspaceFile } from './delete-file.js';
import { editWorkspaceFile } from './edit-file.js';
import { moveWorkspaceFile } from './move-file.js';
import { listWorkspaceFiles } from './list-files.js';
import { readWorkspaceFile } from './read-file.js';
import { runWorkspaceCommand, withAccess, type WorkspaceShell } from './run-command.js';
import { runWorkspaceTests } from './run-tests.js';
import { searchCodebase } from './search-codebase.js';
import type { SearchEngine } from './search/search-engine.js';
import type { ToolOutcome } from './tool-outcome.js';
import { typeCheckPrepared } from '../verification/type-check.js';

/** One tool call: the workspace on this host, the model's validated input, and what the task's commands may reach. */
export interface ToolCall<N extends ToolName> {
  workspace: string;
  input: ToolInput<N>;
  access?: CommandAccess;
  /** `run_tests` only: the test ids that failed before the task. */
  knownFailures?: string[];
}

export type { ToolOutcome } from './tool-outcome.js';
export type { WorkspaceShell } from './run-command.js';
export type { SearchEngine } from './search/search-engine.js';
export { createSearchEngine } from './search/search-engines.js';

/**
 * One activity per tool, so each step is its own event in history with its own summary. `search` is how
 * `search_codebase` searches (ripgrep in the worker's sandbox, see `createSearchEngine`); by default the engine this
 * process would make.
 */
export function createToolActivities(deps: { shell: WorkspaceShell; search?: SearchEngine }) {
  const shellFor = (call: { access?: CommandAccess }) => withAccess(deps.shell, call.access);
  return {
    readFile: (call: ToolCall<'read_file'>): Promise<ToolOutcome> => readWorkspaceFile(call.workspace, call.input),
    listFiles: (call: ToolCall<'list_files'>): Promise<ToolOutcome> => listWorkspaceFiles(call.workspace, call.input),
    searchCodebase: (call: ToolCall<'search_codebase'>): Promise<ToolOutcome> => searchCodebase(call.workspace, call.input, deps.search),
    findSymbol: (call: ToolCall<'find_symbol'>): Promise<ToolOutcome> => findSymbol(call.workspace, call.input, deps.search),
    createFile: async (call: ToolCall<'create_file'>): Promise<ToolOutcome> => {
      await typeCheckPrepared(call.workspace);
      return withLint(shellFor(call), call.workspace, await createWorkspaceFile(call.workspace, call.input));
    },
    editFile: async (call: ToolCall<'edit_file'>): Promise<ToolOutcome> => {
      await typeCheckPrepared(call.workspace);
      return withLint(shellFor(call), call.workspace, await editWorkspaceFile(call.workspace, call.input, { attempt: currentAttempt() }));
    },
    deleteFile: (call: ToolCall<'delete_file'>): Promise<ToolOutcome> =>
      deleteWorkspaceFile(call.workspace, call.input, { attempt: currentAttempt() }),
    moveFile: (call: ToolCall<'move_file'>): Promise<ToolOutcome> =>
      moveWorkspaceFile(call.workspace, call.input, { attempt: currentAttempt() }),
    runCommand: (call: ToolCall<'run_command'>): Promise<ToolOutcome> => runWorkspaceCommand(shellFor(call), call.workspace, call.input),
    runTests: (call: ToolCall<'run_tests'>): Promise<ToolOutcome> =>
      runWorkspaceTests(shellFor(call), call.workspace, call.input, call.knownFailures),
  };
}

/** The running activity's attempt, so `edit_file` knows a retry; 1 when a tool runs outside an activity. */
function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * Lints the file an edit or create wrote and appends the errors that are the change's to fix (under "LINT ERRORS
 * (must fix)", or "TYPE ERRORS"), with a count of the findings that were there before the task; only the former
 * count as failures. A clean check after errors says the errors are gone.
 */
async function withLint(shell: WorkspaceShell, workspace: string, outcome: ToolOutcome): Promise<ToolOutcome> {
  if (outcome.isError || !outcome.changedFile || !readWorkspaceConfig(workspace).lint) return outcome;
  const linted = await lintFile(shell, workspace, outcome.changedFile);
  if (!linted) return outcome;
  const report = rememberOutcome(workspace, outcome.changedFile, linted);
  return { ...outcome, content: outcome.content + formatLintErrors(report), ...(report.errors ? { lintErrors: report.errors } : {}) };
}
