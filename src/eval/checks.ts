import { existsSync, readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { runProcess } from '../activities/process/run-process.js';
import type { Sandbox } from '../activities/process/sandbox.js';
import { truncateMiddle } from '../text/truncate.js';
import type { Checks, CommandCheck } from './suite-schema.js';

/** The kinds of check a case can have; `completed` is implied: a task that did not complete fails its case. */
export const CHECK_KINDS = ['completed', 'unchanged', 'exists', 'absent', 'command', 'maxIterations', 'maxCostUsd'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export interface CheckResult {
  kind: CheckKind;
  /** What was checked: a file, a command, a limit. */
  target: string;
  passed: boolean;
  /** Why it failed, or what it measured. */
  detail?: string;
}

/** The fixture's bytes of the files that must stay unchanged, taken before the task starts; `undefined` for a missing one. */
export type Snapshot = Map<string, Buffer | undefined>;

export function snapshotFiles(workspace: string, files: readonly string[]): Snapshot {
  return new Map(files.map((file) => [file, readIfPresent(path.join(workspace, file))]));
}

const DEFAULT_COMMAND_SECONDS = 300;
const OUTPUT_SHOWN_CHARS = 1_500;

/**
 * Decides a run once its task has ended, in this order: the files the fixture had (before anything is copied in),
 * then the hidden files are copied over the workspace and the commands run, each in codeloop's sandbox (they run the
 * task's code) without network, then the limits.
 */
export async function runChecks(options: {
  checks: Checks;
  workspace: string;
  snapshot: Snapshot;
  outcome: { completed: boolean; reason?: string; iterations: number; costUsd: number };
  sandbox: Sandbox;
}): Promise<CheckResult[]> {
  const { checks, workspace, snapshot, outcome } = options;
  const results: CheckResult[] = [
    {
      kind: 'completed',
      target: 'task',
      passed: outcome.completed,
      ...(outcome.completed ? {} : { detail: outcome.reason ?? 'did not complete' }),
    },
  ];
  for (const file of checks.unchanged) results.push(checkUnchanged(workspace, file, snapshot.get(file)));
  for (const file of checks.exists) {
    const present = existsSync(path.join(workspace, file));
    results.push({ kind: 'exists', target: file, passed: present, ...(present ? {} : { detail: 'missing' }) });
  }
  for (const file of checks.absent) {
    const present = existsSync(path.join(workspace, file));
    results.push({ kind: 'absent', target: file, passed: !present, ...(present ? { detail: 'present' } : {}) });
  }
  if (checks.hidden) await cp(checks.hidden, workspace, { recursive: true, force: true });
  for (const command of checks.commands) results.push(await runCommandCheck(command, workspace, options.sandbox));
  if (checks.maxIterations !== undefined) {
    const passed = outcome.iterations <= checks.maxIterations;
    results.push({ kind: 'maxIterations', target: `≤ ${checks.maxIterations}`, passed, detail: `${outcome.iterations} iterations` });
  }
  if (checks.maxCostUsd !== undefined) {
    const passed = outcome.costUsd <= checks.maxCostUsd;
    results.push({ kind: 'maxCostUsd', target: `≤ $${checks.maxCostUsd}`, passed, detail: `$${outcome.costUsd.toFixed(4)}` });
  }
  return results;
}

function checkUnchanged(workspace: string, file: string, before: Buffer | undefined): CheckResult {
  const now = readIfPresent(path.join(workspace, file));
  const result = { kind: 'unchanged' as const, target: file };
  if (before === undefined) return { ...result, passed: false, detail: 'not in the fixture, so nothing to compare with' };
  if (now === undefined) return { ...result, passed: false, detail: 'deleted' };
  if (before.equals(now)) return { ...result, passed: true };
  return { ...result, passed: false, detail: `changed: ${describeChange(before.toString('utf8'), now.toString('utf8'))}` };
}

/** The first line that differs, so a reader sees at once whether the edit was targeted or the file was rewritten. */
function describeChange(before: string, now: string): string {
  const old = before.split('\n');
  const current = now.split('\n');
  const line = old.findIndex((text, index) => text !== current[index]);
  const at = line === -1 ? old.length : line;
  return `${old.length} → ${current.length} lines; first difference at line ${at + 1}: ${JSON.stringify(old[at] ?? '')} → ${JSON.stringify(current[at] ?? '')}`;
}

async function runCommandCheck(check: CommandCheck, workspace: string, sandbox: Sandbox): Promise<CheckResult> {
  const { run, timeoutSeconds = DEFAULT_COMMAND_SECONDS } = typeof check === 'string' ? { run: check } : check;
  const result = await runProcess({ command: run, cwd: workspace, timeoutMs: timeoutSeconds * 1000, env: process.env, sandbox });
  const passed = result.exitCode === 0 && !result.timedOut;
  if (passed) return { kind: 'command', target: run, passed };
  const ending = result.timedOut ? `timed out after ${timeoutSeconds} s` : `exit ${result.exitCode ?? result.signal}`;
  return { kind: 'command', target: run, passed, detail: `${ending}: ${truncateMiddle(result.output.trim(), OUTPUT_SHOWN_CHARS)}` };
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
