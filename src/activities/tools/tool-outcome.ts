/**
 * What a tool activity returns. A tool failure the model can act on (a missing file, a failed match, a refused
 * path, a non-zero exit) is an observation with `isError`, never a failed activity: only infrastructure faults
 * throw.
 */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Workspace-relative path of a file this call wrote. */
  changedFile?: string;
  /** Lint errors left in `changedFile` after the edit (also appended to `content`). */
  lintErrors?: string;
}

/** Thrown inside a tool to refuse a call; `observe` turns it into an `is_error` result. */
export class ToolRefusal extends Error {}

export const ok = (content: string, changedFile?: string): ToolOutcome => ({ content, isError: false, changedFile });
export const refuse = (message: string): never => {
  throw new ToolRefusal(message);
};

/** Runs a tool body, reporting refusals to the model instead of failing the activity. */
export async function observe(body: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ToolRefusal) return { content: error.message, isError: true };
    throw error;
  }
}
