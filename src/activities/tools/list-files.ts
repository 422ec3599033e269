import { stat } from 'node:fs/promises';
import type { ToolInput } from '../../shared/tools.js';
import { createGitignoreRules } from './gitignore-rules.js';
import { globInWorkspace } from './glob-in-workspace.js';
import { pageListing, WHOLE_LISTING_ENTRIES } from './listing-pages.js';
import { observe, ok, refuse, type ToolOutcome } from './tool-outcome.js';
import { resolveInWorkspace } from './workspace-path.js';

/**
 * `list_files`: what is in the workspace, without the noise of `.git`, dependencies, caches, build output and what
 * the workspace's `.gitignore` files ignore. A `path` inside a fixed-list directory (`dist`, `node_modules/pkg`)
 * lists it; a gitignored one lists nothing, and says why (see `globInWorkspace`). Over 500 entries, the listing starts
 * with the directories and their file counts and comes a page at a time (`page`).
 */
export async function listWorkspaceFiles(workspace: string, input: ToolInput<'list_files'>): Promise<ToolOutcome> {
  return observe(async () => {
    const dir = resolveInWorkspace(workspace, input.path ?? '.');
    const info = await stat(dir.absolute).catch(() => refuse(`directory ${input.path} does not exist`));
    if (!info.isDirectory()) refuse(`${input.path} is a file; use read_file to read it`);
    const entries = await listFiles(dir.absolute, input.pattern ?? '**/*', input.max_depth, dir.root);
    const prefix = dir.relative === '.' ? '' : `${dir.relative}/`;
    if (entries.length === 0) {
      const why = (await isGitignored(dir.root, dir.relative))
        ? `: ${dir.relative} is gitignored, so list_files and search_codebase leave it out; read_file still reads a file there by its path`
        : '';
      return ok(`no files under ${dir.relative}${input.pattern ? ` matching ${input.pattern}` : ''}${why}`);
    }
    const heading = `${entries.length} entries under ${dir.relative} (depth ${input.max_depth})`;
    if (entries.length <= WHOLE_LISTING_ENTRIES && (input.page ?? 1) === 1)
      return ok(`${heading}:\n${entries.map((entry) => prefix + entry).join('\n')}`);
    return ok(pageListing(entries, input.page ?? 1, heading, prefix));
  });
}

/**
 * Sorted paths relative to `cwd`; directories end in `/` so the model sees the shape of the tree. Nothing whose
 * real path is outside `workspace` (by default `cwd` itself) is listed, whatever the pattern, and neither is what
 * the walk skips: the fixed list and gitignored paths (see `globInWorkspace`). The prompt's file tree is this list.
 */
export async function listFiles(cwd: string, pattern: string, maxDepth: number, workspace = cwd): Promise<string[]> {
  return globInWorkspace({ root: workspace, cwd, pattern, option: 'pattern', onlyFiles: false, deep: maxDepth });
}

/** Whether git would ignore the directory at `relative` (workspace-relative, real), by the workspace's own rules. */
async function isGitignored(root: string, relative: string): Promise<boolean> {
  if (relative === '.') return false;
  const rules = createGitignoreRules(root);
  await rules.load(relative);
  return rules.ignores(relative, true);
}
