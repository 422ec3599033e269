import { z } from 'zod';
import { TaskInputFieldsSchema } from '../shared/task-input.js';
import { objectWithKnownKeys } from '../shared/validation.js';

/**
 * The eval suite file (YAML): cases, each a repository fixture, a task and the checks that decide pass or fail once
 * the task has ended. Paths to fixtures are relative to the suite file; paths in checks are relative to the workspace.
 */

/** A path inside the workspace: relative, and never climbing out of it. */
const WorkspaceFile = z
  .string()
  .min(1)
  .refine((file) => !file.startsWith('/') && !file.split(/[\\/]/).includes('..'), 'must be a path inside the repository, e.g. src/app.py');

const CommandCheckSchema = z.union([
  z.string().trim().min(1),
  objectWithKnownKeys({
    run: z.string().trim().min(1),
    /** Default 300 s, as a gate's. */
    timeoutSeconds: z.number().int().positive().max(3600).optional(),
  }),
]);

export const ChecksSchema = objectWithKnownKeys({
  /** A directory copied over the workspace after the task ends: tests the agent never saw. */
  hidden: z.string().min(1).optional(),
  /** Commands run in the workspace (in codeloop's sandbox) after `hidden` is copied in; each must exit 0. */
  commands: z.array(CommandCheckSchema).default([]),
  /** Files that must be byte-identical to the fixture's. */
  unchanged: z.array(WorkspaceFile).default([]),
  exists: z.array(WorkspaceFile).default([]),
  absent: z.array(WorkspaceFile).default([]),
  maxIterations: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
});

/** Set by the eval itself: a fresh copy of the fixture, edited in place (the copy is scratch). */
const EVAL_OWNED_FIELDS = ['workspace', 'git'] as const;
/** Stands in for the copy's path while the suite is checked, before any copy exists. */
const PLACEHOLDER_WORKSPACE = '/tmp/codeloop-eval-check/workspace';

/**
 * The task: any field of `agentTaskWorkflow`'s input (title, description, prd, complexity, maxIterations, …), checked
 * by the workflow's own schema, or `prdFile` for a requirements document kept beside the suite.
 */
export const CaseTaskSchema = z
  .object({ prdFile: z.string().min(1).optional() })
  .catchall(z.unknown())
  .superRefine((task, context) => {
    const { prdFile, ...fields } = task;
    for (const key of EVAL_OWNED_FIELDS) {
      if (key in fields)
        context.addIssue({ code: 'custom', path: [key], message: 'is set by codeloop eval: a fresh copy, edited in place' });
    }
    if (prdFile && 'prd' in fields) context.addIssue({ code: 'custom', path: ['prdFile'], message: 'give prd or prdFile, not both' });
    const parsed = TaskInputFieldsSchema.safeParse({ ...fields, workspace: PLACEHOLDER_WORKSPACE });
    if (parsed.success) return;
    for (const issue of parsed.error.issues) context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });

export const BlockerAnswerSchema = objectWithKnownKeys({
  /** Matches the blocker's question: a case-insensitive substring, or `/regex/flags`. */
  question: z.string().min(1),
  answer: z.string().min(1),
});

export const CaseSchema = objectWithKnownKeys({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, e.g. py-bugfix-median'),
  /** What the case measures, for whoever reads the results. */
  description: z.string().optional(),
  /** For totals by kind: language, kind of change. */
  tags: z.array(z.string().min(1)).default([]),
  /** A directory, or a git bundle (`*.bundle`), relative to the suite file. */
  repo: z.string().min(1),
  /**
   * npm packages copied from codeloop's own installation into the copy's `node_modules` (hard links where possible),
   * for fixtures that need a toolchain such as `typescript` and, like every task, have no network.
   */
  nodeModules: z.array(z.string().regex(/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/, 'must be an npm package name')).default([]),
  task: CaseTaskSchema,
  /** Answers the eval gives when the task asks; a question with no answer here ends the run as failed. */
  blockers: z.array(BlockerAnswerSchema).default([]),
  checks: ChecksSchema.default({ commands: [], unchanged: [], exists: [], absent: [] }),
});

export const SuiteSchema = objectWithKnownKeys({
  name: z.string().min(1),
  description: z.string().optional(),
  cases: z
    .array(CaseSchema)
    .min(1)
    .superRefine((cases, context) => {
      const seen = new Set<string>();
      cases.forEach((suiteCase, index) => {
        if (seen.has(suiteCase.id))
          context.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate case id "${suiteCase.id}"` });
        seen.add(suiteCase.id);
      });
    }),
});

export type SuiteFile = z.output<typeof SuiteSchema>;
export type CaseFile = z.output<typeof CaseSchema>;
export type Checks = z.output<typeof ChecksSchema>;
export type CommandCheck = z.output<typeof CommandCheckSchema>;
export type BlockerAnswer = z.output<typeof BlockerAnswerSchema>;
