import { z } from 'zod';
import { builtOnce } from './built-once.js';
import { NetworkSchema } from './network-access.js';
import { NamedFileSchema, ServiceSchema } from './task-environment.js';

/** A verification gate: a command whose success means the work is done, with a timeout of its own. */
export interface GateSpec {
  name: string;
  command: string;
  timeoutSeconds: number;
}

export interface GateResult {
  name: string;
  command: string;
  /**
   * Whether the gate lets the task finish: it exited 0; or its tool is not installed (`unavailable`); or, under
   * `gates: "no-regressions"`, it failed before the task too and fails no worse now (`newFailures` empty).
   */
  passed: boolean;
  exitCode?: number;
  timedOut: boolean;
  durationMs: number;
  /** The first failure (or the output's tail), enough for the model to fix it. */
  summary: string;
  /** The command's tool is missing (`nub: not found`, exit 127): nothing the agent could fix. */
  unavailable?: boolean;
  /** What failed, by identity: failing test ids when the runner's report is recognised, else the error lines. */
  failures?: string[];
  /** Against the gate's run before the task (no-regressions): whether it passed then, and what fails now that did not. */
  baseline?: { passed: boolean; failures: string[] };
  newFailures?: string[];
}

/** How a finished task is judged: gates no worse than before the task (the default), or every gate passing. */
export const GATE_MODES = ['no-regressions', 'strict'] as const;
export type GateMode = (typeof GATE_MODES)[number];

/** How many times failing gates send the work back to the model before a human is asked. */
export const MAX_CORRECTION_ROUNDS = 5;

/** The longest a gate or a test run may be given: an hour, for suites that take that long. */
export const MAX_CHECK_SECONDS = 3600;

/** A gate's timeout when neither it nor `gateTimeoutSeconds` says otherwise; also `run_tests`' default. */
export const DEFAULT_CHECK_SECONDS = 300;

const checkSeconds = () => z.number().int().min(1).max(MAX_CHECK_SECONDS);

/**
 * `codeloop.json` (or `codeloop.yaml`) in the workspace: gates replace the detected ones (`[]` turns them off);
 * `lint: false` turns off linting on edits; `gateTimeoutSeconds` is every gate's timeout that sets none of its own
 * (detected gates included), `test.timeoutSeconds` that of `run_tests` and the tests gate.
 */
export const WorkspaceConfigSchema = builtOnce('gates/WorkspaceConfigSchema', () =>
  z.object({
    gates: z
      .array(
        z.object({
          name: z.string().min(1),
          command: z.string().min(1),
          timeoutSeconds: checkSeconds().optional(),
        }),
      )
      .optional(),
    gateTimeoutSeconds: checkSeconds().optional(),
    lint: z.boolean().default(true),
    /** The code map in the project layer: `false` for none; its size in tokens, and the files a repository needs to get one. */
    codeMap: z
      .union([
        z.literal(false),
        z.object({ tokens: z.number().int().min(200).max(8000).optional(), minFiles: z.number().int().min(0).optional() }).strict(),
      ])
      .optional(),
    /**
     * How `run_tests` and the tests gate run the suite: `command` instead of the detected one, and `hooks: false` to
     * skip package.json's `pretest`/`posttest` (npm's `--ignore-scripts`). A string is the command alone.
     */
    test: z
      .union([
        z
          .string()
          .min(1)
          .transform((command): { command?: string; hooks: boolean; timeoutSeconds?: number } => ({ command, hooks: true })),
        z
          .object({ command: z.string().min(1).optional(), hooks: z.boolean().default(true), timeoutSeconds: checkSeconds().optional() })
          .strict(),
      ])
      .optional(),
    /**
     * The task's environment, as the project's developers set theirs up: `setup` commands run in the task's sandbox
     * before its first turn (its installs land in its own worktree), `files` gitignored files copied from the
     * checkout, `services` started for the task. `network` may narrow the task's network, never widen it.
     */
    setup: z.array(z.string().min(1)).max(50).default([]),
    setupTimeoutSeconds: z.number().int().min(1).max(3600).default(900),
    files: z.array(NamedFileSchema).max(100).default([]),
    services: z.array(ServiceSchema).max(10).default([]),
    network: NetworkSchema.optional(),
  }),
);
export type WorkspaceConfig = z.output<typeof WorkspaceConfigSchema>;
