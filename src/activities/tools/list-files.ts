import { stat } from 'node:fs/promises';
import type { ToolInput } from '../../shared/tools.js';
import { globInWorkspace } from './glob-in-workspace.js';
import { IGNORED_DIRECTORIES } from './ignored-paths.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

const MAX_ENTRIES = 500;

/** `list_files`: what is in the workspace, without the noise of `.git`, dependencies and build output. */
export async function listWorkspaceFiles(workspace: string, input: ToolInput<'list_files'>): Promise<ToolOutcome> {
  return observe(async () => {
    const dir = resolveInWorkspace(workspace, input.path ?? '.');
    const info = await stat(dir.absolute).catch(() => refuse(`directory ${input.path} does not exist`));
    if (!info.isDirectory()) refuse(`${input.path} is a file; use read_file to read it`);
    const entries = await listFiles(dir.absolute, input.pattern ?? '**/*', input.max_depth, dir.root);
    const prefix = dir.relative === '.' ? '' : `${dir.relative}/`;
    const shown = entries.slice(0, MAX_ENTRIES).map((entry) => prefix + entry);
    const more = entries.length > MAX_ENTRIES ? `\n… ${entries.length - MAX_ENTRIES} more; narrow with path or pattern` : '';
    if (entries.length === 0) return ok(`no files under ${dir.relative}${input.pattern ? ` matching ${input.pattern}` : ''}`);
    return ok(`${entries.length} entries under ${dir.relative} (depth ${input.max_depth}):\n${shown.join('\n')}${more}`);
  });
}

/**
 * Sorted paths relative to `cwd`; directories end in `/` so the model sees the shape of the tree. Nothing whose
 * real path is outside `workspace` (by default `cwd` itself) is listed, whatever the pattern.
 */
export async function listFiles(cwd: string, pattern: string, maxDepth: number, workspace = cwd): Promise<string[]> {
  const entries = await globInWorkspace({ root: workspace, cwd, pattern, option: 'pattern', onlyFiles: false, deep: maxDepth });
  // The walk skips what is inside an ignored directory; the directory entry itself still has to go.
  return entries.filter((entry) => !entry.split('/').some((part) => IGNORED_DIRECTORIES.includes(part)));
}
