import path from 'node:path';

/** Manifests and tool configs: their unchanged bytes matter to everything else in the project. */
const CONFIG_FILES = new Set([
  'package.json',
  'package-lock.json',
  'pyproject.toml',
  'setup.cfg',
  'setup.py',
  'requirements.txt',
  'tsconfig.json',
  'Cargo.toml',
  'go.mod',
  'pom.xml',
  'build.gradle',
  'Gemfile',
  'composer.json',
  'tox.ini',
  'pytest.ini',
  '.eslintrc',
  '.eslintrc.json',
  'eslint.config.js',
  'eslint.config.mjs',
  'vite.config.ts',
  'vitest.config.ts',
  'jest.config.js',
  'Makefile',
  'Dockerfile',
  'docker-compose.yml',
  'codeloop.json',
]);

export function isConfigFile(file: string): boolean {
  return CONFIG_FILES.has(path.basename(file));
}

/**
 * Whether an edit rewrites a config file whole: a search block that spans most of the file. Config files take
 * targeted edits only, so the rest of the file stays byte-identical.
 */
export function rewritesWhole(original: string, search: string): boolean {
  const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '').length;
  const total = lines(original);
  return total > 3 && lines(search) >= total * 0.8;
}
