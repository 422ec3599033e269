import { stat } from 'node:fs/promises';
import fg from 'fast-glob';
import type { ToolInput } from '../../shared/tools.js';
import { IGNORE_GLOBS, IGNORED_DIRECTORIES } from './ignored-paths.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

const MAX_ENTRIES = 500;

/** `list_files`: what is in the workspace, without the noise of `.git`, dependencies and build output. */
export async function listWorkspaceFiles(workspace: string, input: ToolInput<'list_files'>): Promise<ToolOutcome> {
  return observe(async () => {
    const dir = resolveInWorkspace(workspace, input.path ?? '.');
    const info = await stat(dir.absolute).catch(() => refuse(`directory ${input.path} does not exist`));
    if (!info.isDirectory()) refuse(`${input.path} is a file; use read_file to read it`);
    const entries = await listFiles(dir.absolute, input.pattern ?? '**/*', input.max_depth);
    const prefix = dir.relative === '.' ? '' : `${dir.relative}/`;
    const shown = entries.slice(0, MAX_ENTRIES).map((entry) => prefix + entry);
    const more = entries.length > MAX_ENTRIES ? `\n… ${entries.length - MAX_ENTRIES} more; narrow with path or pattern` : '';
    if (entries.length === 0) return ok(`no files under ${dir.relative}${input.pattern ? ` matching ${input.pattern}` : ''}`);
    return ok(`${entries.length} entries under ${dir.relative} (depth ${input.max_depth}):\n${shown.join('\n')}${more}`);
  });
}

/** Sorted relative paths; directories end in `/` so the model sees the shape of the tree. */
export async function listFiles(cwd: string, pattern: string, maxDepth: number): Promise<string[]> {
  const entries = await fg(pattern, {
    cwd,
    deep: maxDepth,
    dot: true,
    onlyFiles: false,
    markDirectories: true,
    ignore: IGNORE_GLOBS,
    followSymbolicLinks: false,
    suppressErrors: true,
  });
  // `ignore` drops what is inside an ignored directory; the directory entry itself still has to go.
  return entries.filter((entry) => !entry.split('/').some((part) => IGNORED_DIRECTORIES.includes(part))).sort();
}
