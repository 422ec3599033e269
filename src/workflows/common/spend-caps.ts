import { DEFAULT_MODEL } from '../../shared/constants.js';
import { ErrorType } from '../../shared/errors.js';
import type { BlockerSpec } from './blocker-desk.js';
import { applies, type PatchName } from './patches.js';
import type { Spend } from './spend.js';

/** What keeping within the caps needs from a run (a task's or a plan's): its spend and model, and a way to ask or fail. */
export interface CapsHost {
  readonly spend: Spend;
  readonly state: { model?: string };
  askHuman(spec: BlockerSpec): Promise<string>;
  fail(reason: string, type: string, message: string): never;
}

/**
 * Asks a human, until the answer raises it enough, whenever a call of this projected size would cross a spend cap;
 * 'stop' fails the run. `patch` marks a check added after runs already existed, so their histories still replay.
 */
export async function keepWithinCaps(
  host: CapsHost,
  call: string,
  inputTokens: number,
  maxOutputTokens: number,
  patch?: PatchName,
): Promise<void> {
  const model = host.state.model ?? DEFAULT_MODEL;
  let hit = host.spend.wouldExceed(inputTokens, maxOutputTokens, model);
  if (hit && patch && !applies(patch)) return;
  while (hit) {
    const answer = await host.askHuman({
      origin: 'budget',
      question: `Before ${call}: ${hit.message}. Answer with a new cap (e.g. 'raise to 5'), 'continue' to double it, or 'stop'.`,
      options: ['continue', 'stop'],
    });
    if (!host.spend.raise(hit, answer))
      host.fail(`${hit.cap}_cap`, ErrorType.BudgetExhausted, `stopped at the ${hit.cap} cap: ${hit.message}`);
    hit = host.spend.wouldExceed(inputTokens, maxOutputTokens, model);
  }
}
