import type { OpenedWorkspace, WorkspaceBinding } from '../../activities/workspace.js';
import { ErrorType } from '../../shared/errors.js';
import { hostIdOf } from '../../shared/host-queue.js';
import type { ProjectContext } from '../../shared/project-context.js';
import { commandActivities, fileActivities } from '../common/activities.js';
import { onHost } from '../common/host-wait.js';
import { applies } from '../common/patches.js';
import { setupActivities } from '../common/setup-activities.js';
import type { ToolTarget } from '../common/tool-calls.js';
import { workflowNow } from '../common/workflow-time.js';
import { buildSystemPrompt, kickoffMessage } from './prompt.js';
import { commandAccess, describeEnvironment, prepareTaskEnvironment } from './task-environment.js';
import type { TaskParts } from './task-parts.js';
import { describeBaseline } from './verifier.js';

/**
 * Before the first model call: find the host with the workspace (and cut the task's branch), read the project, set up
 * its environment, survey the sandbox, record the baseline gates, and build the system prompt and the kickoff. Later
 * runs carry all of that and return at once. Returns where the tools run.
 */
export async function prepareTask(run: TaskParts): Promise<ToolTarget> {
  const { input, state } = run;
  if (!state.binding || !state.project) {
    const pinned = input.hostQueue ? { taskQueue: input.hostQueue } : {};
    // Unpinned, any worker binds it; pinned, the host named in the queue must be there to.
    const wait = input.hostQueue ? run.hostWait(hostIdOf(input.hostQueue)) : undefined;
    let opened: OpenedWorkspace;
    if (applies('taskOpensWorkspaceOnce')) {
      const summary = `open workspace ${input.workspace}`;
      const options = { ownBranch: input.git === 'branch' && applies('taskGitBranch') };
      // With the file tools' heartbeat timeout: a host that dies while it describes is noticed within 20 s.
      opened = await onHost(wait, summary, (limit) =>
        fileActivities.openWorkspace.executeWithOptions({ ...pinned, summary, ...limit }, [input.workspace, options]),
      );
    } else {
      const summary = `bind workspace ${input.workspace}`;
      opened = {
        binding: await onHost(wait, summary, (limit) =>
          setupActivities.bindWorkspace.executeWithOptions({ ...pinned, summary, ...limit }, [input.workspace]),
        ),
      };
    }
    const ownBranch = opened.binding.inGitRepo && input.git === 'branch' && applies('taskGitBranch');
    state.binding = ownBranch
      ? await run.trail.start(opened.binding, { remote: input.remote, baseBranch: input.baseBranch, desk: run.desk })
      : opened.binding;
    const { hostQueue, hostId, workspace } = state.binding;
    const describe = `describe workspace on ${hostId}`;
    state.project =
      opened.project ??
      (await onHost(run.hostWait(hostId), describe, (limit) =>
        fileActivities.describeWorkspace.executeWithOptions({ taskQueue: hostQueue, summary: describe, ...limit }, [workspace]),
      ));
    if (state.project.environmentConfigured && applies('taskEnvironment')) {
      const environment = await prepareTaskEnvironment(
        input,
        state.binding,
        run.hostWait(hostId),
        (spec) => run.askHuman(spec),
        (message) => run.fail('setup_failed', ErrorType.TaskFailed, message),
      );
      state.environment = environment;
      state.project = { ...state.project, environment: { network: environment.network, notes: describeEnvironment(environment) } };
    }
    if (applies('truthfulProjectView')) {
      const survey = `survey the sandbox on ${hostId}`;
      const access = commandAccess(input, state.environment);
      const sandbox = await onHost(run.hostWait(hostId), survey, (limit) =>
        commandActivities.surveySandbox.executeWithOptions({ taskQueue: hostQueue, summary: survey, ...limit }, [{ workspace, access }]),
      );
      state.project = { ...state.project, sandbox };
    }
    run.system = systemPromptOf(run, state.project);
    const kickoff = [kickoffMessage(input)];
    if (input.gates === 'no-regressions' && applies('gateBaseline')) {
      const failing = describeBaseline(await run.verifier.recordBaseline(toolTargetOf(run, state.binding), state.project.gates ?? []));
      if (failing) kickoff.push(failing);
    }
    state.messages = [{ role: 'user', content: kickoff.map((text) => ({ type: 'text', text })) }];
    state.phase = 'exploring';
    // The stall watch starts with the agent's work: binding, the survey and the baseline gates are not its turns.
    if (state.project.sandbox) state.lastProgressAt = workflowNow();
    run.publish();
  }
  return toolTargetOf(run, state.binding);
}

/** Built once per run, so the cached prefix stays byte-identical; answers so far join the task layer. */
export function systemPromptOf(run: Pick<TaskParts, 'input' | 'desk'>, project: ProjectContext): string {
  return buildSystemPrompt(run.input, project, run.desk.answeredQuestions());
}

/** Where the tools run: the bound workspace on its host, with the task's command access and known gate failures. */
function toolTargetOf(run: TaskParts, binding: WorkspaceBinding): ToolTarget {
  const knownFailures = run.verifier.knownFailures();
  return {
    workspace: binding.workspace,
    hostQueue: binding.hostQueue,
    access: commandAccess(run.input, run.state.environment),
    ...(knownFailures.length ? { knownFailures } : {}),
    hostWait: run.hostWait(binding.hostId),
  };
}
