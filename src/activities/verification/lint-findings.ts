import { CHECKPOINT_SUBJECT } from '../git/task-branch.js';
import { shellQuote } from '../tools/run-command.js';

/** One finding of a linter that reports JSON (ruff, eslint). */
export interface LintFinding {
  rule: string;
  line: number;
  column: number;
  message: string;
}

/** What an edit did to a file's findings: the ones it introduced, and how many were there before the task. */
export interface FindingsChange {
  introduced: LintFinding[];
  preExisting: number;
}

/** ruff's `--output-format json`: `[{ code, message, location: { row, column } }]`; a syntax error has no code. */
export function parseRuffFindings(output: string): LintFinding[] | undefined {
  const parsed = parseJsonArray(output) as
    { code?: string | null; message?: string; location?: { row?: number; column?: number } }[] | undefined;
  return parsed?.map((finding) => ({
    rule: finding.code ?? 'syntax-error',
    line: finding.location?.row ?? 0,
    column: finding.location?.column ?? 0,
    message: finding.message ?? '',
  }));
}

/** eslint's `--format json`: one entry per file with its `messages`; only errors (severity 2) fail a lint. */
export function parseEslintFindings(output: string): LintFinding[] | undefined {
  const parsed = parseJsonArray(output) as
    { messages?: { ruleId?: string | null; severity?: number; message?: string; line?: number; column?: number }[] }[] | undefined;
  return parsed?.flatMap((file) =>
    (file.messages ?? [])
      .filter((message) => message.severity === 2)
      .map((message) => ({
        rule: message.ruleId ?? 'parse-error',
        line: message.line ?? 0,
        column: message.column ?? 0,
        message: message.message ?? '',
      })),
  );
}

/** The JSON array in a linter's output; other lines (a warning printed before it) are skipped. */
function parseJsonArray(output: string): unknown[] | undefined {
  const start = output.indexOf('[');
  const end = output.lastIndexOf(']');
  if (start === -1 || end < start) return undefined;
  try {
    const parsed: unknown = JSON.parse(output.slice(start, end + 1));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The findings an edit introduced, against the file's findings before the task (its committed version). A finding
 * is known by its rule and message, not its line, so findings that only moved because lines were added above them
 * stay pre-existing; when the file has more of one kind than before, the extra ones are the latest in the file.
 */
export function compareFindings(after: LintFinding[], before: LintFinding[]): FindingsChange {
  const remaining = new Map<string, number>();
  for (const finding of before) remaining.set(keyOf(finding), (remaining.get(keyOf(finding)) ?? 0) + 1);
  const introduced: LintFinding[] = [];
  for (const finding of [...after].sort((a, b) => a.line - b.line || a.column - b.column)) {
    const left = remaining.get(keyOf(finding)) ?? 0;
    if (left > 0) remaining.set(keyOf(finding), left - 1);
    else introduced.push(finding);
  }
  return { introduced, preExisting: after.length - introduced.length };
}

const keyOf = (finding: LintFinding) => `${finding.rule}\u0000${finding.message}`;

/** Findings as the model reads them: `file:line:col: RULE message`, one per line. */
export function formatFindings(file: string, findings: LintFinding[]): string {
  return findings.map((finding) => `${file}:${finding.line}:${finding.column}: ${finding.rule} ${finding.message}`).join('\n');
}

/**
 * A shell pipeline that feeds the file as it was when the task started to a linter reading stdin: the newest commit
 * below the task's checkpoints (in a task's own branch, each iteration's checkpoint commit moves HEAD, and a finding
 * the task made in its first iteration is still the task's in its second), which is HEAD when the task works in
 * place. An untracked file, or a workspace that is not a git repository, feeds nothing, so every finding counts as
 * new. Git runs inside the sandbox like the linter, with no hooks or fsmonitor program.
 */
export function committedVersion(file: string): string {
  const git = 'git -c core.fsmonitor=false -c core.hooksPath=/dev/null';
  const checkpoint = shellQuote(`^${CHECKPOINT_SUBJECT}[0-9]+$`);
  const start = `$(${git} rev-list -n 1 --first-parent --invert-grep -E --grep=${checkpoint} HEAD 2>/dev/null)`;
  return `${git} show "${start}":${shellQuote(`./${file}`)} 2>/dev/null`;
}
