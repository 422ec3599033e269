import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import micromatch from 'micromatch';
import { createGitignoreRules } from '../gitignore-rules.js';
import { isInside, refuseEscapingPattern } from '../glob-in-workspace.js';
import { looksBinary } from '../ignored-paths.js';
import { readRegularFile } from '../read-regular-file.js';
import { MAX_SEARCHED_FILE_BYTES } from './search-engine.js';

/** A place to search: its real path relative to the workspace root, and how results under it are shown. */
export interface SearchRoot {
  /** `.` for the root. */
  real: string;
  /** The spelling the glob used (`alias` for a symlink to `real`), `''` for the root. */
  shown: string;
}

/**
 * What `file_glob` asks a search engine that walks the workspace itself (ripgrep) to search, worked out on the host
 * with the rules `globInWorkspace` applies, so both engines search the same files:
 * - `directories`: where the glob's literal leading directories lead, each checked to be a real directory inside
 *   the workspace and not gitignored; the engine walks them with the fixed list and the gitignore rules applied
 *   below the start, and follows no symlink;
 * - `files`: what patterns without wildcards name, each a regular text file inside the workspace (not a symlink)
 *   of at most 1 MB, found whatever the lists say, as `read_file` would read it; `tooLarge` counts those over 1 MB;
 * - `matches`: the glob itself, as fast-glob matches it, on the shown path: the exact filter over what the engine
 *   found;
 * - `names`: file name globs that every wanted file matches, when the glob's last segments are simple enough to say
 *   (`**\/*.ts` gives `*.ts`): the engine may skip other files early; `matches` stays the judge.
 */
export interface SearchPlan {
  directories: SearchRoot[];
  files: SearchRoot[];
  tooLarge: number;
  matches?: (shown: string) => boolean;
  names?: string[];
}

/** A file name glob both fast-glob and gitignore read alike: literal characters, `*` and `?` only. */
const SIMPLE_NAME = /^[^/\\[\]{}()!+@#\s][^/\\[\]{}()!+@\s]*$/;

/** Plans the search of `glob` (the whole workspace when absent) under `root`, a real path. */
export async function planSearch(root: string, glob: string | undefined): Promise<SearchPlan> {
  if (glob === undefined) return { directories: [{ real: '.', shown: '' }], files: [], tooLarge: 0 };
  refuseEscapingPattern(glob, 'file_glob', 'the workspace root');
  const tasks = fg.generateTasks(glob, { dot: true });
  const patterns = tasks.flatMap((task) => task.patterns.map(withoutDotSegments));
  const dynamic = tasks.filter((task) => task.dynamic);
  const lastSegments = dynamic.flatMap((task) => task.patterns.map((pattern) => pattern.slice(pattern.lastIndexOf('/') + 1)));
  const rules = createGitignoreRules(root);
  const directories = await Promise.all(dynamic.map((task) => directoryInside(root, withoutDotSegments(task.base), rules)));
  const named = await Promise.all(
    tasks
      .filter((task) => !task.dynamic)
      .flatMap((task) => task.patterns.map((pattern) => textFileInside(root, withoutDotSegments(pattern)))),
  );
  const matchers = patterns.map((pattern) => micromatch.matcher(pattern, { dot: true }));
  return {
    directories: outermost(directories.filter((entry): entry is SearchRoot => entry !== undefined)),
    files: named.filter((entry): entry is SearchRoot => typeof entry === 'object'),
    tooLarge: named.filter((entry) => entry === 'too-large').length,
    matches: (shown) => matchers.some((matches) => matches(shown)),
    names: lastSegments.every((segment) => SIMPLE_NAME.test(segment) && segment !== '**') ? [...new Set(lastSegments)] : undefined,
  };
}

/** `./src/*.ts` and `src/./*` as fast-glob matches them: `src/*.ts`, `src/*`. */
function withoutDotSegments(pattern: string): string {
  const normalized = pattern.replace(/(^|\/)(\.\/)+/g, '$1').replace(/\/\.$/, '');
  return normalized === '' ? '.' : normalized;
}

/** The start of a walk: a directory whose real path is inside the root and that the workspace does not gitignore. */
async function directoryInside(
  root: string,
  base: string,
  rules: ReturnType<typeof createGitignoreRules>,
): Promise<SearchRoot | undefined> {
  const real = await realpath(path.join(root, base)).catch(() => undefined);
  if (real === undefined || !isInside(root, real)) return undefined;
  if (!(await lstat(real).catch(() => undefined))?.isDirectory()) return undefined;
  const relative = path.relative(root, real) || '.';
  if (relative !== '.') {
    await rules.load(relative);
    if (rules.ignores(relative, true)) return undefined;
  }
  return { real: relative, shown: base === '.' ? '' : base };
}

/**
 * A file named without wildcards: a regular text file (not a symlink, not binary) in a directory whose real path is
 * inside, read as the built-in search reads it, or `too-large`.
 */
async function textFileInside(root: string, name: string): Promise<SearchRoot | 'too-large' | undefined> {
  const parent = await realpath(path.join(root, path.dirname(name))).catch(() => undefined);
  if (parent === undefined || !isInside(root, parent)) return undefined;
  const real = path.join(parent, path.basename(name));
  const bytes = await readRegularFile(root, real, MAX_SEARCHED_FILE_BYTES);
  if (bytes === 'too-large') return bytes;
  if (typeof bytes === 'string' || looksBinary(bytes)) return undefined;
  return { real: path.relative(root, real), shown: name };
}

/** Drops a start inside another start (`{src,src/lib}/**`), which would otherwise be searched, and counted, twice. */
function outermost(roots: SearchRoot[]): SearchRoot[] {
  const kept: SearchRoot[] = [];
  for (const candidate of [...roots].sort((a, b) => a.real.length - b.real.length)) {
    const covered = kept.some((root) => root.real === '.' || candidate.real === root.real || candidate.real.startsWith(`${root.real}/`));
    if (!covered) kept.push(candidate);
  }
  return kept;
}
