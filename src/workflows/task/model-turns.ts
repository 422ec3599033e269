import { ActivityFailure, log } from '@temporalio/workflow';
import { DEFAULT_MODEL, MAX_OUTPUT_TOKENS } from '../../shared/constants.js';
import type { Message, ModelTurn } from '../../shared/conversation.js';
import { ErrorType } from '../../shared/errors.js';
import { modelFor } from '../../shared/models.js';
import { modelActivities } from '../common/activities.js';
import { finalText, measure, SUMMARY_MAX_TOKENS, SUMMARY_SYSTEM, transcript, type ConversationSize } from '../common/compaction.js';
import { compactIfNeeded } from '../common/compactor.js';
import { failureText } from '../common/fresh-base.js';
import { applies } from '../common/patches.js';
import { contextWindowOf } from '../common/pricing.js';
import { callSideModel } from '../common/side-model-call.js';
import { keepWithinCaps } from '../common/spend-caps.js';
import { workflowNow } from '../common/workflow-time.js';
import { planForModelFailure } from './model-recovery.js';
import { askForGuidance, askForMoreIterations, isStalled, onStall, stallMs } from './policies.js';
import { shouldContinueAsNew } from './run-budget.js';
import { iterationBudget } from './run-state.js';
import { withDeadline } from './stall-race.js';
import type { TaskParts } from './task-parts.js';

/** The checks before a model call, in order: history size, iteration budget, context size, stall, spend caps. */
export async function beforeModelCall(run: TaskParts): Promise<void> {
  // Measured once: none of these checks changes the conversation (a compaction that does continues as new).
  const size = measure(run.system, run.state.messages);
  if (shouldContinueAsNew(size.bytes)) await run.continueAsNew();
  if (run.state.iteration >= iterationBudget(run.input, run.state)) await askForMoreIterations(run);
  await compact(run, size);
  if (isStalled(run)) await onStall(run, 'no successful tool call');
  await keepWithinCaps(run, 'the next model call', size.tokens, MAX_OUTPUT_TOKENS);
}

/** The model call, raced against the stall timeout, with failures no retry can fix turned into blockers. */
export async function callModel(run: TaskParts): Promise<ModelTurn> {
  const { input, state } = run;
  for (;;) {
    try {
      const remaining = stallMs(input) - (workflowNow() - state.lastProgressAt);
      const turn = await withDeadline(remaining, `stall watch: model turn ${state.iteration}`, () =>
        modelActivities.callModel.executeWithOptions({ summary: `model turn ${state.iteration}/${iterationBudget(input, state)}` }, [
          { model: modelFor(input, 'default'), system: run.system, messages: state.messages, maxTokens: MAX_OUTPUT_TOKENS },
        ]),
      );
      if (!turn) {
        // A call that outlasts the stall timeout, its retries included, is an outage too: a batch that pauses answers it.
        await onStall(run, 'the model call did not finish', run.outage && ((message) => waitForBatch(run, message)));
        continue;
      }
      state.model = turn.model;
      run.spend.add(turn, 'default');
      return turn;
    } catch (error) {
      const plan = planForModelFailure(error);
      if (!plan) throw error;
      if ('fail' in plan) run.fail(plan.reason, ErrorType.TaskFailed, plan.fail);
      const batchAnswered = plan.ask.origin === 'model-unavailable' && run.outage && (await waitForBatch(run, failureText(error)));
      if (!batchAnswered) await askForGuidance(run, plan.ask, plan.reason);
    }
  }
}

/** Compaction at 85% of the window (or the payload budget) is also a natural point to continue as new. */
async function compact(run: TaskParts, size: ConversationSize): Promise<void> {
  const { input, state } = run;
  const window = input.contextWindow ?? contextWindowOf(state.model ?? DEFAULT_MODEL);
  const costBefore = run.spend.costUsd;
  const keepLatest = () => applies('compactionKeepsLatestExchanges');
  const compacted = await compactIfNeeded(run.system, state.messages, window, (older) => summarize(run, older), keepLatest, size);
  if (!compacted || compacted.report.after.bytes > compacted.report.before.bytes * 0.9) return;
  state.messages = compacted.messages;
  const { tier, before, after } = compacted.report;
  state.compactionLog = [
    ...state.compactionLog,
    {
      iteration: state.iteration,
      tier,
      tokensBefore: before.tokens,
      tokensAfter: after.tokens,
      bytesBefore: before.bytes,
      bytesAfter: after.bytes,
      summaryCostUsd: run.spend.costUsd - costBefore,
    },
  ];
  log.info('compacted the conversation', { ...compacted.report });
  await run.continueAsNew();
}

/** The summariser's call is a model call like any other: the spend caps are checked before it too. */
async function summarize(run: TaskParts, older: Message[]): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: transcript(older) }] }];
  await keepWithinCaps(
    run,
    'summarising the conversation',
    measure(SUMMARY_SYSTEM, messages).tokens,
    SUMMARY_MAX_TOKENS,
    'summaryChecksSpendCaps',
  );
  const request = { model: modelFor(run.input, 'summary'), purpose: 'summary' as const, system: SUMMARY_SYSTEM, messages };
  const turn = await callSideModel(
    { ...request, maxTokens: SUMMARY_MAX_TOKENS, toolSet: 'none' },
    `compact: summarise ${older.length} messages`,
    { model: modelFor(run.input, 'default') },
    {
      askHuman: (spec) => run.askHuman(spec),
      stop: (message) => run.fail('model_unavailable', ErrorType.TaskFailed, message),
      ...(run.outage ? { waitElsewhere: (failures) => waitOutOutage(run, failures) } : {}),
    },
  );
  run.spend.add(turn, 'summary');
  return finalText(turn.content);
}

/** A side call that failed on both models for an outage waits for the batch, as the agent's own calls do. */
async function waitOutOutage(run: TaskParts, failures: ActivityFailure[]): Promise<boolean> {
  const outage = failures.every((error) => {
    const plan = planForModelFailure(error);
    return plan !== undefined && 'ask' in plan && plan.ask.origin === 'model-unavailable';
  });
  return outage && waitForBatch(run, failureText(failures.at(-1)));
}

/**
 * A model outage past the retries in a batch that pauses for it: the batch asks one question for all its tasks and
 * says 'retry' (or cancels the task on 'stop'). Waiting never counts as a stall; past `blockerTimeout` without an
 * answer the task fails or calls the model again, as `onBlockerTimeout` says. False when there is no batch left to
 * answer: the task asks a human itself.
 */
async function waitForBatch(run: TaskParts, message: string): Promise<boolean> {
  const { input } = run;
  const outcome = await run.outage!.wait(message, input.blockerTimeout, () => run.publish());
  run.state.lastProgressAt = workflowNow();
  if (outcome === 'timed-out' && input.onBlockerTimeout === 'fail') {
    const waited = input.blockerTimeout;
    run.fail(
      'model_unavailable',
      ErrorType.TaskFailed,
      `the model API stayed unavailable and the batch gave no answer within ${waited}: ${message}`,
    );
  }
  return outcome !== 'no-batch';
}
