import { copyFileSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { narrowerNetwork, type Network } from '../../shared/network-access.js';
import type { ServiceSpec } from '../../shared/task-environment.js';
import { truncateMiddle } from '../../text/truncate.js';
import { worktreeViewOf } from '../process/worktree-view.js';
import { readProjectFile } from '../project-file.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { readWorkspaceConfig } from '../verification/workspace-config.js';
import { namedFilesOf, recordNamedFiles } from './named-files.js';

/** The tail of a setup command's output kept for the trail and a blocker: enough to see why it failed. */
const SETUP_OUTPUT_CHARS = 3_000;
/** A named file past this is not copied: `.env.test` and generated config are small. */
const NAMED_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** One setup command as it ran. */
export interface SetupStep {
  command: string;
  exitCode?: number;
  timedOut: boolean;
  durationMs: number;
  /** Its output's tail. */
  output: string;
}

/** What a task's environment came to, for its state, its prompt and the Web UI. */
export interface EnvironmentReport {
  /** The task's network after `codeloop.json` narrowed the operator's. */
  network: Network;
  /** `own` when setup installs the task's dependencies in its worktree; otherwise the checkout's are shown there. */
  dependencies: 'checkout' | 'own';
  services: ServiceSpec[];
  setup: SetupStep[];
  files: { copied: string[]; missing: string[] };
  /** The setup command that failed (the last of `setup`), when one did. */
  failed?: SetupStep;
}

/**
 * Makes a task's environment what the project's `codeloop.json` asks for, before the task's first turn: its gitignored
 * named files copied from the checkout into its worktree (never committed), its services started, then its setup
 * commands run one by one in its sandbox, each with the network the task has, stopping at the first that fails.
 * `codeloop.json` is the repository's content: its `network` only narrows the operator's. Safe to repeat: files are
 * copied again, running services kept, and setup run again (`npm ci`, `pip install -e .` are).
 */
export async function prepareTaskEnvironment(
  shell: WorkspaceShell,
  input: { workspace: string; network: Network; env: readonly string[]; key: string },
): Promise<EnvironmentReport> {
  const config = readWorkspaceConfig(input.workspace);
  const network = narrowerNetwork(input.network, config.network);
  const dependencies = config.setup.length > 0 ? 'own' : 'checkout';
  const files = copyNamedFiles(input.workspace, config.files);
  const access = { network, env: input.env, dependencies, environment: { key: input.key, services: config.services } } as const;
  const report: EnvironmentReport = { network, dependencies, services: config.services, setup: [], files };
  if (config.services.length > 0) {
    // The task's first command starts its services (see `prepareEnvironment`): a service that fails stops here.
    const started = Date.now();
    try {
      await shell('true', { workspace: input.workspace, timeoutMs: 30_000, access });
    } catch (error) {
      const step = { command: 'start services', timedOut: false, durationMs: Date.now() - started, output: (error as Error).message };
      return { ...report, failed: step, setup: [step] };
    }
  }
  for (const command of config.setup) {
    const result = await shell(command, { workspace: input.workspace, timeoutMs: config.setupTimeoutSeconds * 1000, access });
    const step: SetupStep = {
      command,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      output: truncateMiddle(result.output.trim(), SETUP_OUTPUT_CHARS),
    };
    report.setup.push(step);
    if (result.exitCode !== 0 || result.timedOut) return { ...report, failed: step };
  }
  return report;
}

/**
 * Copies the checkout's named files into a task worktree: only regular files reached through no symlink, and only
 * where the worktree has none (a tracked file is the branch's own). The list of what was copied is kept beside the
 * worktree, so its commits leave them out.
 */
function copyNamedFiles(workspace: string, names: readonly string[]): EnvironmentReport['files'] {
  const view = worktreeViewOf(workspace);
  const copied: string[] = [];
  const missing: string[] = [];
  if (!view || names.length === 0) return { copied, missing };
  const source = path.join(view.checkout, view.below);
  // Copied by an earlier run of setup (a retry): still the checkout's file, still left out of commits.
  const earlier = new Set(namedFilesOf(view.worktree));
  for (const name of names) {
    const from = path.join(source, name);
    const to = path.join(workspace, name);
    const text = readProjectFile(from, NAMED_FILE_MAX_BYTES);
    if (typeof text !== 'string') {
      missing.push(text ? `${name} (${text.problem})` : name);
      continue;
    }
    if (lstatSync(to, { throwIfNoEntry: false })) {
      if (earlier.has(path.relative(view.worktree, to))) copied.push(path.relative(view.worktree, to));
      continue;
    }
    mkdirSync(path.dirname(to), { recursive: true });
    // The branch may hold a symlinked directory on the way: a copy never lands outside the worktree.
    const directory = realpathSync(path.dirname(to));
    const root = realpathSync(view.worktree);
    if (directory !== root && !directory.startsWith(`${root}${path.sep}`)) {
      missing.push(`${name} (its directory in the worktree leads outside it)`);
      continue;
    }
    copyFileSync(from, to);
    copied.push(path.relative(view.worktree, to));
  }
  recordNamedFiles(view.worktree, copied);
  return { copied, missing };
}
