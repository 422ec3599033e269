import type { GateSpec } from './gates.js';

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
}
