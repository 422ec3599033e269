import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { LINT_OUTPUT_CHARS } from '../../shared/constants.js';
import { truncateEnd } from '../../text/truncate.js';
import { findExecutable } from '../process/find-executable.js';
import { shellQuote, type WorkspaceShell } from '../tools/run-command.js';

export interface LintReport {
  linter: string;
  /** Remaining errors, capped at 2,000 characters; `undefined` when the file is clean. */
  errors?: string;
}

const LINT_TIMEOUT_MS = 120_000;
const ESLINT_CONFIGS = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  '.eslintrc',
  '.eslintrc.js',
  '.eslintrc.cjs',
  '.eslintrc.json',
  '.eslintrc.yml',
];

/**
 * Lints one file right after an edit or create, with what the workspace has: ruff (autofix first) for Python,
 * eslint (autofix first) or `tsc --noEmit` for TypeScript and JavaScript, `node --check`, and a parse for JSON and
 * YAML. Catching the mistake at the edit that made it is cheaper than finding it at the end.
 */
export async function lintFile(
  shell: WorkspaceShell,
  workspace: string,
  file: string,
  /** Where to look for tools outside the workspace; the worker's `PATH` unless a caller says otherwise. */
  searchPath = process.env.PATH ?? '',
): Promise<LintReport | undefined> {
  const extension = path.extname(file).toLowerCase();
  /** With `keep`, only the kept lines count: a project-wide checker fails for other files' errors too. */
  const run = async (linter: string, command: string, keep?: (line: string) => boolean): Promise<LintReport> => {
    const result = await shell(command, { workspace, timeoutMs: LINT_TIMEOUT_MS });
    const output = result.output
      .split('\n')
      .filter(keep ?? (() => true))
      .join('\n')
      .trim();
    const failed = result.timedOut || (keep ? output !== '' : result.exitCode !== 0);
    return { linter, errors: failed ? truncateEnd(output || `${linter} exited with ${result.exitCode}`, LINT_OUTPUT_CHARS) : undefined };
  };
  const local = (name: string) => path.join(workspace, 'node_modules', '.bin', name);
  const hasEslint = () => existsSync(local('eslint')) && ESLINT_CONFIGS.some((name) => existsSync(path.join(workspace, name)));

  if (extension === '.py') {
    const ruff = findExecutable('ruff', [path.join(workspace, '.venv/bin/ruff'), path.join(workspace, 'venv/bin/ruff')], searchPath);
    if (ruff) return run('ruff', `${shellQuote(ruff)} check --fix --quiet --output-format concise ${shellQuote(file)}`);
    // A syntax check that, unlike py_compile, leaves no __pycache__ behind in the workspace.
    const check = 'import sys; compile(open(sys.argv[1], encoding="utf-8").read(), sys.argv[1], "exec")';
    return run('python syntax check', `python3 -c ${shellQuote(check)} ${shellQuote(file)}`);
  }
  if (['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].includes(extension)) {
    if (hasEslint()) return run('eslint', `${shellQuote(local('eslint'))} --fix ${shellQuote(file)}`);
    if (extension.includes('t') && extension !== '.js' && existsSync(local('tsc')) && existsSync(path.join(workspace, 'tsconfig.json'))) {
      // tsc checks the whole project; only this file's errors are the edit's to fix.
      return run('tsc --noEmit', `${shellQuote(local('tsc'))} --noEmit --pretty false -p .`, (line) => line.startsWith(file));
    }
    if (['.js', '.mjs', '.cjs'].includes(extension)) return run('node --check', `node --check ${shellQuote(file)}`);
    return undefined;
  }
  if (extension === '.json' || extension === '.yaml' || extension === '.yml') {
    const linter = extension === '.json' ? 'JSON parse' : 'YAML parse';
    try {
      const text = readFileSync(path.join(workspace, file), 'utf8');
      if (extension === '.json') JSON.parse(text);
      else parseYaml(text);
      return { linter };
    } catch (error) {
      return { linter, errors: `${file}: ${(error as Error).message}` };
    }
  }
  return undefined;
}

/** The block appended to an edit's or create's tool result. */
export function formatLintErrors(report: LintReport): string {
  return `\n\nLINT ERRORS (must fix) from ${report.linter}:\n${report.errors}`;
}
