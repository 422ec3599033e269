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
  /** The command as it ran: the gate's own, or that one adjusted so it could run here (see `notes`). */
  command: string;
  /**
   * Whether the gate lets the task finish as verified: it exited 0; or, under `gates: "no-regressions"`, it failed
   * before the task too and fails no worse now (`newFailures` empty). Never for a gate that could not say anything
   * (`unverified`).
   */
  passed: boolean;
  exitCode?: number;
  timedOut: boolean;
  durationMs: number;
  /** The first failure (or the output's tail), enough for the model to fix it. */
  summary: string;
  /** The gate's own program could not start (`nub: not found` from its first word, exit 127): nothing ran. */
  unavailable?: boolean;
  /**
   * Why the gate says nothing about the work, when it does not: its program is not installed, or it ran no test
   * before the task or now. Such a gate neither passes nor fails, and the task ends `unverified`.
   */
  unverified?: string;
  /**
   * A test gate that failed without running a single test (a `pretest` that fails first, a runner its script cannot
   * find, no file collected): why, and the fix codeloop.json can hold. Against such a run before the task nothing
   * can be "no worse": the same run at the end is `unverified`, with this reason.
   */
  cannotRun?: string;
  /** What failed, by identity: failing test ids when the runner's report is recognised, else the error lines. */
  failures?: string[];
  /** A suite that could not collect some files: one line per distinct cause, with the files. */
  causes?: string[];
  /** What was changed about the command so it could run here (pytest's addopts, collection errors). */
  notes?: string[];
  /** Against the gate's run before the task (no-regressions): whether it passed then, and what fails now that did not. */
  baseline?: { passed: boolean; failures: string[] };
  newFailures?: string[];
}

/** One gate's word on the work: it holds, it fails, or it could not say (see `GateResult.unverified`). */
export type GateVerdict = 'passed' | 'failed' | 'unverified';

/**
 * A gate's verdict. Results recorded before `unverified` existed marked a missing program `unavailable` with
 * `passed: true`; they read as unverified too.
 */
export function gateVerdict(result: GateResult): GateVerdict {
  if (result.unverified !== undefined || result.unavailable) return 'unverified';
  return result.passed ? 'passed' : 'failed';
}

/**
 * A finished task's verification: `verified` when every gate passed (or, under no-regressions, fails no worse than
 * before the task); `failed` when one fails; `unverified` when none fails but one could not say anything, or there
 * were no gates. An unavailable gate never counts as passed.
 */
export type Verification = 'verified' | 'unverified' | 'failed';

export function verificationOf(results: readonly GateResult[]): Verification {
  const verdicts = results.map(gateVerdict);
  if (verdicts.includes('failed')) return 'failed';
  return verdicts.length > 0 && verdicts.every((verdict) => verdict === 'passed') ? 'verified' : 'unverified';
}

/** Why a verification is not `verified`, one line per gate (or `no gates`), for results, reports and the Web UI. */
export function verificationReasons(results: readonly GateResult[]): string[] {
  if (results.length === 0) return ['no gates: nothing checked the work'];
  return results.flatMap((result) => {
    const verdict = gateVerdict(result);
    if (verdict === 'unverified') return [`${result.name}: ${result.unverified ?? 'its program is not installed here'}`];
    return verdict === 'failed' ? [`${result.name}: failed`] : [];
  });
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
