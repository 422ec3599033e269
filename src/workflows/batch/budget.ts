import type { BatchTaskState, BudgetReport } from '../../shared/batch-state.js';
import { sumSpendByPurpose, type SpendByPurpose } from '../../shared/models.js';
import { costLimits, type MaxCost } from '../../shared/mornings.js';

/** Running tasks' spend as they last reported it, carried across continue-as-new. */
export type BudgetCarry = Record<string, { costUsd: number; byPurpose?: SpendByPurpose }>;

/** What the budget hands to the batch's next run: the running tasks' reported spend and the limit acted on. */
export type BudgetState = { live: BudgetCarry; acted?: 'soft' | 'hard' };

/**
 * A batch's `maxCostUsd`: what its tasks have spent, ended ones by their final figures and running ones by what they
 * report after each model call (`reportSpend`), against a soft limit (no new task starts) and a hard one (running
 * tasks are cancelled).
 */
export class BatchBudget {
  readonly limits?: { soft: number; hard: number };
  private readonly live: BudgetCarry;
  /** The highest limit the batch has acted on. */
  acted?: 'soft' | 'hard';

  /**
   * `countsEveryRun` (`batchCountsEveryRun`): a task's figures add up its runs, so a running task costs its earlier
   * runs' figures plus what its current run reported; before, only the current run counted.
   */
  constructor(
    maxCost: MaxCost | undefined,
    carry?: BudgetState,
    private readonly countsEveryRun = false,
  ) {
    this.limits = maxCost === undefined ? undefined : costLimits(maxCost);
    this.live = carry?.live ?? {};
    this.acted = carry?.acted;
  }

  noteSpend(taskId: string, spend: { costUsd: number; byPurpose: SpendByPurpose }): void {
    this.live[taskId] = spend;
  }

  /** The task's run ended and its figures are in its state: what it reported as it ran no longer counts apart. */
  runEnded(state: BatchTaskState): void {
    if (this.countsEveryRun) delete this.live[state.id];
  }

  /** A running task stopped by the batch keeps the spend it last reported as its own figures (its own report is ignored). */
  settle(state: BatchTaskState): void {
    const live = this.live[state.id];
    if (this.countsEveryRun) {
      if (!live) return;
      state.costUsd = (state.costUsd ?? 0) + live.costUsd;
      state.spendByPurpose = sumSpendByPurpose([state.spendByPurpose, live.byPurpose]);
      this.runEnded(state);
      return;
    }
    if (!live || live.costUsd <= (state.costUsd ?? 0)) return;
    state.costUsd = live.costUsd;
    if (live.byPurpose) state.spendByPurpose = live.byPurpose;
  }

  /** What the batch has spent: a running task by its last report (and its earlier runs, counting every run), any other by its figures. */
  spent(states: BatchTaskState[]): { spentUsd: number; byPurpose: SpendByPurpose } {
    const spends = states.flatMap((state) => {
      const ended = { costUsd: state.costUsd ?? 0, byPurpose: state.spendByPurpose };
      if (state.status !== 'running') return [ended];
      const live = this.live[state.id];
      if (!this.countsEveryRun) return live ? [live] : [];
      return live ? [ended, live] : [ended];
    });
    return {
      spentUsd: spends.reduce((sum, spend) => sum + spend.costUsd, 0),
      byPurpose: sumSpendByPurpose(spends.map((spend) => spend.byPurpose)),
    };
  }

  /** A limit reached that the batch has not acted on yet. */
  due(states: BatchTaskState[]): 'soft' | 'hard' | undefined {
    if (!this.limits || this.acted === 'hard') return undefined;
    const { spentUsd } = this.spent(states);
    if (spentUsd >= this.limits.hard) return 'hard';
    return spentUsd >= this.limits.soft && this.acted === undefined ? 'soft' : undefined;
  }

  report(states: BatchTaskState[]): BudgetReport | undefined {
    if (!this.limits) return undefined;
    const { spentUsd, byPurpose } = this.spent(states);
    return { softUsd: this.limits.soft, hardUsd: this.limits.hard, spentUsd, byPurpose, ...(this.acted ? { reached: this.acted } : {}) };
  }

  carry(): BudgetState {
    return { live: this.live, ...(this.acted ? { acted: this.acted } : {}) };
  }
}
