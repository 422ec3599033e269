import { tryGit } from './git/run-git.js';
import { realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { SandboxMode } from '../shared/command-access.js';
import { ErrorType } from '../shared/errors.js';
import type { GateSpec } from '../shared/gates.js';
import type { ProjectContext } from '../shared/project-context.js';
import { homeRefusal, refuseWorkspace } from '../shared/task-input.js';
import { truncateEnd } from '../text/truncate.js';
import { readProjectFile } from './project-file.js';
import { detectTechStack } from './tech-stack.js';
import { describeCodeMap } from './code-map/code-map.js';
import { listFiles } from './tools/list-files.js';
import { detectGates } from './verification/gates.js';
import { readWorkspaceConfig } from './verification/workspace-config.js';
import { usesTypeChecker } from './verification/lint.js';
import { prepareTypeCheck } from './verification/type-check.js';

export interface WorkspaceDeps {
  hostId: string;
  /** This worker's own task queue, `<queue>@<host-id>`, where workspace activities must run. */
  hostQueue: string;
  /** Whether this worker runs commands in its sandbox. */
  sandbox: SandboxMode;
}

export interface WorkspaceBinding {
  hostId: string;
  hostQueue: string;
  /** The workspace's real path on that host. */
  workspace: string;
  /** Whether that host runs the task's commands in its sandbox. */
  sandbox: SandboxMode;
  /** Whether the workspace is in a git repository with a commit, where a task can have a branch of its own. */
  inGitRepo?: boolean;
}

const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'];
const INSTRUCTIONS_CHARS = 8_000;
/** Instructions past this are not read at all; the prompt keeps their first `INSTRUCTIONS_CHARS` anyway. */
const INSTRUCTIONS_MAX_BYTES = 256 * 1024;
const TREE_ENTRIES = 150;
/** The longest describing a workspace may hold up a task's start: what is not ready by then is left out. */
export const DESCRIBE_BUDGET_MS = 1_000;

/** A workspace bound to its host and, unless the task is to work on a branch of its own, described. */
export interface OpenedWorkspace {
  binding: WorkspaceBinding;
  /** Absent when the task works in a worktree of its own: that is described once it is cut. */
  project?: ProjectContext;
}

/** Activities about the workspace itself rather than one tool call. */
export function createWorkspaceActivities(deps: WorkspaceDeps) {
  const activities = {
    /**
     * Runs on the shared queue; whichever worker takes it holds the workspace from then on. Returns that worker's
     * own queue, so every tool activity of the task lands on the host with the checkout.
     *
     * The input schema refused system and home directories by name; this repeats the check on the real path, so a
     * symlink to `/etc` or to a home directory is refused too, as is a directory that holds this worker's home.
     */
    async bindWorkspace(workspace: string): Promise<WorkspaceBinding> {
      const info = await stat(workspace).catch(() => undefined);
      if (!info?.isDirectory()) {
        throw ApplicationFailure.nonRetryable(
          `workspace ${workspace} does not exist on worker ${deps.hostId}; create it, or run a worker on the host that has it`,
          ErrorType.WorkspaceUnavailable,
        );
      }
      const real = await realpath(workspace);
      const refusal = refuseWorkspace(real) ?? (await refuseWorkerHome(real));
      if (refusal) {
        const subject = real === workspace ? '' : 'its real path ';
        throw ApplicationFailure.nonRetryable(
          `workspace ${workspace} is refused on worker ${deps.hostId}: ${subject}${refusal}`,
          ErrorType.WorkspaceUnavailable,
        );
      }
      const inGitRepo = (await tryGit(real, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).ok;
      return { hostId: deps.hostId, hostQueue: deps.hostQueue, workspace: real, sandbox: deps.sandbox, inGitRepo };
    },

    /** The project layer of the system prompt: the workspace's own instructions, its stack and its shape. */
    async describeWorkspace(workspace: string): Promise<ProjectContext> {
      const started = performance.now();
      const instructions: ProjectContext['instructions'] = [];
      for (const name of INSTRUCTION_FILES) {
        // A symlink to /proc/self/environ or a FIFO left by an earlier task is never read: see readProjectFile.
        const content = readProjectFile(path.join(workspace, name), INSTRUCTIONS_MAX_BYTES);
        if (typeof content === 'string' && content.trim())
          instructions.push({ file: name, content: truncateEnd(content.trim(), INSTRUCTIONS_CHARS) });
      }
      const entries = await listFiles(workspace, '**/*', 3);
      const shown = entries.slice(0, TREE_ENTRIES);
      const fileTree = entries.length > TREE_ENTRIES ? [...shown, `… ${entries.length - TREE_ENTRIES} more`] : shown;
      // In the background: the first edit's type feedback is then incremental, against the project as the task found it.
      if (usesTypeChecker(workspace, deps.sandbox)) void prepareTypeCheck(workspace);
      const described = {
        instructions,
        techStack: detectTechStack(workspace),
        fileTree: fileTree.join('\n'),
        greenfield: isGreenfield(entries),
        // A codeloop.json that does not parse fails the final gates' detection, where the agent can still fix it.
        gates: tryDetectGates(workspace, deps.sandbox),
        environmentConfigured: environmentConfigured(workspace),
      };
      // Last, so that the wait for the map is what is left of the budget after everything else.
      const codeMap =
        entries.length > TREE_ENTRIES ? await codeMapWithin(workspace, DESCRIBE_BUDGET_MS - (performance.now() - started)) : undefined;
      return { ...(codeMap ? { codeMap } : {}), ...described };
    },

    /**
     * `bindWorkspace` and then `describeWorkspace` on the worker that bound it, in one activity: the host that takes
     * the binding holds the workspace, so it can describe it at once, one round trip through the server sooner. A task
     * that will work on a branch of its own (`ownBranch`) in a git repository is described later, in its worktree.
     */
    async openWorkspace(workspace: string, options: { ownBranch: boolean }): Promise<OpenedWorkspace> {
      const binding = await activities.bindWorkspace(workspace);
      if (options.ownBranch && binding.inGitRepo) return { binding };
      return { binding, project: await activities.describeWorkspace(binding.workspace) };
    },
  };
  return activities;
}

/**
 * The code map when it is ready within `budgetMs` (a cached one is; the first build on a large repository takes up
 * to a minute): otherwise none, and the file tree stands in. The build goes on in the background and fills the cache,
 * so the next task on the same commit gets the map at once.
 */
async function codeMapWithin(workspace: string, budgetMs: number): Promise<string | undefined> {
  const building = describeCodeMap(workspace, undefined, { detached: true }).catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, budgetMs));
  });
  try {
    return await Promise.race([building, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the workspace's `codeloop.json` asks for an environment of its own; a broken one is the gates' to report. */
function environmentConfigured(workspace: string): boolean {
  try {
    const config = readWorkspaceConfig(workspace);
    return config.setup.length > 0 || config.files.length > 0 || config.services.length > 0 || config.network !== undefined;
  } catch {
    return false;
  }
}

function tryDetectGates(workspace: string, sandboxMode: SandboxMode): GateSpec[] | undefined {
  try {
    return detectGates(workspace, sandboxMode);
  } catch {
    return undefined;
  }
}

/**
 * The worker's own home directory (`$HOME`, as spelled and as resolved) may be neither the workspace nor inside it:
 * the agent could read or rewrite the worker's keys and shell start-up files.
 */
async function refuseWorkerHome(real: string): Promise<string | undefined> {
  const spelled = os.homedir();
  const homes = new Set([spelled, await realpath(spelled).catch(() => spelled)]);
  for (const home of homes) {
    if (home === real) return homeRefusal(`"${real}"`, real);
    if (home.startsWith(`${real}/`)) return `"${real}" holds the worker's home directory ${home}; pass the checkout's own directory`;
  }
  return undefined;
}

/** Only docs, licences and manifests so far: nothing to change, everything to build. */
const NOT_SOURCE =
  /(^|\/)(readme|license|licence|changelog|prd|agents|claude|contributing)[^/]*$|\.(md|txt|rst|toml|cfg|ini|json|ya?ml|lock)$|\/$|^\.(git|env|editorconfig|gitignore)/i;

function isGreenfield(entries: string[]): boolean {
  return entries.every((entry) => NOT_SOURCE.test(entry));
}
