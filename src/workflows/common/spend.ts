import { addUsage, emptyUsage, totalTokens, type ModelPurpose, type ModelTurn, type Usage } from '../../shared/conversation.js';
import { addPurposeSpend, type SpendByPurpose } from '../../shared/models.js';
import { recordModelSpend } from './metrics.js';
import { costOf, projectedCost } from './pricing.js';
import { formatCount } from '../../text/format.js';

export interface SpendCarry {
  usage: Usage;
  costUsd: number;
  /** Absent in runs carried over before spend was kept by purpose: all of it was then the agent's own. */
  byPurpose?: SpendByPurpose;
  tokenCap?: number;
  costCap?: number;
}

export interface CapHit {
  cap: 'tokens' | 'cost';
  message: string;
}

/**
 * What the task has spent, in tokens and USD, and its caps. It is workflow state, so it survives crashes and
 * continue-as-new; a cap is checked before each call against that call's projected size.
 */
export class Spend {
  usage: Usage;
  costUsd: number;
  byPurpose: SpendByPurpose;
  private tokenCap?: number;
  private costCap?: number;

  constructor(
    carry: SpendCarry | undefined,
    caps: { maxTotalTokens?: number; maxCostUsd?: number },
    /** Told after each call (a batch with a budget counts its running tasks' spend). */
    private readonly onSpend?: (spend: { costUsd: number; byPurpose: SpendByPurpose }) => void,
  ) {
    this.usage = carry?.usage ?? emptyUsage();
    this.costUsd = carry?.costUsd ?? 0;
    this.byPurpose = carry?.byPurpose ?? (carry ? { default: { calls: 0, usage: carry.usage, costUsd: carry.costUsd } } : {});
    this.tokenCap = carry ? carry.tokenCap : caps.maxTotalTokens;
    this.costCap = carry ? carry.costCap : caps.maxCostUsd;
  }

  add(turn: ModelTurn, purpose: ModelPurpose): void {
    const costUsd = costOf(turn.usage, turn.model);
    this.usage = addUsage(this.usage, turn.usage);
    this.costUsd += costUsd;
    this.byPurpose = addPurposeSpend(this.byPurpose, purpose, { calls: 1, usage: turn.usage, costUsd });
    recordModelSpend(turn.model, purpose, turn.usage, costUsd);
    this.onSpend?.({ costUsd: this.costUsd, byPurpose: this.byPurpose });
  }

  /** The cap the next call would cross, judged by its projected input and its whole output allowance. */
  wouldExceed(inputTokens: number, maxOutputTokens: number, model: string): CapHit | undefined {
    const nextTokens = inputTokens + maxOutputTokens;
    const spentTokens = totalTokens(this.usage);
    if (this.tokenCap !== undefined && spentTokens + nextTokens > this.tokenCap) {
      return {
        cap: 'tokens',
        message: `the token cap of ${formatCount(this.tokenCap)} would be exceeded: ${formatCount(spentTokens)} spent, the next call may use up to ${formatCount(nextTokens)}`,
      };
    }
    const nextCost = projectedCost(inputTokens, maxOutputTokens, model);
    if (this.costCap !== undefined && this.costUsd + nextCost > this.costCap) {
      return {
        cap: 'cost',
        message: `the cost cap of $${this.costCap.toFixed(2)} would be exceeded: $${this.costUsd.toFixed(4)} spent, the next call may cost up to $${nextCost.toFixed(4)}`,
      };
    }
    return undefined;
  }

  /** A human's answer to a cap blocker: a new cap ("raise to 5", "$5", "400000"), or "continue" to double it. */
  raise(hit: CapHit, answer: string): boolean {
    const amount = /(\d+(?:\.\d+)?)/.exec(answer.replace(/,/g, ''));
    if (!amount && !/^\s*continue/i.test(answer)) return false;
    if (hit.cap === 'cost') this.costCap = amount ? Number(amount[1]) : this.costCap! * 2;
    else this.tokenCap = amount ? Number(amount[1]) : this.tokenCap! * 2;
    return true;
  }

  carry(): SpendCarry {
    return { usage: this.usage, costUsd: this.costUsd, byPurpose: this.byPurpose, tokenCap: this.tokenCap, costCap: this.costCap };
  }
}
