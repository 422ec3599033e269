import Anthropic from '@anthropic-ai/sdk';
import { trace } from '@opentelemetry/api';
import { asyncLocalStorage } from '@temporalio/activity';
import type { ModelPurpose } from '../shared/conversation.js';
import { METRICS } from '../shared/metrics.js';
import { activityMeter } from './activity-metrics.js';

/** What the Messages API call adds to its request options: the task it belongs to, for its span. */
export type ModelCallTracing = Pick<Anthropic.RequestOptions, 'openTelemetry'>;

/**
 * Records one Messages API call's duration by model, purpose and outcome, and names the purpose on the activity's
 * span. The call's own span is the Anthropic SDK's (`anthropic.messages.create`, with OpenTelemetry's GenAI
 * attributes: model, token usage, finish reason, request id), which it starts under the active span, the
 * activity's, whenever a tracer provider is registered; `call` passes `tracing` on so that span carries the
 * workflow id as `gen_ai.conversation.id`, linking every call of a task. A retried call is a new sample: each
 * attempt costs time.
 */
export async function observeModelCall(
  request: Anthropic.MessageCreateParamsNonStreaming,
  purpose: ModelPurpose,
  call: (tracing: ModelCallTracing) => Promise<Anthropic.Message>,
): Promise<Anthropic.Message> {
  trace.getActiveSpan()?.setAttributes({ 'codeloop.purpose': purpose, 'gen_ai.request.model': request.model });
  const conversationId = asyncLocalStorage.getStore()?.info.workflowExecution?.workflowId;
  const tracing = conversationId ? { openTelemetry: { conversationId } } : {};
  const started = performance.now();
  const record = (outcome: string) => {
    const { name, unit, help } = METRICS.modelCallDuration;
    const seconds = (performance.now() - started) / 1000;
    activityMeter()?.createHistogram(name, 'float', unit, help).record(seconds, { model: request.model, purpose, outcome });
  };
  try {
    const message = await call(tracing);
    record('ok');
    return message;
  } catch (error) {
    record(outcomeOf(error));
    throw error;
  }
}

/** A few label values, not error messages: the HTTP status, `unreachable`, `cancelled`, or `error`. */
function outcomeOf(error: unknown): string {
  if (error instanceof Anthropic.APIUserAbortError) return 'cancelled';
  if (error instanceof Anthropic.APIConnectionError) return 'unreachable';
  if (error instanceof Anthropic.APIError && error.status !== undefined) return String(error.status);
  return 'error';
}
