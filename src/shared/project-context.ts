import type { GateSpec } from './gates.js';
import type { Network } from './network-access.js';

/** What the worker found in the workspace: the project layer of the system prompt. */
export interface ProjectContext {
  instructions: { file: string; content: string }[];
  techStack: string[];
  fileTree: string;
  /** A large repository's map (directories with file counts, the most used definitions), shown instead of `fileTree`. */
  codeMap?: string;
  /** Nothing but docs and manifests yet: the agent builds from scratch. */
  greenfield: boolean;
  /** The verification gates the workspace had when it was described: what a task's baseline runs. */
  gates?: GateSpec[];
  /** What the task's commands find where they run; surveyed once per task, absent in older runs. */
  sandbox?: SandboxSurvey;
  /** Whether `codeloop.json` asks for setup, named files, services or a network of its own (see `TaskEnvironmentSpec`). */
  environmentConfigured?: boolean;
  /** The task's environment once made: its network, and what setup, services and named files came to, in words. */
  environment?: { network: Network; notes: string[] };
}

/** A program found where the task's commands run, with the version it reports. */
export interface FoundTool {
  name: string;
  version: string;
}

/**
 * What the task's commands find inside the sandbox, so the model is told what is true there rather than what the
 * project's configuration names: the interpreters, test runners and linters installed, with versions; those the
 * configuration names that are not; and where the tests' imports of the project's own packages lead.
 */
export interface SandboxSurvey {
  tools: FoundTool[];
  missing: string[];
  /** One line per package: imported from the workspace, from a copy installed elsewhere, or not at all. */
  imports: string[];
}
