import { countSandboxRefusal } from '../activity-metrics.js';
import { refuse } from './tool-outcome.js';
import type { WorkspacePath } from './workspace-path.js';

/**
 * Refuses a write under a `.git` directory of the workspace: any segment of the real path named `.git`, in any
 * case, since some file systems ignore it. codeloop commits, branches and pushes itself, outside the sandbox; a
 * hook or a config line planted there would run with the worker's rights on its next git command.
 */
export function refuseGitWrite(file: WorkspacePath, requested: string): void {
  if (file.relative.split('/').some((segment) => segment.toLowerCase() === '.git')) {
    countSandboxRefusal('git_directory_write');
    refuse(`${requested} is inside .git: codeloop manages git itself, so the file tools do not write there`);
  }
}
