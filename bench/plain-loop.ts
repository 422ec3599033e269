import { MockActivityEnvironment } from '@temporalio/testing';
import type { createActivities, ToolOutcome, WorkspaceBinding } from '../src/activities/index.js';
import type { Message, ModelTurn, ToolResultBlock, ToolUseBlock } from '../src/shared/conversation.js';
import type { ProjectContext } from '../src/shared/project-context.js';
import { buildSystemPrompt, kickoffMessage } from '../src/workflows/task/prompt.js';
import { parseTaskInput } from '../src/shared/task-input.js';
import { TOOL_ACTIVITIES, toolInputSchemas, type WorkspaceToolName } from '../src/shared/tools.js';

type Activities = ReturnType<typeof createActivities>;

/**
 * The same ReAct loop with no Temporal: the very activity functions the worker registers, called in process.
 * What the workflow adds on top of this is the durability overhead the benchmark measures.
 */
export async function runPlainLoop(activities: Activities, rawInput: unknown): Promise<{ iterations: number }> {
  const input = parseTaskInput(rawInput);
  const env = new MockActivityEnvironment();
  const binding: WorkspaceBinding = await env.run(activities.bindWorkspace, input.workspace);
  const project: ProjectContext = await env.run(activities.describeWorkspace, binding.workspace);
  const system = buildSystemPrompt(input, project);
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: kickoffMessage(input) }] }];
  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    const turn: ModelTurn = await env.run(activities.callModel, { model: input.model, system, messages, maxTokens: 8_192 });
    messages.push({ role: 'assistant', content: turn.content });
    const calls = turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    if (calls.length === 0) return { iterations: iteration };
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      const name = call.name as WorkspaceToolName;
      const parsed = toolInputSchemas[name].parse(call.input);
      const activity = activities[TOOL_ACTIVITIES[name]] as (call: {
        workspace: string;
        input: unknown;
      }) => Promise<{ content: string; isError: boolean }>;
      const outcome: ToolOutcome = await env.run(activity, { workspace: binding.workspace, input: parsed });
      results.push({ type: 'tool_result', tool_use_id: call.id, content: outcome.content, ...(outcome.isError ? { is_error: true } : {}) });
    }
    messages.push({ role: 'user', content: results });
  }
  throw new Error('budget exhausted');
}
