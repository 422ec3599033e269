import { createBatchFileActivities } from './batch-files.js';
import { createEnvironmentActivities } from './environment/index.js';
import { createGitActivities } from './git/index.js';
import { createModelActivities, type ModelDeps } from './model.js';
import { createMorningActivities } from './mornings/index.js';
import { createPlanFileActivities } from './plan-files.js';
import { createSurveyActivities } from './survey-activities.js';
import { createToolActivities, type SearchEngine, type WorkspaceShell } from './tools/index.js';
import { createVerificationActivities } from './verification/index.js';
import { createWorkspaceActivities, type WorkspaceDeps } from './workspace.js';

export interface ActivityDeps extends ModelDeps, WorkspaceDeps {
  shell: WorkspaceShell;
  /** How `search_codebase` searches; by default the engine this process would make (see `createSearchEngine`). */
  search?: SearchEngine;
  /** `CODELOOP_WORKTREES_DIR`: where batches' worktrees go; unset, beside each repository. */
  worktreesDir?: string;
  /** The worker's environment, read at each call: its git credentials, forge tokens, SMTP and webhook addresses. */
  workerEnv?: () => NodeJS.ProcessEnv;
}

/**
 * Every activity codeloop registers, built from injected dependencies: only `worker.ts` builds real clients, and
 * tests pass real ones pointed at loopback fakes.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createModelActivities(deps),
    ...createWorkspaceActivities(deps),
    ...createToolActivities(deps),
    ...createVerificationActivities(deps),
    ...createSurveyActivities(deps),
    ...createGitActivities(deps),
    ...createBatchFileActivities(),
    ...createPlanFileActivities(),
    ...createEnvironmentActivities(deps),
    ...createMorningActivities({ workerEnv: deps.workerEnv ?? (() => process.env) }),
  };
}

export type { WorkspaceBinding } from './workspace.js';
export type { BatchRepo } from './git/index.js';
export type { ToolOutcome, ToolCall, WorkspaceShell } from './tools/index.js';
