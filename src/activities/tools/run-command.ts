import { COMMAND_OUTPUT_CHARS } from '../../shared/constants.js';
import { formatCount } from '../../text/format.js';
import { truncateMiddle } from '../../text/truncate.js';
import type { ToolInput } from '../../shared/tools.js';
import { countSandboxRefusal } from '../activity-metrics.js';
import { deniedReason } from '../process/deny-list.js';
import type { ProcessResult } from '../process/run-process.js';
import type { CommandAccess } from '../process/sandbox.js';
import type { SandboxMode } from '../../shared/command-access.js';
import type { ToolOutcome } from './tool-outcome.js';

/**
 * Runs a shell command in a workspace, in the worker's sandbox; injected so tests and the worker share one
 * implementation. `access` is what the task lets its commands reach (network, named variables); none by default.
 */
export type WorkspaceShell = ((
  command: string,
  options: { workspace: string; timeoutMs: number; access?: CommandAccess },
) => Promise<ProcessResult>) & {
  /**
   * Whether its commands run in the sandbox, which shows a task worktree at its checkout's path with the checkout's
   * dependencies (see `workspaceMounts`); unsandboxed they see the worktree as it is. Unset: the sandbox.
   */
  readonly sandboxMode?: SandboxMode;
};

/** The shell with a task's access applied, for a call's own commands and its linters alike. */
export const withAccess = (shell: WorkspaceShell, access: CommandAccess | undefined): WorkspaceShell =>
  Object.assign((command: string, options: Parameters<WorkspaceShell>[1]) => shell(command, { ...options, access }), {
    sandboxMode: shell.sandboxMode,
  });

/** One argument for a `WorkspaceShell` command line, single-quoted so the shell takes it literally. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * `run_command`: refused when the deny-list matches, otherwise run in the workspace's sandbox.
 * A non-zero exit or a timeout is an observation for the model, not a failed activity.
 */
export async function runWorkspaceCommand(shell: WorkspaceShell, workspace: string, input: ToolInput<'run_command'>): Promise<ToolOutcome> {
  const reason = deniedReason(input.command);
  if (reason) {
    countSandboxRefusal('denied_command');
    return { content: `command refused (${reason}): ${input.command}`, isError: true };
  }
  const result = await shell(input.command, { workspace, timeoutMs: input.timeout * 1000 });
  return { content: describeRun(input.command, result, COMMAND_OUTPUT_CHARS), isError: result.exitCode !== 0 };
}

/** `$ cmd`, how it ended, then its output cut to `maxChars` keeping both ends. */
export function describeRun(command: string, result: ProcessResult, maxChars: number): string {
  const output = result.output.trim() === '' ? '(no output)' : truncateMiddle(result.output.trimEnd(), maxChars);
  const cut =
    result.omittedBytes > 0
      ? `\n(the command wrote ${formatCount(result.outputBytes)} bytes of output; only its beginning and end were kept)`
      : '';
  const denied = result.networkDenied?.length
    ? `\n(the network refused ${result.networkDenied.join(', ')}: not on this task's network list)`
    : '';
  return `$ ${command}\n${describeEnding(result)}${cut}${denied}\n${output}`;
}

/** How a command ended, in words that cannot be mistaken: a timeout is never an exit code. */
export function describeEnding(result: ProcessResult): string {
  const seconds = (result.durationMs / 1000).toFixed(1);
  if (result.timedOut) return `timed out after ${result.timeoutSeconds} s; every process it started was killed`;
  if (result.cancelled) return 'cancelled; every process it started was killed';
  if (result.signal === 'SIGXFSZ') return `killed in ${seconds}s: it wrote a file past the size limit (SIGXFSZ)`;
  if (result.signal) return `killed by ${result.signal} in ${seconds}s`;
  return `exit code ${result.exitCode} in ${seconds}s`;
}
