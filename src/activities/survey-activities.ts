import type { CommandAccess } from '../shared/command-access.js';
import type { SandboxSurvey } from '../shared/project-context.js';
import { surveySandbox } from './sandbox-survey.js';
import type { WorkspaceShell } from './tools/run-command.js';

/** The survey of what a task's commands find in the sandbox, run once when the task starts (see `surveySandbox`). */
export function createSurveyActivities(deps: { shell: WorkspaceShell }) {
  return {
    surveySandbox(call: { workspace: string; access?: CommandAccess }): Promise<SandboxSurvey> {
      return surveySandbox(deps.shell, call.workspace, call.access);
    },
  };
}
