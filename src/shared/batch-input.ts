import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { DurationSchema } from './blockers.js';
import { dagProblems } from './dag.js';
import { ModelsSchema } from './models.js';
import { ErrorType } from './errors.js';
import {
  ComplexitySchema,
  EnvNamesSchema,
  MaxIterationsSchema,
  NetworkSchema,
  TaskInputFieldsSchema,
  TaskTitleSchema,
  WorkspacePathSchema,
} from './task-input.js';
import { describeUnknownKey, objectWithKnownKeys, parseOrFail } from './validation.js';
import { builtOnce } from './built-once.js';
import { MaxCostSchema, NotifyTargetSchema, PublishSchema, RemoteSchema } from './mornings.js';

/** Task ids become child workflow ids and git branch names, so they keep to a safe alphabet. */
export const TaskIdSchema = builtOnce('batch-input/TaskIdSchema', () =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, dots, dashes or underscores'),
);

/** Task input fields the batch sets for each task itself: a default for one would be silently overwritten. */
const SET_PER_TASK = new Set(['title', 'description', 'workspace', 'hostQueue', 'git', 'batchContext', 'reportSpend', 'reportOutage']);

/**
 * `taskDefaults` go into every child's task input, so each key must be a task input field and each value valid for
 * it; otherwise the batch would start and every child fail. The record itself is kept as written: filling in the
 * fields' defaults here would override the batch's own `network` and `env`.
 */
const TaskDefaultsSchema = builtOnce('batch-input/TaskDefaultsSchema', () =>
  z
    .record(z.string(), z.unknown())
    .default({})
    .superRefine((defaults, context) => {
      const fields = TaskInputFieldsSchema.shape;
      const known = Object.keys(fields);
      for (const [key, value] of Object.entries(defaults)) {
        if (!Object.hasOwn(fields, key)) {
          context.addIssue({ code: 'custom', path: [key], message: describeUnknownKey(key, known) });
        } else if (SET_PER_TASK.has(key)) {
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `the batch sets ${key} for each task itself; remove it from taskDefaults`,
          });
        } else {
          const parsed = fields[key as keyof typeof fields].safeParse(value);
          for (const issue of parsed.error?.issues ?? [])
            context.addIssue({ code: 'custom', path: [key, ...issue.path], message: issue.message });
        }
      }
    }),
);

export const BatchTaskSchema = builtOnce('batch-input/BatchTaskSchema', () =>
  objectWithKnownKeys({
    id: TaskIdSchema,
    title: TaskTitleSchema,
    description: z.string().trim().min(1),
    dependsOn: z.array(z.string()).default([]),
    workspace: WorkspacePathSchema.optional(),
    /**
     * The host whose queue (`codeloop@<host-id>`) holds this task's workspace: the workspace is bound there, not by
     * whichever worker answers first. Tasks that share a workspace share its host, so they must not name two.
     */
    hostQueue: z.string().min(1).optional(),
    prd: z.string().optional(),
    maxIterations: MaxIterationsSchema.optional(),
    complexity: ComplexitySchema.optional(),
    network: NetworkSchema.optional(),
    env: EnvNamesSchema.optional(),
    /** Questions answered for this task before (`codeloop batch resume --answer`); they go into its prompt. */
    answers: z.array(objectWithKnownKeys({ question: z.string(), answer: z.string() })).optional(),
    /** Checkable criteria the task must meet; they join its description. A plan writes them. */
    acceptance: z.array(z.string().trim().min(1)).optional(),
    /** The paths the task expects to touch, as a plan foresaw them; informational. */
    files: z.array(z.string().trim().min(1)).optional(),
    /** The headings of the batch's PRD this task needs, given to it instead of the whole PRD when that is too long. */
    prdSections: z.array(z.string().trim().min(1)).optional(),
    /** Names (with signatures) the task will add, e.g. `add_bookmark(url, title)`: checked against its code when it completes. */
    provides: z.array(z.string().trim().min(1)).optional(),
    /** Names of other tasks' work the task will call; shown in the plan in brief. */
    uses: z.array(z.string().trim().min(1)).optional(),
  }),
);

/** A list of batch tasks; anything else is named as such, with the shape it should have. */
const taskList = () => z.array(BatchTaskSchema, { error: 'must be a list of tasks, each { id, title, description, dependsOn? }' });

export const FAILURE_POLICIES = ['skip-dependents', 'fail-fast', 'continue'] as const;

/**
 * `batchConductorWorkflow`'s input. `tasksFile` (a path inside the workspace) lets a scheduled batch read tonight's
 * task list when it starts instead of carrying a fixed one.
 */
export const BatchInputSchema = builtOnce('batch-input/BatchInputSchema', () =>
  objectWithKnownKeys({
    batchId: TaskIdSchema.optional(),
    tasks: taskList().default([]),
    tasksFile: z.string().min(1).optional(),
    workspace: WorkspacePathSchema.optional(),
    maxParallel: z.number().int().min(1).max(500).default(4),
    onFailure: z.enum(FAILURE_POLICIES).default('skip-dependents'),
    /** A task that completes `unverified` (a gate could not say anything) counts as failed: it is not merged. */
    requireVerified: z.boolean().default(false),
    baseBranch: z.string().min(1).optional(),
    /**
     * The requirements the batch's tasks carry out (a plan writes it): each task's first message has it whole within
     * a budget, otherwise the sections its `prdSections` name.
     */
    prd: z.string().trim().min(1).optional(),
    /**
     * A git remote (`origin`) to fetch `baseBranch` (default: the remote's default branch) from before the
     * integration branch is cut, on the repository's host with the worker's git credentials.
     */
    remote: RemoteSchema.optional(),
    /** At the end: push the integration branch (or each completed task's) and open or update a pull request. */
    publish: PublishSchema.optional(),
    /** Where the morning message goes at the end (or the deadline): Slack-compatible and JSON webhooks, e-mail. */
    notify: z.array(NotifyTargetSchema).optional(),
    /** The night's spend cap in USD: at the soft limit no new task starts, at the hard one running tasks stop. */
    maxCostUsd: MaxCostSchema.optional(),
    /** What every task's commands may reach, unless `taskDefaults` or the task itself says otherwise. */
    network: NetworkSchema.optional(),
    env: EnvNamesSchema.optional(),
    /**
     * How long the batch may run, e.g. `6h`. At the deadline running and blocked tasks are cancelled, pending ones
     * skipped, and the batch ends with what each was waiting for. Default: none; 8h for a batch a schedule started.
     */
    deadline: DurationSchema.optional(),
    /** Models per purpose for every task, unless `taskDefaults` or the task names its own. */
    models: ModelsSchema.optional(),
    /** Task input fields every task gets unless it sets its own (approval, blockerTimeout, model, ...). */
    taskDefaults: TaskDefaultsSchema,
  }).superRefine((input, context) => {
    if (input.tasks.length === 0 && !input.tasksFile)
      context.addIssue({ code: 'custom', path: ['tasks'], message: 'a batch needs tasks or a tasksFile' });
    if (input.tasksFile && !input.workspace)
      context.addIssue({
        code: 'custom',
        path: ['workspace'],
        message: 'tasksFile is read from the batch workspace, so workspace is required',
      });
    input.tasks.forEach((task, index) => {
      if (!task.workspace && !input.workspace)
        context.addIssue({
          code: 'custom',
          path: ['tasks', index, 'workspace'],
          message: `task ${task.id} has no workspace and the batch has none`,
        });
    });
  }),
);

export type BatchInput = z.output<typeof BatchInputSchema>;
export type BatchTask = z.output<typeof BatchTaskSchema>;

/** Parses the input and validates its DAG; either failure is a non-retryable error that says what is wrong. */
export function parseBatchInput(raw: unknown): BatchInput {
  const input = parseOrFail(BatchInputSchema, raw, 'batch input');
  assertValidDag(input.tasks, input.workspace);
  return input;
}

/** The host queue each workspace is pinned to by its tasks' `hostQueue`; unpinned workspaces are absent. */
export function pinnedHosts(tasks: BatchTask[], workspace?: string): Map<string, string> {
  const pinned = new Map<string, string>();
  for (const task of tasks) {
    const where = task.workspace ?? workspace;
    if (task.hostQueue && where && !pinned.has(where)) pinned.set(where, task.hostQueue);
  }
  return pinned;
}

function hostProblems(tasks: BatchTask[], workspace?: string): string[] {
  const pinned = pinnedHosts(tasks, workspace);
  return tasks
    .filter((task) => task.hostQueue && pinned.get((task.workspace ?? workspace)!) !== task.hostQueue)
    .map(
      (task) =>
        `task ${task.id} pins workspace ${task.workspace ?? workspace} to ${task.hostQueue}, another task to ${pinned.get((task.workspace ?? workspace)!)}; one workspace has one host`,
    );
}

export function assertValidDag(tasks: BatchTask[], workspace?: string): void {
  const problems = [...dagProblems(tasks), ...hostProblems(tasks, workspace)];
  if (problems.length > 0) throw ApplicationFailure.nonRetryable(`invalid batch: ${problems.join('; ')}`, ErrorType.InvalidBatch);
}

/**
 * The tasks of a `tasksFile`: a list, or an object with a `tasks` list and nothing else. A bare list is read as
 * `{ tasks: [...] }`, so either form's problems are named by the same paths (`tasks.3.dependsOn`).
 */
export const TasksFileSchema = builtOnce('batch-input/TasksFileSchema', () =>
  z
    .preprocess(
      (file) => (Array.isArray(file) ? { tasks: file } : file),
      objectWithKnownKeys({ tasks: taskList() }, 'must be a list of tasks, or { tasks: [...] }'),
    )
    .transform((file) => file.tasks),
);
