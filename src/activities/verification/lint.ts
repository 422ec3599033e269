import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { LINT_OUTPUT_CHARS } from '../../shared/constants.js';
import { truncateEnd } from '../../text/truncate.js';
import type { SandboxMode } from '../../shared/command-access.js';
import { dependencyDir } from '../dependency-links.js';
import { findExecutable } from '../process/find-executable.js';
import { readProjectFile } from '../project-file.js';
import type { ProcessResult } from '../process/run-process.js';
import { shellQuote, type WorkspaceShell } from '../tools/run-command.js';
import {
  committedVersion,
  compareFindings,
  formatFindings,
  parseEslintFindings,
  parseRuffFindings,
  type LintFinding,
} from './lint-findings.js';
import { checkTypes, formatTypeDiagnostics, TypeCheckUnavailable } from './type-check.js';

export interface LintReport {
  linter: string;
  /**
   * The errors that are the edit's to fix, capped at 2,000 characters; `undefined` when there are none. For ruff and
   * eslint these are only the findings the task introduced: see `preExisting`.
   */
  errors?: string;
  /** Findings the file's committed version already had (ruff and eslint only): reported as a count, never to fix. */
  preExisting?: number;
  /** Why the check did not run on this project (the type checker's limits), so the model knows it had no word. */
  skipped?: string;
  /** No errors now, where the same check found some last time (see `rememberOutcome`). */
  cleanAgain?: boolean;
}

/** Whether a linter checks the whole project (a type checker), so that its errors belong to no one file. */
export const isTypeChecker = (linter: string) => linter.startsWith('tsc');

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
 * Lints one file right after an edit or create, with what the workspace has: ruff for Python, eslint or `tsc
 * --noEmit` for TypeScript and JavaScript, `node --check`, and a parse for JSON and YAML. Catching the mistake at the
 * edit that made it is cheaper than finding it at the end. Linters never fix anything here (`--no-fix`, no `--fix`):
 * a fixer rewrites lines the edit did not touch, after the edit's diff was taken, without the model knowing. ruff and
 * eslint findings the file's committed version already had are counted, not reported as the edit's to fix.
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
  const run = async (linter: string, command: string, keep?: (line: string) => boolean): Promise<LintReport> =>
    reportOf(linter, await shell(command, { workspace, timeoutMs: LINT_TIMEOUT_MS }), keep);
  const reportOf = (linter: string, result: ProcessResult, keep?: (line: string) => boolean): LintReport => {
    const output = result.output
      .split('\n')
      .filter(keep ?? (() => true))
      .join('\n')
      .trim();
    const failed = result.timedOut || (keep ? output !== '' : result.exitCode !== 0);
    return { linter, errors: failed ? truncateEnd(output || `${linter} exited with ${result.exitCode}`, LINT_OUTPUT_CHARS) : undefined };
  };
  /**
   * A linter that reports JSON findings: what the file has now, minus what its committed version had (linted from
   * stdin). Output that does not parse is reported whole, as `run` does.
   */
  const runAgainstCommitted = async (
    linter: string,
    command: (target: string) => string,
    stdinTarget: string,
    parse: (output: string) => LintFinding[] | undefined,
  ): Promise<LintReport> => {
    const now = await shell(command(shellQuote(file)), { workspace, timeoutMs: LINT_TIMEOUT_MS });
    const findings = now.timedOut ? undefined : parse(now.output);
    if (!findings) return reportOf(linter, now);
    if (findings.length === 0) return { linter };
    const committed = await shell(`${committedVersion(file)} | ${command(stdinTarget)}`, { workspace, timeoutMs: LINT_TIMEOUT_MS });
    const { introduced, preExisting } = compareFindings(findings, parse(committed.output) ?? []);
    const errors = introduced.length ? truncateEnd(formatFindings(file, introduced), LINT_OUTPUT_CHARS) : undefined;
    return { linter, errors, preExisting };
  };
  const local = (name: string) => localBin(workspace, name, shell.sandboxMode);
  const hasEslint = () => usesEslint(workspace, shell.sandboxMode);

  if (extension === '.py') {
    const venvs = (['.venv', 'venv'] as const).map((venv) => path.join(dependencyDir(workspace, venv, shell.sandboxMode), 'bin/ruff'));
    const ruff = findExecutable('ruff', venvs, searchPath);
    if (ruff) {
      const check = (target: string) => `${shellQuote(ruff)} check --no-fix --quiet --output-format json ${target}`;
      return runAgainstCommitted('ruff', check, `--stdin-filename ${shellQuote(file)} -`, parseRuffFindings);
    }
    // A syntax check that, unlike py_compile, leaves no __pycache__ behind in the workspace.
    const check = 'import sys; compile(open(sys.argv[1], encoding="utf-8").read(), sys.argv[1], "exec")';
    return run('python syntax check', `python3 -c ${shellQuote(check)} ${shellQuote(file)}`);
  }
  if (['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].includes(extension)) {
    if (hasEslint()) {
      const check = (target: string) => `${shellQuote(local('eslint'))} --format json ${target}`;
      return runAgainstCommitted('eslint', check, `--stdin --stdin-filename ${shellQuote(file)}`, parseEslintFindings);
    }
    if (extension.includes('t') && extension !== '.js' && usesTypeChecker(workspace, shell.sandboxMode)) {
      try {
        return await typeCheck(shell, workspace, file);
      } catch (error) {
        if (error instanceof TypeCheckUnavailable) return { linter: 'tsc (incremental)', skipped: error.message };
        // A project the incremental checker cannot load still gets tsc's word on this file, when it has tsc.
        if (!existsSync(local('tsc'))) return undefined;
        return run('tsc --noEmit', `${shellQuote(local('tsc'))} --noEmit --pretty false -p .`, (line) => line.startsWith(file));
      }
    }
    if (['.js', '.mjs', '.cjs'].includes(extension)) return run('node --check', `node --check ${shellQuote(file)}`);
    return undefined;
  }
  if (extension === '.json' || extension === '.yaml' || extension === '.yml') {
    const linter = extension === '.json' ? 'JSON parse' : 'YAML parse';
    const text = readProjectFile(path.join(workspace, file));
    if (typeof text !== 'string') return undefined;
    try {
      if (extension === '.json') JSON.parse(text);
      else parseYaml(text);
      return { linter };
    } catch (error) {
      return { linter, errors: `${file}: ${(error as Error).message}` };
    }
  }
  return undefined;
}

const localBin = (workspace: string, name: string, sandboxMode?: SandboxMode) =>
  path.join(dependencyDir(workspace, 'node_modules', sandboxMode), '.bin', name);
const usesEslint = (workspace: string, sandboxMode?: SandboxMode) =>
  existsSync(localBin(workspace, 'eslint', sandboxMode)) && ESLINT_CONFIGS.some((name) => existsSync(path.join(workspace, name)));

/** TypeScript edits get the incremental type checker: a `tsconfig.json`, and no eslint (which has its own word). */
export function usesTypeChecker(workspace: string, sandboxMode?: SandboxMode): boolean {
  return !usesEslint(workspace, sandboxMode) && existsSync(path.join(workspace, 'tsconfig.json'));
}

/**
 * The edit's type errors from the workspace's incremental checker: in the edited file and wherever else they newly
 * appear, against the project as committed (the edited file's committed text is read in the sandbox).
 */
async function typeCheck(shell: WorkspaceShell, workspace: string, file: string): Promise<LintReport> {
  const committed = async (name: string) => {
    const result = await shell(committedVersion(name), { workspace, timeoutMs: LINT_TIMEOUT_MS });
    return result.exitCode === 0 ? result.output : undefined;
  };
  const { introduced, preExisting } = await checkTypes(workspace, file, committed);
  const errors = introduced.length ? truncateEnd(formatTypeDiagnostics(introduced), LINT_OUTPUT_CHARS) : undefined;
  return { linter: 'tsc (incremental)', errors, preExisting };
}

/**
 * The block appended to an edit's or create's tool result: the errors to fix, then the count of the ones that were
 * there. Type errors are labelled as such: midway through a change across files (a rename) they are expected in
 * the files it has not reached yet. A clean check after errors says so.
 */
export function formatLintErrors(report: LintReport): string {
  if (report.skipped) return `\n\n${report.linter}: not run on this project (${report.skipped}).`;
  const scope = isTypeChecker(report.linter) ? 'in the project' : 'in this file';
  const before = report.preExisting
    ? `${report.preExisting} other finding${report.preExisting === 1 ? '' : 's'} of ${report.linter} ${scope} ${report.preExisting === 1 ? 'was' : 'were'} there before this task: not yours to fix.`
    : '';
  if (!report.errors) {
    const clean = report.cleanAgain ? `${report.linter}: clean again; the errors the last check found are gone.` : '';
    if (!before) return clean ? `\n\n${clean}` : '';
    return `\n\n${clean || `${report.linter}: nothing new.`} ${before}`;
  }
  const heading = isTypeChecker(report.linter)
    ? `TYPE ERRORS from ${report.linter}, to fix before you finish (in files a change across several files has not reached yet, they are expected until it does)`
    : `LINT ERRORS (must fix) from ${report.linter}`;
  return `\n\n${heading}:\n${report.errors}${before ? `\n(${before})` : ''}`;
}
