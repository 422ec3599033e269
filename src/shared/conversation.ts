/**
 * The conversation as the Messages API sees it. It lives in workflow state, so these are plain JSON shapes
 * (no SDK classes) that serialise into history as they are.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/**
 * The model's reasoning. Models with adaptive thinking (Sonnet 5 and later) return it by default; the latest
 * assistant turn's thinking must go back unchanged with its tool results, so it is kept as the API sent it.
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** Token counts the API reports; cache reads and writes are billed differently, so they are kept apart. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** Every token a call counted, cached or not: what token caps and the CLI's totals count. */
export const totalTokens = (usage: Usage): number =>
  usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** What a model call is for: the agent's own turns, planning a batch, or summarising a conversation to compact it. */
export const MODEL_PURPOSES = ['default', 'planning', 'summary'] as const;
export type ModelPurpose = (typeof MODEL_PURPOSES)[number];

/** What the model activity is asked. Tools are named by set, not sent, to keep each request small in history. */
export interface ModelRequest {
  /** Unset means the worker's model for `purpose` (`CODELOOP_MODEL`, `_PLANNING`, `_SUMMARY`), or codeloop's default. */
  model?: string;
  /** What the call is for; unset: the agent's own turn (`default`). */
  purpose?: ModelPurpose;
  /**
   * Whose model to use when `model` is unset, if not `purpose`'s: a summary or planning call falling back to the
   * task's default model keeps its purpose (its spend is still a summary's) and asks for the default's model.
   */
  modelOf?: ModelPurpose;
  system: string;
  messages: Message[];
  maxTokens: number;
  /** Summarisation calls send no tools; planning sends the read-only tools and `submit_plan`. Unset: the agent's. */
  toolSet?: 'agent' | 'plan' | 'none';
}

/** One assistant turn, as the workflow stores it. */
export interface ModelTurn {
  content: ContentBlock[];
  stopReason: string | null;
  usage: Usage;
  model: string;
}
