/** Directories no tool walks into: VCS data, dependencies, caches and build output. */
export const IGNORED_DIRECTORIES = [
  '.git',
  'node_modules',
  'dist',
  'build',
  'out',
  'coverage',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  'target',
  '.gradle',
  '.idea',
];

/** fast-glob `ignore` patterns for the directories above, at any depth. */
export const IGNORE_GLOBS = IGNORED_DIRECTORIES.map((dir) => `**/${dir}/**`);

/** True when the first bytes hold a NUL: the usual sign of a binary file. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, 8_000).includes(0);
}
