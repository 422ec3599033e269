/**
 * Directory names no default walk enters, at any depth: VCS data, dependencies, caches and build output. They hold
 * nothing the model should read by default, whether or not the workspace's `.gitignore` says so (a fresh checkout,
 * a project without one, a cache a tool made before anyone ignored it). A `list_files` path or a glob's leading
 * literal directories may still lead into one (see `globInWorkspace`); `isIgnoredDirectory` is the full test.
 */
export const IGNORED_DIRECTORIES: readonly string[] = [
  // version control
  '.git',
  '.hg',
  '.svn',
  // dependencies and environments
  'node_modules',
  'bower_components',
  '.pnpm-store',
  '.venv',
  'venv',
  '.eggs',
  // build output
  'dist',
  'build',
  'out',
  'target',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.angular',
  '.dart_tool',
  // caches and reports
  'coverage',
  'htmlcov',
  '.nyc_output',
  '.cache',
  '.turbo',
  '.parcel-cache',
  '.sass-cache',
  '.gradle',
  '__pycache__',
  '.tox',
  '.nox',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.hypothesis',
  '.pyre',
  '.pytype',
  '.idea',
];

/** Ignored only inside a parent of a given name: Yarn's caches, Bundler's installed gems. */
export const IGNORED_NESTED_DIRECTORIES = ['.yarn/cache', '.yarn/unplugged', 'vendor/bundle'];

/** Ignored by how the name ends: setuptools metadata (`mypkg.egg-info`). */
export const IGNORED_DIRECTORY_SUFFIXES = ['.egg-info'];

/** True when the directory at `relative` (a workspace-relative path with `/`) is one no default walk enters. */
export function isIgnoredDirectory(relative: string): boolean {
  const name = relative.slice(relative.lastIndexOf('/') + 1);
  if (IGNORED_DIRECTORIES.includes(name) || IGNORED_DIRECTORY_SUFFIXES.some((suffix) => name.endsWith(suffix))) return true;
  return IGNORED_NESTED_DIRECTORIES.some((nested) => relative === nested || relative.endsWith(`/${nested}`));
}

/** True when the first bytes hold a NUL: the usual sign of a binary file. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, 8_000).includes(0);
}
