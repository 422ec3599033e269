import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Sandbox } from '../activities/process/sandbox.js';
import { setTimeout as pause } from 'node:timers/promises';
import { queryState, settledResult } from '../reads/task-reads.js';
import { emptyUsage, totalTokens } from '../shared/conversation.js';
import { answerBlockerSignal } from '../shared/messages.js';
import type { TaskResult, TaskStateSnapshot } from '../shared/task-state.js';
import { parseTaskInput } from '../shared/task-input.js';
import type { agentTaskWorkflow } from '../workflows/index.js';
import { runChecks, snapshotFiles } from './checks.js';
import type { EvalCase } from './load-suite.js';
import type { RunRecord } from './results.js';
import { DIVERGED_MARKER } from './replay-server.js';
import type { BlockerAnswer } from './suite-schema.js';
import { copyFixture } from './workspace-copy.js';

/** Where and how runs happen: the server, the queue a worker polls, the sandbox the checks run in. */
export interface RunTarget {
  client: Client;
  taskQueue: string;
  sandbox: Sandbox;
  /** Where the copies go (`<workdir>/codeloop-eval-<random>/<case-id>`). */
  workdir: string;
  /** Keep every copy, not only those of runs that did not pass. */
  keep?: boolean;
  pollMs?: number;
}

/** Task input fields laid over the case's own: `--model`, or the models a recording asked for. */
export type TaskOverrides = Record<string, unknown>;

/**
 * One run of one case: a fresh copy of the fixture, the task on the server, the case's answers to its blockers, then
 * the checks. A run never throws: what went wrong is its verdict.
 */
export async function runCase(target: RunTarget, suiteCase: EvalCase, repeat: number, overrides: TaskOverrides = {}): Promise<RunRecord> {
  const started = Date.now();
  const base = emptyRecord(suiteCase, repeat);
  let workspace: string | undefined;
  try {
    workspace = await copyFixture(suiteCase, target.workdir);
    const snapshot = snapshotFiles(workspace, suiteCase.checks.unchanged);
    const input = parseTaskInput({ ...suiteCase.task, ...overrides, workspace, git: 'in-place' });
    const workflowId = `eval-${suiteCase.id}-${repeat}-${randomUUID().slice(0, 8)}`;
    const handle = await target.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [input],
      taskQueue: target.taskQueue,
      workflowId,
      staticSummary: `eval: ${suiteCase.id} #${repeat}`,
      staticDetails: input.description,
    });
    const watched = await watchTask(target, handle, suiteCase.blockers);
    const wallMs = Date.now() - started;
    const figures = figuresOf(watched.result, watched.state);
    const record: RunRecord = { ...base, workflowId, ...figures, wallMs, status: watched.status, reason: watched.reason };
    record.checks = await runChecks({
      checks: suiteCase.checks,
      workspace,
      snapshot,
      outcome: { completed: watched.status === 'completed', reason: watched.reason, ...figures },
      sandbox: target.sandbox,
    });
    const divergence = divergenceIn(watched.reason);
    if (divergence) Object.assign(record, { verdict: 'diverged', reason: divergence });
    else record.verdict = record.checks.every((check) => check.passed) ? 'pass' : 'fail';
    return await settleWorkspace(record, workspace, target.keep);
  } catch (error) {
    const record = { ...base, wallMs: Date.now() - started, reason: (error as Error).message ?? String(error) };
    return workspace ? settleWorkspace(record, workspace, target.keep) : record;
  }
}

/** A run before anything is known of it: an `error` until a verdict replaces it. */
export function emptyRecord(suiteCase: EvalCase, repeat: number): RunRecord {
  return {
    caseId: suiteCase.id,
    tags: suiteCase.tags,
    repeat,
    verdict: 'error',
    status: 'error',
    iterations: 0,
    tokens: 0,
    costUsd: 0,
    wallMs: 0,
    blockers: 0,
    gateRounds: 0,
    checks: [],
  };
}

interface Watched {
  status: RunRecord['status'];
  reason?: string;
  result?: TaskResult;
  state?: TaskStateSnapshot;
}

/**
 * Follows the task until it ends, answering each blocker from the case file. A question the case has no answer for
 * ends the run: the task is cancelled and the question is the reason.
 */
async function watchTask(target: RunTarget, handle: WorkflowHandle, answers: BlockerAnswer[]): Promise<Watched> {
  let done = false;
  const settled = settledResult(handle).finally(() => (done = true));
  const answered = new Set<string>();
  let state: TaskStateSnapshot | undefined;
  let unanswered: string | undefined;
  while (!done && !unanswered) {
    state = (await queryState(target.client, handle)) ?? state;
    for (const blocker of state?.openBlockers ?? []) {
      if (answered.has(blocker.id)) continue;
      const answer = answerFor(blocker.question, answers);
      if (answer === undefined) {
        unanswered = blocker.question;
        // It may have ended on its own meanwhile; then there is nothing to cancel.
        await handle.cancel().catch(() => undefined);
        break;
      }
      await handle.signal(answerBlockerSignal, { blockerId: blocker.id, answer });
      answered.add(blocker.id);
    }
    await Promise.race([settled, pause(target.pollMs ?? 300)]);
  }
  const { result, failure } = await settled;
  state = (await queryState(target.client, handle)) ?? state;
  if (unanswered) return { status: 'cancelled', reason: `blocked on a question the case has no answer for: ${unanswered}`, result, state };
  if (result?.status === 'completed' && !failure) return { status: 'completed', result, state };
  const cancelled = state?.status === 'cancelled';
  return { status: cancelled ? 'cancelled' : 'failed', reason: failure ?? result?.summary, result, state };
}

/** The case's answer to a question: the first entry whose `question` is in it (case ignored), or matches as `/regex/flags`. */
export function answerFor(question: string, answers: BlockerAnswer[]): string | undefined {
  const matches = (pattern: string) => {
    const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
    return regex ? new RegExp(regex[1], regex[2]).test(question) : question.toLowerCase().includes(pattern.toLowerCase());
  };
  return answers.find((entry) => matches(entry.question))?.answer;
}

function figuresOf(result: TaskResult | undefined, state: TaskStateSnapshot | undefined) {
  return {
    iterations: result?.iterations ?? state?.iteration ?? 0,
    tokens: totalTokens(result?.usage ?? state?.usage ?? emptyUsage()),
    costUsd: result?.costUsd ?? state?.costUsd ?? 0,
    blockers: (state?.answeredBlockers.length ?? 0) + (state?.openBlockers.length ?? 0),
    gateRounds: state?.correctionRounds ?? 0,
  };
}

/**
 * The replay server's words, when they are why the task failed. They reach the task inside the model activity's
 * failure, "the model API rejected the request (400 …: codeloop replay: diverged at …)", hence the last ")".
 */
function divergenceIn(reason: string | undefined): string | undefined {
  const at = reason?.indexOf(DIVERGED_MARKER) ?? -1;
  return at === -1 ? undefined : reason!.slice(at + DIVERGED_MARKER.length).replace(/\)$/, '');
}

/** A copy that passed goes; one that did not stays for a look, and the record says where. */
async function settleWorkspace(record: RunRecord, workspace: string, keep = false): Promise<RunRecord> {
  if (keep || record.verdict !== 'pass') return { ...record, workspace };
  await rm(path.dirname(workspace), { recursive: true, force: true });
  return record;
}
