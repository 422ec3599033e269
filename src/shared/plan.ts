import { z } from 'zod';
import { BatchTaskSchema, FAILURE_POLICIES, TaskIdSchema, type BatchTask } from './batch-input.js';
import { dagProblems, transitiveDependents } from './dag.js';
import { ModelsSchema } from './models.js';
import { ComplexitySchema, TaskInputFieldsSchema, WorkspacePathSchema } from './task-input.js';
import { describeIssues, objectWithKnownKeys, parseOrFail } from './validation.js';
import { builtOnce } from './built-once.js';
import { isSharedDocument } from './shared-documents.js';

/** One task of a plan: a batch task with the fields `submit_plan` asks for, each required so the model thinks about it. */
export const PlannedTaskSchema = builtOnce('plan/PlannedTaskSchema', () =>
  objectWithKnownKeys({
    id: TaskIdSchema,
    title: BatchTaskSchema.shape.title,
    description: BatchTaskSchema.shape.description,
    dependsOn: z.array(z.string()).default([]).describe('ids of the tasks whose work this one builds on'),
    complexity: ComplexitySchema.describe('1 (a small edit) to 5 (a new subsystem)'),
    acceptance: z.array(z.string().trim().min(1)).min(1).describe('checkable criteria: what a test or a reviewer can verify'),
    files: z.array(z.string().trim().min(1)).default([]).describe('paths the task expects to create or change'),
    provides: z
      .array(z.string().trim().min(1))
      .optional()
      .describe('public names the task adds, with signatures, e.g. "add_bookmark(url, title)"; checked against its code'),
    uses: z.array(z.string().trim().min(1)).optional().describe('other tasks\' names this task calls, e.g. "add_bookmark(url, title)"'),
    prdSections: z
      .array(z.string().trim().min(1))
      .optional()
      .describe('headings of the PRD this task needs; it gets only these when the PRD is too long to give whole'),
  }),
);

/** `submit_plan`'s input. */
export const SubmitPlanSchema = builtOnce('plan/SubmitPlanSchema', () =>
  objectWithKnownKeys({ tasks: z.array(PlannedTaskSchema).min(1, 'a plan needs at least one task') }, 'must be { tasks: [...] }'),
);

/** A submitted plan, or a reviewer's revision: a bare list of tasks is read as `{ tasks }`. */
const PlanSchema = builtOnce('plan/PlanSchema', () =>
  z.preprocess((plan) => (Array.isArray(plan) ? { tasks: plan } : plan), SubmitPlanSchema),
);

export type PlannedTask = z.output<typeof PlannedTaskSchema>;
export interface Plan {
  tasks: PlannedTask[];
  /** Ordering edges the plan gained because two tasks name the same file; one line each. */
  orderingNotes: string[];
}

/** `planWorkflow`'s input: one JSON object, so `temporal workflow start --type planWorkflow --input '{…}'` works. */
export const PlanInputSchema = builtOnce('plan/PlanInputSchema', () =>
  objectWithKnownKeys({
    workspace: WorkspacePathSchema,
    prd: z.string().trim().min(1).optional(),
    /** A path inside the workspace, read by the worker when planning starts. */
    prdFile: z.string().min(1).optional(),
    /** Names the plan file (`codeloop/plans/<planId>.yaml`) and the batch; default: from the workflow id. */
    planId: TaskIdSchema.optional(),
    maxTasks: z.number().int().min(1).max(100).default(12),
    /** The planning model; the same as `models.planning`. */
    model: z.string().min(1).optional(),
    /** `planning` plans; `default` and `summary` go to the batch's tasks. */
    models: ModelsSchema.optional(),
    /** Start `batchConductorWorkflow` on the plan once it is approved. */
    start: z.boolean().default(false),
    maxParallel: z.number().int().min(1).max(500).optional(),
    onFailure: z.enum(FAILURE_POLICIES).optional(),
    taskDefaults: z.record(z.string(), z.unknown()).optional(),
    /** Spend caps on planning's own model calls, checked before each; reaching one asks a human, as a task's do. */
    maxTotalTokens: TaskInputFieldsSchema.shape.maxTotalTokens,
    maxCostUsd: TaskInputFieldsSchema.shape.maxCostUsd,
    /** The planning model's context window in tokens; planning compacts its conversation at 85% of it. */
    contextWindow: TaskInputFieldsSchema.shape.contextWindow,
  }).superRefine((input, context) => {
    if (!input.prd === !input.prdFile)
      context.addIssue({
        code: 'custom',
        path: ['prd'],
        message: 'give exactly one of prd (the text) or prdFile (a path in the workspace)',
      });
  }),
);

export type PlanInput = z.output<typeof PlanInputSchema>;

export const parsePlanInput = (raw: unknown): PlanInput => parseOrFail(PlanInputSchema, raw, 'plan input');

/**
 * Checks a submitted or revised plan as the batch would, plus the plan's own limit, and orders tasks that name the
 * same file: two such tasks with no path between them would conflict at merge, so the later one in the list waits
 * for the earlier. Returns the plan, or every problem in words the model (or a reviewer) can act on.
 */
export function checkPlan(raw: unknown, maxTasks: number): { plan: Plan } | { problems: string[] } {
  const parsed = PlanSchema.safeParse(raw);
  if (!parsed.success) return { problems: [describeIssues(parsed.error)] };
  const tasks = parsed.data.tasks.map((task) => ({ ...task, dependsOn: [...task.dependsOn] }));
  const problems = dagProblems(tasks);
  if (tasks.length > maxTasks) problems.push(`${tasks.length} tasks is more than the ${maxTasks} allowed; merge the smallest ones`);
  if (problems.length > 0) return { problems };
  return { plan: { tasks, orderingNotes: orderSharedFiles(tasks) } };
}

function orderSharedFiles(tasks: PlannedTask[]): string[] {
  const notes: string[] = [];
  for (let later = 1; later < tasks.length; later++) {
    for (let earlier = 0; earlier < later; earlier++) {
      const [a, b] = [tasks[earlier], tasks[later]];
      // Shared documents (README.md, a changelog) are merged as text: they order nothing.
      const shared = a.files.filter((file) => b.files.includes(file) && !isSharedDocument(file));
      if (shared.length === 0 || connected(tasks, a.id, b.id)) continue;
      b.dependsOn.push(a.id);
      notes.push(`${b.id} now waits for ${a.id}: both change ${shared.join(', ')}`);
    }
  }
  return notes;
}

const connected = (tasks: PlannedTask[], a: string, b: string) =>
  transitiveDependents(tasks, a).includes(b) || transitiveDependents(tasks, b).includes(a);

/** The plan as a readable tree: each task under the task it waits for (first dependency), roots first. */
export function planTree(plan: Plan): string {
  const children = new Map<string | undefined, PlannedTask[]>();
  for (const task of plan.tasks) {
    const parent = task.dependsOn[0];
    children.set(parent, [...(children.get(parent) ?? []), task]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const task of children.get(parent) ?? []) {
      const others = task.dependsOn.slice(1);
      const also = others.length ? `, also after ${others.join(', ')}` : '';
      lines.push(`${'  '.repeat(depth)}- ${task.id}: ${task.title} (complexity ${task.complexity}${also})`);
      walk(task.id, depth + 1);
    }
  };
  walk(undefined, 0);
  const notes = plan.orderingNotes.map((note) => `- ${note}`);
  return [...lines, ...(notes.length ? ['', 'Ordering added for shared files:', ...notes] : [])].join('\n');
}

/** The plan as batch tasks, in the batch file format `codeloop batch start` reads. */
export function planBatchTasks(plan: Plan): BatchTask[] {
  return plan.tasks.map((task) => BatchTaskSchema.parse(task));
}
