import { isTypeChecker, type LintReport } from './lint.js';

/** Workspaces (and, for per-file linters, files) whose last check found errors; the oldest go past this many. */
const REMEMBERED = 1_000;
const withErrors = new Set<string>();

/**
 * Marks a clean report `cleanAgain` when the same check found errors last time, so the model hears that the errors
 * are gone (a rename half done has type errors in every caller; the edit that finishes it should say they are
 * fixed). Kept in the worker's memory: after a restart the first clean check says nothing more than "clean".
 */
export function rememberOutcome(workspace: string, file: string, report: LintReport): LintReport {
  const key = `${workspace}\u0000${isTypeChecker(report.linter) ? '' : file}`;
  const hadErrors = withErrors.delete(key);
  if (report.errors) {
    withErrors.add(key);
    if (withErrors.size > REMEMBERED) withErrors.delete(withErrors.values().next().value!);
    return report;
  }
  return hadErrors ? { ...report, cleanAgain: true } : report;
}
