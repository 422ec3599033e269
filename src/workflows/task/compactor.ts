import type { Message } from '../../shared/conversation.js';
import {
  dropSupersededOutputs,
  isSmallEnough,
  maskOldToolOutputs,
  measure,
  needsCompaction,
  splitForSummary,
  SUMMARY_HEADING,
  unresolvedErrorOutputs,
  type ConversationSize,
} from './compaction.js';

export interface CompactionReport {
  tier: 1 | 2 | 3;
  before: ConversationSize;
  after: ConversationSize;
}

/** Summarises the older turns with a model call (tier 3); returns the summary text. */
export type Summarize = (older: Message[]) => Promise<string>;

/**
 * Compacts the conversation when it nears the context window or the payload budget: cheapest tier first, stopping
 * as soon as it is small enough. Tier 3 keeps the kickoff, the last 5 exchanges and unresolved errors verbatim. The
 * result replaces the stored conversation, so requests until the next compaction share a byte-identical prefix and
 * keep hitting the prompt cache.
 */
export async function compactIfNeeded(
  system: string,
  messages: Message[],
  contextWindow: number,
  summarize: Summarize,
): Promise<{ messages: Message[]; report: CompactionReport } | undefined> {
  const before = measure(system, messages);
  if (!needsCompaction(before, contextWindow)) return undefined;
  let current = maskOldToolOutputs(messages);
  let tier: CompactionReport['tier'] = 1;
  if (!isSmallEnough(measure(system, current), contextWindow)) {
    current = dropSupersededOutputs(current);
    tier = 2;
  }
  const split = splitForSummary(current);
  if (!isSmallEnough(measure(system, current), contextWindow) && split) {
    const summary = await summarize(split.older);
    // After an earlier tier 3 the first message is kickoff + old summary; the old summary went to the summariser.
    const kickoff = split.older[0].content.find((block) => block.type === 'text');
    const opening = kickoff?.type === 'text' ? `${kickoff.text.split(`\n\n${SUMMARY_HEADING}`)[0]}\n\n` : '';
    const errors = unresolvedErrorOutputs(current, split.older.length);
    current = [{ role: 'user', content: [{ type: 'text', text: `${opening}${SUMMARY_HEADING}\n${summary}${errors}` }] }, ...split.recent];
    tier = 3;
  }
  return { messages: current, report: { tier, before, after: measure(system, current) } };
}
