import { z } from 'zod';
import { BranchNameSchema, RemoteSchema } from './mornings.js';
import { ModelsSchema } from './models.js';
import { BLOCKER_TIMEOUT_ACTIONS, DurationSchema } from './blockers.js';
import { DEFAULT_MAX_ITERATIONS } from './constants.js';
import { GATE_MODES } from './gates.js';
import { objectWithKnownKeys, parseOrFail } from './validation.js';
import { builtOnce } from './built-once.js';
import { NetworkSchema } from './network-access.js';

/** Field rules a batch's tasks share with the task input, so a batch accepts exactly what its child tasks will. */
export const TaskTitleSchema = builtOnce('task-input/TaskTitleSchema', () => z.string().trim().min(1).max(200));
/** An absolute path that is not `/`, a system directory or a home directory itself: see `refuseWorkspace`. */
export const WorkspacePathSchema = builtOnce('task-input/WorkspacePathSchema', () =>
  z
    .string()
    .startsWith('/', 'must be an absolute path on the worker host')
    .superRefine((workspace, context) => {
      const refusal = refuseWorkspace(workspace);
      if (refusal) context.addIssue({ code: 'custom', message: refusal });
    }),
);
export const MaxIterationsSchema = builtOnce('task-input/MaxIterationsSchema', () => z.number().int().min(1).max(1000));
export const ComplexitySchema = builtOnce('task-input/ComplexitySchema', () => z.number().int().min(1).max(5));
export { NetworkSchema };
export const GIT_MODES = ['branch', 'in-place'] as const;
/**
 * codeloop's own credentials: the model key and the payload store's keys and address. No input can hand them to a
 * command (see `isCodeloopCredential`).
 */
const CODELOOP_CREDENTIALS = /^(ANTHROPIC_|CODELOOP_PAYLOAD_)/i;

/** Whether a variable is one of codeloop's own credentials, which never reach a command whatever a task asks. */
export const isCodeloopCredential = (name: string) => CODELOOP_CREDENTIALS.test(name);

/** Names of worker environment variables the task's commands may see, beyond the sandbox's allow-list. */
export const EnvNamesSchema = builtOnce('task-input/EnvNamesSchema', () =>
  z
    .array(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
        .refine((name) => !isCodeloopCredential(name), {
          error: (issue) => `${String(issue.input)} is codeloop's own credential and never reaches a command`,
        }),
    )
    .max(100),
);

/**
 * The fields of `agentTaskWorkflow`'s input, as sent. An unknown key is refused by name: a typo such as `aproval` must
 * not quietly leave a default in force. A batch checks its `taskDefaults` against these fields too.
 */
export const TaskInputFieldsSchema = builtOnce('task-input/TaskInputFieldsSchema', () =>
  objectWithKnownKeys({
    title: TaskTitleSchema.optional(),
    description: z.string().trim().min(1, 'must describe the task'),
    workspace: WorkspacePathSchema,
    prd: z.string().optional(),
    /** Iteration budget; without it, 30 scaled by `complexity`. */
    maxIterations: MaxIterationsSchema.optional(),
    /** 1 (trivial) to 5 (greenfield): scales the default budget, CodeFRAME's 30 × (1 + (c − 1) × 0.5), 15 to 100. */
    complexity: ComplexitySchema.default(1),
    model: z.string().min(1).optional(),
    /** A model per purpose: `default` (the agent's turns, same as `model`), `summary` (compaction); planning is the plan's. */
    models: ModelsSchema.optional(),
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
    /** Set by a batch with a `maxCostUsd`: the task tells the batch what it has spent after each model call. */
    reportSpend: z.boolean().optional(),
    /**
     * Set by a batch that pauses on a model outage: a model call that fails past its retries is reported to the batch,
     * and the task waits for the batch's one question instead of asking its own.
     */
    reportOutage: z.boolean().optional(),
    /** How long work may wait for the workspace host's worker to take it before the task asks a human (default 10 minutes). */
    hostTimeout: DurationSchema.default('10m'),
    /** What the task's commands may reach beyond the workspace; see docs/safety.md. */
    network: NetworkSchema.default('off'),
    env: EnvNamesSchema.default([]),
    /**
     * `no-regressions`: gates run once when the task starts, and at the end a gate that failed then passes if nothing
     * fails now that did not (no new failing test, no new error line). `strict`: every gate must pass.
     */
    gates: z.enum(GATE_MODES).default('no-regressions'),
    /**
     * `branch`: work in a worktree on `codeloop/task/<task-id>` cut from the checkout's `HEAD`, with a commit per
     * iteration that changed files, never touching the checkout; `in-place`: edit the workspace itself. A workspace
     * that is not a git repository works in place either way.
     */
    git: z.enum(GIT_MODES).default('branch'),
    /** What a batch tells its task: the plan in brief and what its dependencies delivered; set by the batch itself. */
    batchContext: z.string().optional(),
    /** With `git: "branch"`: a remote to fetch `baseBranch` (default: its default branch) from, to cut the branch from. */
    remote: RemoteSchema.optional(),
    baseBranch: BranchNameSchema.optional(),
    /** Questions answered in an earlier run of this task; they go into the task layer of the prompt. */
    answers: z.array(objectWithKnownKeys({ question: z.string(), answer: z.string() })).default([]),
  }),
);

/**
 * `agentTaskWorkflow`'s input: one JSON object, so `temporal workflow start --input '{…}'` works as written.
 * The CLI parses it with this schema before starting, and the workflow parses it again first thing.
 */
export const TaskInputSchema = builtOnce('task-input/TaskInputSchema', () =>
  TaskInputFieldsSchema.transform((input) => ({
    ...input,
    title: input.title ?? titleFrom(input.description),
    maxIterations: input.maxIterations ?? iterationBudget(input.complexity),
  })),
);

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

/** Top-level directories whose whole subtree is the system's own: kernel state, devices, boot files, config, programs. */
const SYSTEM_TREES = new Set(['proc', 'sys', 'dev', 'boot', 'etc', 'usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'run']);

/**
 * Top-level directories refused only as themselves: their subdirectories are where checkouts normally live (builds
 * under `/var`, `/opt` and `/srv`, scratch checkouts under `/tmp`, home directories under `/home`).
 */
const SHARED_ROOTS = new Set(['var', 'opt', 'srv', 'tmp', 'home', 'mnt', 'media']);

/**
 * Why an absolute workspace path may not be a workspace, or `undefined` when it may. The agent can write anywhere in
 * its workspace, so the workspace must be a checkout, never a place that holds the system or a person's files:
 * - `/` itself;
 * - anything under `/proc`, `/sys`, `/dev`, `/boot`, `/etc`, `/usr`, `/bin`, `/sbin`, `/lib*` and `/run`;
 * - `/var`, `/opt`, `/srv`, `/tmp`, `/home`, `/mnt` and `/media` themselves, though not their subdirectories;
 * - a home directory itself (`/root`, `/home/<name>`), though a project inside one is a normal workspace.
 *
 * The check is lexical (`//`, `/./`, `..` and trailing slashes are resolved first) so that the schema can make it
 * without the file system; `bindWorkspace` repeats it on the real path, which catches symlinks and the worker's own
 * home directory wherever it is.
 */
export function refuseWorkspace(workspace: string): string | undefined {
  if (!workspace.startsWith('/')) return undefined;
  const parts = normalPathParts(workspace);
  const normal = `/${parts.join('/')}`;
  const named = normal === workspace ? `"${workspace}"` : `"${workspace}" (${normal})`;
  const fix = "pass the checkout's own directory, e.g. /home/you/project or /srv/checkouts/project";
  if (parts.length === 0) return `${named} is the root of the file system, not a checkout; ${fix}`;
  if (SYSTEM_TREES.has(parts[0]) && parts.length > 1) return `${named} is inside the system directory /${parts[0]}; ${fix}`;
  if ((parts[0] === 'root' && parts.length === 1) || (parts[0] === 'home' && parts.length === 2)) return homeRefusal(named, normal);
  const topLevel = parts.length === 1 && (SYSTEM_TREES.has(parts[0]) || SHARED_ROOTS.has(parts[0]));
  return topLevel ? `${named} is a system directory; ${fix}` : undefined;
}

/** A home directory holds keys, tokens and shell history: a project inside it is fine, the whole of it is not. */
export function homeRefusal(named: string, home: string): string {
  return `${named} is a home directory itself; pass the checkout inside it, e.g. ${home}/project`;
}

/** The segments of an absolute path once `//`, `.` and `..` are resolved (`..` at the root stays at the root). */
function normalPathParts(absolute: string): string[] {
  const parts: string[] = [];
  for (const part of absolute.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts;
}
