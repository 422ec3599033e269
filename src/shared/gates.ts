import { z } from 'zod';

/** A verification gate: a command whose success means the work is done, with a timeout of its own. */
export interface GateSpec {
  name: string;
  command: string;
  timeoutSeconds: number;
}

export interface GateResult {
  name: string;
  command: string;
  passed: boolean;
  exitCode?: number;
  timedOut: boolean;
  durationMs: number;
  /** The first failure (or the output's tail), enough for the model to fix it. */
  summary: string;
}

/** How many times failing gates send the work back to the model before a human is asked. */
export const MAX_CORRECTION_ROUNDS = 5;

/**
 * `codeloop.json` (or `codeloop.yaml`) in the workspace: gates replace the detected ones (`[]` turns them off);
 * `lint: false` turns off linting on edits.
 */
export const WorkspaceConfigSchema = z.object({
  gates: z
    .array(
      z.object({
        name: z.string().min(1),
        command: z.string().min(1),
        timeoutSeconds: z.number().int().min(1).max(3600).default(300),
      }),
    )
    .optional(),
  lint: z.boolean().default(true),
});
export type WorkspaceConfig = z.output<typeof WorkspaceConfigSchema>;
