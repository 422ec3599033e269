import { setHandler } from '@temporalio/workflow';
import { getPlanStateQuery } from '../shared/messages.js';
import { parsePlanInput } from '../shared/plan.js';
import type { PlanResult } from '../shared/plan-state.js';
import { PlanRun } from './plan/plan-run.js';

/**
 * A PRD in, a reviewed plan out: the model explores the workspace read-only and submits a DAG of tasks, a human
 * approves it (or rejects it with a reason, or answers with a revision) through a blocker, and the approved plan is
 * written to `codeloop/plans/<plan-id>.yaml` in the batch file format, then started as a batch if the input says so.
 */
export async function planWorkflow(rawInput: unknown): Promise<PlanResult> {
  const input = parsePlanInput(rawInput);
  const run = new PlanRun(input);
  setHandler(getPlanStateQuery, () => run.snapshot());
  run.desk.listen();
  return run.execute();
}
