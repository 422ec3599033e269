import type { Message } from '../../shared/conversation.js';
import {
  dropSupersededOutputs,
  exchangeCount,
  isSmallEnough,
  KEEP_EXCHANGES,
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
 * as soon as it is small enough. Every tier keeps the last 5 exchanges whole (with 5 or fewer in all, every one but
 * the first) and unresolved errors verbatim; tier 3 also keeps the kickoff. `keepLatest` says whether the rule for
 * short conversations applies: runs that compacted one before it existed must replay as they ran. The result replaces
 * the stored conversation, so requests until the next compaction share a byte-identical prefix and keep hitting the
 * prompt cache.
 */
export async function compactIfNeeded(
  system: string,
  messages: Message[],
  contextWindow: number,
  summarize: Summarize,
  keepLatest: () => boolean = () => true,
  before: ConversationSize = measure(system, messages),
): Promise<{ messages: Message[]; report: CompactionReport } | undefined> {
  if (!needsCompaction(before, contextWindow)) return undefined;
  // Asked only for a conversation of few exchanges, the one case where the rule changed (see `recentStart`).
  const latest = exchangeCount(messages) > KEEP_EXCHANGES || keepLatest();
  let current = maskOldToolOutputs(messages, latest);
  let tier: CompactionReport['tier'] = 1;
  let size = measure(system, current);
  if (!isSmallEnough(size, contextWindow)) {
    current = dropSupersededOutputs(current, latest);
    tier = 2;
    size = measure(system, current);
  }
  const split = splitForSummary(current, latest);
  if (!isSmallEnough(size, contextWindow) && split) {
    const summary = await summarize(split.older);
    // After an earlier tier 3 the first message is kickoff + old summary; the old summary went to the summariser.
    const kickoff = split.older[0].content.find((block) => block.type === 'text');
    const opening = kickoff?.type === 'text' ? `${kickoff.text.split(`\n\n${SUMMARY_HEADING}`)[0]}\n\n` : '';
    const errors = unresolvedErrorOutputs(current, split.older.length);
    current = [{ role: 'user', content: [{ type: 'text', text: `${opening}${SUMMARY_HEADING}\n${summary}${errors}` }] }, ...split.recent];
    tier = 3;
    size = measure(system, current);
  }
  return { messages: current, report: { tier, before, after: size } };
}
