/**
 * The metrics codeloop adds to the Temporal SDK's own on the worker's Prometheus endpoint (`CODELOOP_METRICS_ADDRESS`).
 * Dashboards and alerts depend on these names and labels, so they are part of the public contract (docs/observability.md lists
 * them). The SDK adds its own labels to each: `namespace`, `taskQueue`, and `workflowType` or `activityType`.
 */
export interface MetricSpec {
  name: string;
  help: string;
  unit?: string;
  /** Histogram bucket boundaries, in `unit`; the SDK's default buckets are for milliseconds. */
  buckets?: number[];
}

export const METRICS = {
  iterations: { name: 'codeloop_iterations_total', help: 'Model turns taken by tasks and plans' },
  modelTokens: {
    name: 'codeloop_model_tokens_total',
    help: 'Tokens of the model calls a workflow accounted for, by model, purpose and kind (input, output, cache_read, cache_write)',
  },
  modelCost: {
    name: 'codeloop_model_cost_usd',
    help: 'Cost of each model call in USD, by model and purpose; _sum is the spend',
    unit: 'USD',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  },
  modelCallDuration: {
    name: 'codeloop_model_call_duration_seconds',
    help: 'Messages API calls, by model, purpose and outcome (ok, an HTTP status, unreachable, cancelled)',
    unit: 's',
    buckets: [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600],
  },
  toolCalls: { name: 'codeloop_tool_calls_total', help: 'Tool calls the agent made, by tool' },
  toolErrors: { name: 'codeloop_tool_errors_total', help: 'Tool calls whose result went back to the model as an error, by tool' },
  blockersRaised: { name: 'codeloop_blockers_raised_total', help: 'Questions put to a human, by origin' },
  blockersAnswered: { name: 'codeloop_blockers_answered_total', help: 'Blockers a human answered, by origin' },
  blockersTimedOut: { name: 'codeloop_blockers_timed_out_total', help: 'Blockers that got no answer within blockerTimeout, by origin' },
  blockerWait: {
    name: 'codeloop_blocker_wait_seconds',
    help: 'How long answered blockers waited for their answer, by origin',
    unit: 's',
    buckets: [60, 300, 900, 3_600, 4 * 3_600, 12 * 3_600, 24 * 3_600, 3 * 24 * 3_600, 7 * 24 * 3_600],
  },
  gateResults: {
    name: 'codeloop_gate_results_total',
    help: 'Verification gate runs, by gate, result (passed, no_worse, failed, unavailable) and stage (baseline, final)',
  },
  sandboxRefusals: {
    name: 'codeloop_sandbox_refusals_total',
    help: "Agent actions refused at the workspace's boundary, by reason",
  },
} as const satisfies Record<string, MetricSpec>;

/** Bucket boundaries by metric name, for the worker runtime's Prometheus exporter. */
export const METRIC_BUCKETS: Record<string, number[]> = Object.fromEntries(
  Object.values(METRICS as Record<string, MetricSpec>).flatMap((spec) => (spec.buckets ? [[spec.name, spec.buckets]] : [])),
);
