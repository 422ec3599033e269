import type { Message } from '../../shared/conversation.js';
import { DEFAULT_MODEL, MAX_OUTPUT_TOKENS } from '../../shared/constants.js';
import type { PlanInput } from '../../shared/plan.js';
import type { BlockerSpec } from '../common/blocker-desk.js';
import { contextWindowOf } from '../common/pricing.js';
import { callSideModel } from '../common/side-model-call.js';
import type { Spend } from '../common/spend.js';
import { finalText, measure, SUMMARY_MAX_TOKENS, SUMMARY_SYSTEM, transcript } from '../common/compaction.js';
import { compactIfNeeded } from '../common/compactor.js';
import { keepWithinCaps } from '../common/spend-caps.js';

export interface PlanGuardHost {
  readonly spend: Spend;
  askHuman(spec: BlockerSpec): Promise<string>;
  stop(message: string): never;
}

/**
 * Planning as a first-class run: before each planning call its conversation is compacted at 85% of the planning
 * model's window (the same tiers as a task's, a summary by the summary model last), and the call is kept within the
 * plan's spend caps (`maxTotalTokens`, `maxCostUsd`): reaching one asks a human, who raises it or stops the plan.
 */
export class PlanGuards {
  constructor(
    private readonly input: PlanInput,
    private readonly host: PlanGuardHost,
  ) {}

  private get model(): string {
    return this.input.models?.planning ?? this.input.model ?? DEFAULT_MODEL;
  }

  /** The conversation to send: compacted when it grew too large; the caps checked for the call it makes. */
  async beforeCall(system: string, messages: Message[]): Promise<Message[]> {
    const window = this.input.contextWindow ?? contextWindowOf(this.model);
    const compacted = await compactIfNeeded(system, messages, window, (older) => this.summarize(older));
    const next = compacted && compacted.report.after.bytes < compacted.report.before.bytes ? compacted.messages : messages;
    await keepWithinCaps(this.capsHost(), 'the next planning call', measure(system, next).tokens, MAX_OUTPUT_TOKENS);
    return next;
  }

  private async summarize(older: Message[]): Promise<string> {
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: transcript(older) }] }];
    await keepWithinCaps(
      this.capsHost(),
      'summarising the planning conversation',
      measure(SUMMARY_SYSTEM, messages).tokens,
      SUMMARY_MAX_TOKENS,
    );
    const turn = await callSideModel(
      {
        model: this.input.models?.summary,
        purpose: 'summary',
        system: SUMMARY_SYSTEM,
        messages,
        maxTokens: SUMMARY_MAX_TOKENS,
        toolSet: 'none',
      },
      `plan: summarise ${older.length} messages`,
      { model: this.input.models?.default },
      this.host,
    );
    this.host.spend.add(turn, 'summary');
    return finalText(turn.content);
  }

  private capsHost() {
    return {
      spend: this.host.spend,
      state: { model: this.model },
      askHuman: (spec: BlockerSpec) => this.host.askHuman(spec),
      fail: (_reason: string, _type: string, message: string): never => this.host.stop(message),
    };
  }
}
