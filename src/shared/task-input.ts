import { z } from 'zod';
import { BLOCKER_TIMEOUT_ACTIONS, DurationSchema } from './blockers.js';
import { DEFAULT_MAX_ITERATIONS } from './constants.js';
import { parseOrFail } from './validation.js';

/** Field rules a batch's tasks share with the task input, so a batch accepts exactly what its child tasks will. */
export const TaskTitleSchema = z.string().trim().min(1).max(200);
export const WorkspacePathSchema = z.string().startsWith('/', 'must be an absolute path on the worker host');
export const MaxIterationsSchema = z.number().int().min(1).max(1000);
export const ComplexitySchema = z.number().int().min(1).max(5);
/** Whether the task's commands may use the network: `on` shares the worker's network with the sandbox. */
export const NetworkSchema = z.enum(['off', 'on']);
/** Names of worker environment variables the task's commands may see, beyond the sandbox's allow-list. */
export const EnvNamesSchema = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).max(100);

/**
 * `agentTaskWorkflow`'s input: one JSON object, so `temporal workflow start --input '{…}'` works as written.
 * The CLI parses it with this schema before starting, and the workflow parses it again first thing.
 */
export const TaskInputSchema = z
  .object({
    title: TaskTitleSchema.optional(),
    description: z.string().trim().min(1, 'must describe the task'),
    workspace: WorkspacePathSchema,
    prd: z.string().optional(),
    /** Iteration budget; without it, 30 scaled by `complexity`. */
    maxIterations: MaxIterationsSchema.optional(),
    /** 1 (trivial) to 5 (greenfield): scales the default budget, CodeFRAME's 30 × (1 + (c − 1) × 0.5), 15 to 100. */
    complexity: ComplexitySchema.default(1),
    model: z.string().min(1).optional(),
    /** How long a blocker may wait for an answer, e.g. `7d`; unset waits for ever. */
    blockerTimeout: DurationSchema.optional(),
    /** On a blocker timeout: fail the task, or carry on and let the agent use its best judgement. */
    onBlockerTimeout: z.enum(BLOCKER_TIMEOUT_ACTIONS).default('fail'),
    /** Which `run_command` calls wait for a human's approve/deny first. */
    approval: z.enum(['never', 'risky', 'always']).default('never'),
    /** Spend caps, checked before each model call against its projected size; reaching one raises a blocker. */
    maxTotalTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
    /** Context window in tokens; default the model's own (200K). A smaller one compacts sooner and costs less. */
    contextWindow: z.number().int().min(10_000).max(2_000_000).optional(),
    /** A loop the nudge did not break: ask a human, or fail the task. */
    onLoop: z.enum(['blocker', 'fail']).default('blocker'),
    /** No successful tool call for this long is a stall (default 5 minutes). */
    stallTimeout: DurationSchema.default('5m'),
    /** On a stall: retry the model turn (twice, then ask), ask a human, or fail. */
    onStall: z.enum(['retry', 'blocker', 'fail']).default('retry'),
    /** Run the workspace tools on this host's queue (`codeloop@<host-id>`); a batch pins its tasks to its repo's host. */
    hostQueue: z.string().min(1).optional(),
    /** What the task's commands may reach beyond the workspace; see README "Safety". */
    network: NetworkSchema.default('off'),
    env: EnvNamesSchema.default([]),
    /** Questions answered in an earlier run of this task; they go into the task layer of the prompt. */
    answers: z.array(z.object({ question: z.string(), answer: z.string() })).default([]),
  })
  .transform((input) => ({
    ...input,
    title: input.title ?? titleFrom(input.description),
    maxIterations: input.maxIterations ?? iterationBudget(input.complexity),
  }));

export type TaskInput = z.output<typeof TaskInputSchema>;
/** What callers may send: defaults filled in by parsing. */
export type TaskInputRaw = z.input<typeof TaskInputSchema>;

export function parseTaskInput(raw: unknown): TaskInput {
  return parseOrFail(TaskInputSchema, raw, 'task input');
}

/** CodeFRAME's adaptive budget: 30 × (1 + (c − 1) × 0.5), clamped to 15–100. */
export function iterationBudget(complexity: number): number {
  return Math.min(100, Math.max(15, Math.round(DEFAULT_MAX_ITERATIONS * (1 + (complexity - 1) * 0.5))));
}

function titleFrom(description: string): string {
  const firstLine = description.split('\n')[0].trim();
  return firstLine.length <= 72 ? firstLine : `${firstLine.slice(0, 71)}…`;
}
