import { inWorkflowContext, metricMeter } from '@temporalio/workflow';
import type { BlockerOrigin } from '../../shared/blockers.js';
import type { ModelPurpose, Usage } from '../../shared/conversation.js';
import type { GateResult } from '../../shared/gates.js';
import { METRICS, type MetricSpec } from '../../shared/metrics.js';

/**
 * The figures workflow code decides (iterations, spend, tool outcomes, blockers, gates), on the SDK's workflow meter.
 * It emits nothing while a history replays, so a worker that picks a task up again counts nothing twice, and it
 * schedules no command: adding a call here never changes what a workflow does. Outside a workflow (the unit tests of
 * the classes that call these) nothing is recorded.
 */

function add(spec: MetricSpec, value: number, labels?: Record<string, string>): void {
  if (inWorkflowContext()) metricMeter.createCounter(spec.name, spec.unit, spec.help).add(value, labels);
}

function record(spec: MetricSpec, value: number, labels: Record<string, string>): void {
  if (inWorkflowContext()) metricMeter.createHistogram(spec.name, 'float', spec.unit, spec.help).record(value, labels);
}

export function countIteration(): void {
  add(METRICS.iterations, 1);
}

/** One model turn the workflow accounted for: its tokens by kind and its cost. */
export function recordModelSpend(model: string, purpose: ModelPurpose, usage: Usage, costUsd: number): void {
  const kinds = {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cache_read: usage.cacheReadTokens,
    cache_write: usage.cacheWriteTokens,
  };
  for (const [kind, count] of Object.entries(kinds)) add(METRICS.modelTokens, count, { model, purpose, kind });
  record(METRICS.modelCost, costUsd, { model, purpose });
}

/** `tool` is the name the model used when it is one of codeloop's tools, else `unknown` (labels must stay few). */
export function countToolCall(tool: string | undefined, isError: boolean): void {
  const labels = { tool: tool ?? 'unknown' };
  add(METRICS.toolCalls, 1, labels);
  if (isError) add(METRICS.toolErrors, 1, labels);
}

export function countBlockerRaised(origin: BlockerOrigin): void {
  add(METRICS.blockersRaised, 1, { origin });
}

export function countBlockerAnswered(origin: BlockerOrigin, waitedMs: number): void {
  add(METRICS.blockersAnswered, 1, { origin });
  record(METRICS.blockerWait, Math.max(0, waitedMs) / 1000, { origin });
}

export function countBlockerTimedOut(origin: BlockerOrigin): void {
  add(METRICS.blockersTimedOut, 1, { origin });
}

/** `baseline` is the run before the task changed anything (`gates: "no-regressions"`), `final` the run that judges it. */
export function countGateResult(result: GateResult, stage: 'baseline' | 'final'): void {
  add(METRICS.gateResults, 1, { gate: result.name, result: gateOutcome(result), stage });
}

function gateOutcome(result: GateResult): string {
  if (result.unavailable) return 'unavailable';
  if (result.unverified !== undefined) return 'unverified';
  if (!result.passed) return 'failed';
  // Passed without exiting 0: it failed before the task too, and fails no worse now.
  return result.exitCode === 0 ? 'passed' : 'no_worse';
}
