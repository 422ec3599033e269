import { ApplicationFailure, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { ChildReport } from '../../shared/batch-state.js';
import type { AnsweredQuestion, Blocker } from '../../shared/blockers.js';
import { emptyUsage } from '../../shared/conversation.js';
import { verificationReasons } from '../../shared/gates.js';
import type { TaskResult } from '../../shared/task-state.js';
import { childReportSignal } from '../../shared/messages.js';
import type { SpendByPurpose } from '../../shared/models.js';

export interface SpendReport {
  costUsd: number;
  byPurpose: SpendByPurpose;
}

/** What a task's run has used so far: its figures, without a result. */
export type UsedSoFar = Pick<TaskResult, 'iterations' | 'usage' | 'costUsd' | 'spendByPurpose'>;

/** A summary longer than this is cut in the report: the batch keeps it in its state and in its dependents' prompts. */
const SUMMARY_REPORT_CHARS = 4_000;

/**
 * A child task's line to its batch. The signal goes to the batch's workflow id, not a run, so it reaches the batch
 * after the batch has continued as new. A batch that is gone is not the task's problem: failures are ignored.
 */
export class ParentReporter {
  private lastBlockers = '';
  private constructor(private readonly parentId: string) {}

  static forCurrentWorkflow(): ParentReporter | undefined {
    const parent = workflowInfo().parent;
    return parent ? new ParentReporter(parent.workflowId) : undefined;
  }

  blockersChanged(open: Blocker[]): void {
    const summary = open.map(({ id, question }) => ({ id, question }));
    const key = JSON.stringify(summary);
    if (key === this.lastBlockers) return;
    this.lastBlockers = key;
    void this.send({ kind: 'blockers', workflowId: workflowInfo().workflowId, open: summary });
  }

  /** What the task has spent so far, for a batch that keeps a budget (`reportSpend`). */
  spent(spend: SpendReport): void {
    void this.send({ kind: 'spend', workflowId: workflowInfo().workflowId, costUsd: spend.costUsd, spendByPurpose: spend.byPurpose });
  }

  /** The model API failed past the task's retries (`reportOutage`); false when the batch is gone and cannot answer. */
  outage(message: string): Promise<boolean> {
    return this.send({ kind: 'outage', workflowId: workflowInfo().workflowId, message });
  }

  /** The task's end, with what humans answered it (across every run of it), so a re-run of the task starts with that. */
  async finished(
    status: 'completed' | 'failed' | 'cancelled',
    answered: AnsweredQuestion[],
    /** The result; for a cancelled task, what it had used (its batch keeps that when it stopped it). */
    result?: TaskResult | UsedSoFar,
    error?: unknown,
  ): Promise<void> {
    const failure = error instanceof ApplicationFailure ? (error.details?.[0] as TaskResult | undefined) : undefined;
    const figures: Partial<TaskResult> | undefined = result ?? failure;
    await this.send({
      kind: 'finished',
      workflowId: workflowInfo().workflowId,
      status,
      iterations: figures?.iterations ?? 0,
      usage: figures?.usage ?? emptyUsage(),
      costUsd: figures?.costUsd ?? 0,
      ...(figures?.spendByPurpose ? { spendByPurpose: figures.spendByPurpose } : {}),
      reason: status === 'completed' ? undefined : (figures?.reason ?? (error instanceof Error ? error.message : status)),
      answered,
      ...(figures?.verification ? { verification: figures.verification } : {}),
      ...(figures?.verification && figures.verification !== 'verified'
        ? { unverifiedBecause: verificationReasons(figures.gates ?? []) }
        : {}),
      ...(figures?.openQuestions?.length ? { openQuestions: figures.openQuestions } : {}),
      ...(status === 'completed' && figures?.summary ? { summary: figures.summary.slice(0, SUMMARY_REPORT_CHARS) } : {}),
    });
  }

  /** Whether the batch got the report. */
  private async send(report: ChildReport): Promise<boolean> {
    try {
      await getExternalWorkflowHandle(this.parentId).signal(childReportSignal, report);
      return true;
    } catch {
      // The batch is closed; there is no one left to tell.
      return false;
    }
  }
}
