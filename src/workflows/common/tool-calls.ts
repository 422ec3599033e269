import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { ToolOutcome } from '../../activities/index.js';
import type { CommandAccess } from '../../shared/command-access.js';
import type { ToolResultBlock, ToolUseBlock } from '../../shared/conversation.js';
import { MAX_CHECK_SECONDS } from '../../shared/gates.js';
import {
  COMMAND_TOOLS,
  CONCURRENT_TOOLS,
  isToolName,
  TOOL_ACTIVITIES,
  toolInputSchemas,
  type ToolInput,
  type ToolName,
  type WorkspaceToolName,
} from '../../shared/tools.js';
import { describeIssues } from '../../shared/validation.js';
import { commandActivities, fileActivities } from './activities.js';
import { onHost, type HostWait } from './host-wait.js';
import { countToolCall } from './metrics.js';
import { summarizeToolCall } from './summaries.js';

/** Where a task's tools run: its workspace, on the host whose own queue is `hostQueue`, with what its commands may reach. */
export interface ToolTarget {
  workspace: string;
  hostQueue: string;
  access: CommandAccess;
  /** What failed before the task (the gates' baseline): `run_tests` lists new failures first and counts these. */
  knownFailures?: string[];
  /** How long the host may take to pick its work up, and who is asked past that. */
  hostWait?: HostWait;
}

/** What the workflow decides itself around the workspace tools. */
export interface ToolHooks {
  /** `raise_blocker`: ask a human; the answer is the tool result. */
  askHuman(input: ToolInput<'raise_blocker'>): Promise<ToolOutcome>;
  /** Before `run_command`: `undefined` to run it, or the tool result to return instead (a denial). */
  approveCommand(command: string): Promise<ToolOutcome | undefined>;
}

export interface ExecutedCall {
  call: ToolUseBlock;
  name?: ToolName;
  input?: unknown;
  /** The one-line summary of the step, as the Web UI shows it. */
  summary: string;
  outcome: ToolOutcome;
}

/** Schedules the tool's activity on the workspace host, with its summary as the Web UI shows it. */
function executeOnHost(name: WorkspaceToolName, input: unknown, target: ToolTarget, summary: string): Promise<ToolOutcome> {
  const activity = TOOL_ACTIVITIES[name];
  const options = { taskQueue: target.hostQueue, summary };
  const known = name === 'run_tests' && target.knownFailures?.length ? { knownFailures: target.knownFailures } : {};
  const call = [{ workspace: target.workspace, input, access: target.access, ...known }] as [never];
  return onHost(target.hostWait, summary, (limit) => {
    if (!COMMAND_TOOLS.has(name)) return fileActivities[activity].executeWithOptions({ ...options, ...limit }, call);
    // A command's own timeout plus a minute to report. run_tests' timeout is the workspace's (codeloop.json, up to an
    // hour), known only on its host: the heartbeat still notices a dead host within seconds.
    const seconds = name === 'run_command' ? (input as ToolInput<'run_command'>).timeout : MAX_CHECK_SECONDS;
    return commandActivities[activity].executeWithOptions({ ...options, ...limit, startToCloseTimeout: `${seconds + 60} seconds` }, call);
  });
}

/**
 * Runs one assistant turn's tool calls and returns a result for every one, in order. Consecutive calls that only
 * read (or ask a human) run at the same time; anything that writes or runs runs alone, in the order given.
 */
export async function executeToolCalls(calls: ToolUseBlock[], target: ToolTarget, hooks: ToolHooks): Promise<ExecutedCall[]> {
  const executed: ExecutedCall[] = [];
  let index = 0;
  while (index < calls.length) {
    let end = index + 1;
    if (isConcurrent(calls[index])) while (end < calls.length && isConcurrent(calls[end])) end += 1;
    executed.push(...(await Promise.all(calls.slice(index, end).map((call) => executeToolCall(call, target, hooks)))));
    index = end;
  }
  for (const { name, outcome } of executed) countToolCall(name, outcome.isError);
  return executed;
}

function isConcurrent(call: ToolUseBlock): boolean {
  return isToolName(call.name) && CONCURRENT_TOOLS.has(call.name);
}

async function executeToolCall(call: ToolUseBlock, target: ToolTarget, hooks: ToolHooks): Promise<ExecutedCall> {
  if (!isToolName(call.name)) {
    const known = Object.keys(toolInputSchemas).join(', ');
    const outcome = { content: `unknown tool ${call.name}; the tools are: ${known}`, isError: true };
    return { call, summary: `unknown tool ${call.name}`, outcome };
  }
  const name = call.name;
  const parsed = toolInputSchemas[name].safeParse(call.input);
  if (!parsed.success) {
    const outcome = { content: `invalid input for ${name}: ${describeIssues(parsed.error)}`, isError: true };
    return { call, name, input: call.input, summary: `${name} (invalid input)`, outcome };
  }
  const input = parsed.data;
  const summary = summarizeToolCall(name, input as never);
  if (name === 'raise_blocker') return { call, name, input, summary, outcome: await hooks.askHuman(input as ToolInput<'raise_blocker'>) };
  if (name === 'run_command') {
    const denied = await hooks.approveCommand((input as ToolInput<'run_command'>).command);
    if (denied) return { call, name, input, summary, outcome: denied };
  }
  try {
    return { call, name, input, summary, outcome: await executeOnHost(name, input, target, summary) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The activity failed after its retries: an infrastructure fault. The model hears about it and can go on.
    const cause = error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
    return { call, name, input, summary, outcome: { content: `${name} could not run on the worker: ${cause}`, isError: true } };
  }
}

/** The user message blocks that answer a turn's tool calls. */
export function toToolResults(executed: ExecutedCall[]): ToolResultBlock[] {
  return executed.map(({ call, outcome }) => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content: outcome.content,
    ...(outcome.isError ? { is_error: true } : {}),
  }));
}
