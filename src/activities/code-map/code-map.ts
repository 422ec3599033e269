import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { WorkspaceConfig } from '../../shared/gates.js';
import { tryGit } from '../git/run-git.js';
import { readWorkspaceConfig } from '../verification/workspace-config.js';
import { buildCodeIndex, CODE_INDEX_VERSION, type CodeIndex, type IndexLimits } from './code-index.js';
import { renderCodeMap } from './render-code-map.js';

/** A repository with fewer files than this is shown by its file tree, which then says enough. */
export const DEFAULT_MAP_MIN_FILES = 300;
/** The map's share of the system prompt: Aider's repository map defaults to 1,024 tokens; this one has directories too. */
export const DEFAULT_MAP_TOKENS = 1_500;

const remembered = new Map<string, Promise<CodeIndex>>();
const REMEMBERED_INDEXES = 16;

/**
 * The code map of the project layer, for a workspace over the size threshold (`codeMap.minFiles` in codeloop.json,
 * 300 files by default), within `codeMap.tokens` (1,500 by default); `codeMap: false` turns it off. Undefined for a
 * smaller workspace, whose file tree the prompt shows instead.
 */
export async function describeCodeMap(
  workspace: string,
  limits?: IndexLimits,
  /** Built apart from the calling activity (no heartbeat, no cancellation), for a caller that may stop waiting for it. */
  { detached = false } = {},
): Promise<string | undefined> {
  const settings = mapSettings(workspace);
  if (!settings) return undefined;
  try {
    const index = await codeIndexOf(workspace, { limits, minFiles: settings.minFiles, detached });
    return index && renderCodeMap(index, settings.tokens);
  } catch (error) {
    // The map helps; a task does not need it. The file tree stands in, and the worker's log says why.
    if ((error as Error).name === 'AbortError' || currentContext()?.cancellationSignal.aborted) throw error;
    console.error(`codeloop: no code map for ${workspace}: ${(error as Error).message}`);
    return undefined;
  }
}

function mapSettings(workspace: string): { tokens: number; minFiles: number } | undefined {
  let config: WorkspaceConfig['codeMap'];
  try {
    config = readWorkspaceConfig(workspace).codeMap;
  } catch {
    // A codeloop.json that does not parse fails the gates' detection, where the agent is told; the map keeps its defaults.
  }
  if (config === false) return undefined;
  return { tokens: config?.tokens ?? DEFAULT_MAP_TOKENS, minFiles: config?.minFiles ?? DEFAULT_MAP_MIN_FILES };
}

/**
 * The workspace's code index, built once per commit: in git, keyed by the tree the workspace is at that commit, in
 * this worker's memory and in a cache directory on the host (`$XDG_CACHE_HOME/codeloop/code-index`, else
 * `~/.cache/...`), so every task on that commit, in any worktree, reuses it. A workspace outside git is indexed each
 * time. Undefined when the workspace has fewer than `minFiles` files.
 */
export async function codeIndexOf(
  workspace: string,
  options: { limits?: IndexLimits; minFiles?: number; onlyCached?: boolean; detached?: boolean } = {},
): Promise<CodeIndex | undefined> {
  const tree = await tryGit(workspace, ['rev-parse', '--verify', '--quiet', 'HEAD:./']);
  const key = tree.ok ? `${tree.stdout}-v${CODE_INDEX_VERSION}` : undefined;
  const inMemory = key ? remembered.get(key) : undefined;
  const cached = inMemory ? await inMemory : key ? await readCached(key) : undefined;
  if (key && cached) {
    remember(key, Promise.resolve(cached));
    return sizeable(cached, options.minFiles);
  }
  if (options.onlyCached) return undefined;
  const context = options.detached ? undefined : currentContext();
  const building = buildCodeIndex(workspace, {
    limits: options.limits,
    signal: context?.cancellationSignal,
    heartbeat: context && (() => context.heartbeat()),
  });
  if (key) {
    remember(key, building);
    building.then((index) => writeCached(key, index)).catch(() => remembered.delete(key));
  }
  return sizeable(await building, options.minFiles);
}

function sizeable(index: CodeIndex, minFiles = 0): CodeIndex | undefined {
  return index.files >= minFiles ? index : undefined;
}

function remember(key: string, index: Promise<CodeIndex>): void {
  remembered.delete(key);
  remembered.set(key, index);
  if (remembered.size > REMEMBERED_INDEXES) remembered.delete(remembered.keys().next().value!);
}

function cacheDirectory(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'codeloop', 'code-index');
}

async function readCached(key: string): Promise<CodeIndex | undefined> {
  const text = await readFile(path.join(cacheDirectory(), `${key}.json`), 'utf8').catch(() => undefined);
  if (!text) return undefined;
  try {
    const index = JSON.parse(text) as CodeIndex;
    return index.version === CODE_INDEX_VERSION ? index : undefined;
  } catch {
    return undefined;
  }
}

/** Written to a temporary name and renamed, so a reader never sees half an index. */
async function writeCached(key: string, index: CodeIndex): Promise<void> {
  const directory = cacheDirectory();
  await mkdir(directory, { recursive: true });
  const temporary = path.join(directory, `${key}.${process.pid}.tmp`);
  await writeFile(temporary, JSON.stringify(index));
  await rename(temporary, path.join(directory, `${key}.json`));
}

function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
