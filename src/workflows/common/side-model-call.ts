import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { ModelRequest, ModelTurn } from '../../shared/conversation.js';
import type { BlockerSpec } from './blocker-desk.js';
import { modelActivities } from './activities.js';
import { applies } from './patches.js';

/** How a run that makes a side call asks a human, and how it ends when told to stop. */
export interface SideCallHost {
  askHuman(spec: BlockerSpec): Promise<string>;
  /** Ends the run as failed; never returns. */
  stop(message: string): never;
  /**
   * Someone other than a human who answers for these failures, when there is one (a batch that pauses on a model
   * outage): resolves true once told to call again, false when it does not answer for them.
   */
  waitElsewhere?(failures: ActivityFailure[]): Promise<boolean>;
}

/**
 * A model call off the main path (a compaction summary, a planning turn), which must not fail its task or plan at
 * once: the activity's own retries first; then, when the call failed for good (a model the account cannot use, an
 * outage past the retries), the same request on the task's default model; then whoever answers for such failures
 * (`waitElsewhere`: a task's batch, for an outage), or else a human, told which models failed and how, who answers
 * 'retry' or 'stop'. Runs from before `sideCallsRecover` failed at the first error, and
 * replay so.
 */
export async function callSideModel(
  request: ModelRequest,
  summary: string,
  fallback: { model?: string },
  host: SideCallHost,
): Promise<ModelTurn> {
  for (;;) {
    const primary = await attempt(request, summary);
    if ('turn' in primary) return primary.turn;
    if (!applies('sideCallsRecover')) throw primary.error;
    const again = { ...request, model: fallback.model, modelOf: 'default' as const };
    const second = await attempt(again, `${summary} (the task's default model)`);
    if ('turn' in second) return second.turn;
    if (host.waitElsewhere && applies('sideCallsWaitForBatch') && (await host.waitElsewhere([primary.error, second.error]))) continue;
    const answer = await host.askHuman({
      origin: 'model-unavailable',
      question:
        `A ${request.purpose ?? 'model'} call failed on ${describeModel(request)}: ${messageOf(primary.error)}; ` +
        `and on the task's default model, ${describeModel(again)}: ${messageOf(second.error)}. ` +
        "Answer 'retry' once the model can be used (or the task's models are changed), or 'stop'.",
      options: ['retry', 'stop'],
    });
    if (/^\s*stop\b/i.test(answer)) host.stop(`stopped by a human after the ${request.purpose ?? 'model'} call failed`);
  }
}

async function attempt(request: ModelRequest, summary: string): Promise<{ turn: ModelTurn } | { error: ActivityFailure }> {
  try {
    return { turn: await modelActivities.callModel.executeWithOptions({ summary }, [request]) };
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
    return { error };
  }
}

function describeModel(request: ModelRequest): string {
  const purpose = request.modelOf ?? request.purpose ?? 'default';
  return (
    request.model ??
    `the worker's ${purpose} model (${purpose === 'default' ? 'CODELOOP_MODEL' : `CODELOOP_MODEL_${purpose.toUpperCase()}`})`
  );
}

const messageOf = (error: ActivityFailure) => error.cause?.message ?? error.message;
