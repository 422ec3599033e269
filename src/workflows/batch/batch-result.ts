import { sumSpendByPurpose } from '../../shared/models.js';
import type { BatchResult, BatchTaskState } from '../../shared/batch-state.js';
import { addUsage, emptyUsage } from '../../shared/conversation.js';
import { criticalPath } from '../../shared/dag.js';
import { countByStatus } from './scheduler.js';

export interface BatchFacts {
  batchId: string;
  status: BatchResult['status'];
  deadline?: string;
  integrationBranch?: string;
  states: BatchTaskState[];
  startedAt: number;
  runs: number;
  integration?: BatchResult['integration'];
}

/** The batch's result: per task, totals, the critical path through what actually ran, and the makespan. */
export function buildBatchResult(facts: BatchFacts): BatchResult {
  const { states } = facts;
  const duration = (state: BatchTaskState) => (state.startedAt && state.endedAt ? state.endedAt - state.startedAt : 0);
  const iso = (ms?: number) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const ended = Math.max(facts.startedAt, ...states.map((state) => state.endedAt ?? 0));
  const byId = new Map(states.map((state) => [state.id, state]));
  return {
    batchId: facts.batchId,
    status: facts.status,
    ...(facts.deadline ? { deadline: facts.deadline } : {}),
    integrationBranch: facts.integrationBranch,
    tasks: states.map((state) => ({
      id: state.id,
      title: state.title,
      status: state.status,
      branch: state.branch,
      attempts: state.attempts,
      iterations: state.iterations,
      usage: state.usage,
      costUsd: state.costUsd,
      spendByPurpose: state.spendByPurpose,
      reason: state.reason,
      ...(state.waitingFor ? { waitingFor: state.waitingFor } : {}),
      ...(state.verification ? { verification: state.verification } : {}),
      ...(state.unverifiedBecause ? { unverifiedBecause: state.unverifiedBecause } : {}),
      ...(state.openQuestions ? { openQuestions: state.openQuestions } : {}),
      ...(state.interfaceMismatches?.length ? { interfaceMismatches: state.interfaceMismatches } : {}),
      ...(state.integrationFailure ? { integrationFailure: state.integrationFailure } : {}),
      ...(state.conflictReruns?.length ? { conflictReruns: state.conflictReruns } : {}),
      ...(state.summary ? { summary: state.summary } : {}),
      startedAt: iso(state.startedAt),
      endedAt: iso(state.endedAt),
      durationMs: duration(state) || undefined,
    })),
    totals: {
      tasks: countByStatus(states),
      usage: states.reduce((sum, state) => (state.usage ? addUsage(sum, state.usage) : sum), emptyUsage()),
      costUsd: states.reduce((sum, state) => sum + (state.costUsd ?? 0), 0),
      spendByPurpose: sumSpendByPurpose(states.map((state) => state.spendByPurpose)),
    },
    criticalPath: criticalPath(states, (id) => duration(byId.get(id)!)),
    makespanMs: ended - facts.startedAt,
    runs: facts.runs,
    ...(facts.integration ? { integration: facts.integration } : {}),
  };
}
