import { languageOf } from './languages.js';
import { startParseThread, type ParsedFile, type SourceText } from './parse-thread.js';
import { projectSource, type ProjectFile } from './source-files.js';

/** Bumped whenever what an index holds changes, so older cached ones are not read. */
export const CODE_INDEX_VERSION = 2;

/**
 * What the code map and `find_symbol` know of a project: how its files spread over directories, every definition
 * the grammars recognise, and for each defined name how many files use it.
 */
export interface CodeIndex {
  version: number;
  /** The commit the index was built from; absent for a working tree outside git. */
  commit?: string;
  files: number;
  /** Directories (ending in `/`) up to two levels down, with the number of files below each. */
  directories: Array<[directory: string, files: number]>;
  /** Files in a language the map reads, and how many of them were parsed (all, unless a limit was reached). */
  sourceFiles: number;
  parsedFiles: number;
  languages: string[];
  definitions: Array<[name: string, kind: string, file: string, line: number]>;
  /** For each defined name: the other files that use it (import, call, construct or name it as a type). */
  usedIn: Record<string, number>;
}

/** Limits on parsing repository content on the worker's host. */
export interface IndexLimits {
  /** Larger files are not parsed: generated code, bundles, data. */
  maxFileBytes: number;
  /** Source parsed in all. */
  maxTotalBytes: number;
  /** Parsing stops here and the index is built from what was parsed. */
  timeLimitMs: number;
}

export const DEFAULT_INDEX_LIMITS: IndexLimits = { maxFileBytes: 2_000_000, maxTotalBytes: 200_000_000, timeLimitMs: 60_000 };

/** Kinds a more telling one replaces for the same name on the same line. */
const GENERIC_KINDS = new Set(['constant', 'variable']);

/** Text handed to the parser thread at a time. */
const BATCH_BYTES = 2_000_000;

/**
 * Builds the index of a workspace: its files (a commit's, see `projectSource`), then each source file parsed on the
 * parser thread, in path order, within `limits`. The event loop only moves text and adds up counts.
 */
export async function buildCodeIndex(
  workspace: string,
  options: { limits?: IndexLimits; signal?: AbortSignal; heartbeat?: () => void } = {},
): Promise<CodeIndex> {
  const limits = options.limits ?? DEFAULT_INDEX_LIMITS;
  const source = await projectSource(workspace, limits.maxFileBytes);
  const sources = selectSources(source.files, limits);
  const index: CodeIndex = {
    version: CODE_INDEX_VERSION,
    ...(source.commit ? { commit: source.commit } : {}),
    files: source.files.length,
    directories: countDirectories(source.files),
    sourceFiles: source.files.filter((file) => languageOf(file.path)).length,
    parsedFiles: 0,
    languages: [...new Set(sources.map((file) => languageOf(file.path)!.name))].sort(),
    definitions: [],
    usedIn: {},
  };
  if (sources.length === 0) return index;
  const references = new Map<string, string[]>();
  const deadline = performance.now() + limits.timeLimitMs;
  const thread = startParseThread(options.signal);
  let batch: SourceText[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    addParsed(index, references, await thread.parse(batch));
    batch = [];
    batchBytes = 0;
    options.heartbeat?.();
  };
  try {
    await source.read(sources, async (file, text) => {
      if (performance.now() > deadline) return;
      batch.push({ file: file.path, language: languageOf(file.path)!.name, text });
      batchBytes += text.length;
      if (batchBytes >= BATCH_BYTES) await flush();
    });
    await flush();
  } finally {
    await thread.close();
  }
  countUses(index, references);
  return index;
}

function selectSources(files: ProjectFile[], limits: IndexLimits): ProjectFile[] {
  const selected: ProjectFile[] = [];
  let total = 0;
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    if (!languageOf(file.path) || file.size > limits.maxFileBytes) continue;
    if (total + file.size > limits.maxTotalBytes) break;
    total += file.size;
    selected.push(file);
  }
  return selected;
}

function addParsed(index: CodeIndex, references: Map<string, string[]>, parsed: ParsedFile[]): void {
  for (const file of parsed) {
    index.parsedFiles += 1;
    const seen = new Map<string, number>();
    for (const [name, kind, line] of file.definitions) {
      // A name defined twice on one line (`const f = () => …` is a constant and a function) keeps the telling kind.
      const earlier = seen.get(`${name}:${line}`);
      if (earlier === undefined) {
        seen.set(`${name}:${line}`, index.definitions.push([name, kind, file.file, line]) - 1);
      } else if (GENERIC_KINDS.has(index.definitions[earlier]![1])) {
        index.definitions[earlier]![1] = kind;
      }
    }
    references.set(file.file, file.references);
  }
}

/** For each defined name, the files that reference it and define no name of that spelling themselves. */
function countUses(index: CodeIndex, references: Map<string, string[]>): void {
  const definingFiles = new Map<string, Set<string>>();
  for (const [name, , file] of index.definitions) {
    let files = definingFiles.get(name);
    if (!files) definingFiles.set(name, (files = new Set()));
    files.add(file);
  }
  for (const name of definingFiles.keys()) index.usedIn[name] = 0;
  for (const [file, names] of references) {
    for (const name of names) {
      if (definingFiles.get(name)?.has(file) === false) index.usedIn[name]! += 1;
    }
  }
}

function countDirectories(files: ProjectFile[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const file of files) {
    const parts = file.path.split('/').slice(0, -1);
    for (let depth = 1; depth <= Math.min(2, parts.length); depth++) {
      const directory = `${parts.slice(0, depth).join('/')}/`;
      counts.set(directory, (counts.get(directory) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}
