import { COMMAND_OUTPUT_CHARS } from '../../shared/constants.js';
import { truncateMiddle } from '../../shared/truncate.js';
import type { ToolInput } from '../../shared/tools.js';
import { deniedReason } from '../process/deny-list.js';
import type { ProcessResult } from '../process/run-process.js';
import type { ToolOutcome } from './tool-outcome.js';

/** Runs a shell command in a workspace; injected so tests and the worker share one implementation. */
export type WorkspaceShell = (command: string, options: { workspace: string; timeoutMs: number }) => Promise<ProcessResult>;

/** One argument for a `WorkspaceShell` command line, single-quoted so the shell takes it literally. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * `run_command`: refused when the deny-list matches, otherwise run in the workspace with a scrubbed environment.
 * A non-zero exit or a timeout is an observation for the model, not a failed activity.
 */
export async function runWorkspaceCommand(
  shell: WorkspaceShell,
  workspace: string,
  input: ToolInput<'run_command'>,
): Promise<ToolOutcome> {
  const reason = deniedReason(input.command);
  if (reason) return { content: `command refused (${reason}): ${input.command}`, isError: true };
  const result = await shell(input.command, { workspace, timeoutMs: input.timeout * 1000 });
  return { content: describeRun(input.command, result, COMMAND_OUTPUT_CHARS), isError: result.exitCode !== 0 };
}

/** `$ cmd`, how it ended, then its output cut to `maxChars` keeping both ends. */
export function describeRun(command: string, result: ProcessResult, maxChars: number): string {
  const seconds = (result.durationMs / 1000).toFixed(1);
  const ending = result.timedOut
    ? `timed out after ${seconds}s; its process group was killed`
    : result.cancelled
      ? 'cancelled; its process group was killed'
      : `exit code ${result.exitCode} in ${seconds}s`;
  const output = result.output.trim() === '' ? '(no output)' : truncateMiddle(result.output.trimEnd(), maxChars);
  return `$ ${command}\n${ending}\n${output}`;
}
