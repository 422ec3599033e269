/**
 * What a tool activity returns. A tool failure the model can act on (a missing file, a failed match, a refused
 * path, a non-zero exit) is an observation with `isError`, never a failed activity: only infrastructure faults
 * throw.
 */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Workspace-relative path of a file this call wrote (or deleted, or moved a file to). */
  changedFile?: string;
  /** Other files the call changed: the old path of a moved file. */
  alsoChanged?: string[];
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

/**
 * File system errors that come from what is in the workspace, not from the worker: a permission the agent changed,
 * a full disk, a name too long. The model can act on them and a retry of the activity cannot, so they are
 * refusals.
 */
const WORKSPACE_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'a part of the path is a symlink loop',
  ENAMETOOLONG: 'the path or a name in it is too long',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EMLINK: 'too many entries in the directory',
  ETXTBSY: 'the file is a running program',
};

/** `observe` for the file tools: also reports workspace file system errors about `requested` to the model. */
export async function observeFile(requested: string, body: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  return observe(async () => {
    try {
      return await body();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!Object.hasOwn(WORKSPACE_ERRORS, code)) throw error;
      return refuse(`cannot use ${requested}: ${WORKSPACE_ERRORS[code]}`);
    }
  });
}
