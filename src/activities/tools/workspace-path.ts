import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { refuse } from './tool-outcome.js';

export interface WorkspacePath {
  /** Real absolute path (symlinks resolved as far as the path exists). */
  absolute: string;
  /** Path relative to the workspace root, with forward slashes. */
  relative: string;
}

/**
 * Resolves a model-supplied path inside the workspace. The check runs on the real path, so `..`, absolute paths
 * and symlinks that lead outside are all refused the same way. A path that does not exist yet (a new file) is
 * checked through its nearest existing ancestor.
 */
export function resolveInWorkspace(workspace: string, requested: string): WorkspacePath {
  const root = realpathSync(workspace);
  const candidate = path.resolve(root, requested);
  let existing = candidate;
  const missing: string[] = [];
  while (!existsSync(existing)) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  const real = path.join(realpathSync(existing), ...missing);
  const relative = path.relative(root, real);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    refuse(`path ${requested} is outside the workspace; use a path relative to the workspace root`);
  }
  return { absolute: real, relative: relative.split(path.sep).join('/') || '.' };
}
