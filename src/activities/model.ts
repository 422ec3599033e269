import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { ContentBlock, Message, ModelPurpose, ModelRequest, ModelTurn } from '../shared/conversation.js';
import { ErrorType } from '../shared/errors.js';
import { toolDefinitions } from '../shared/tools.js';
import { toModelFailure } from './model-errors.js';
import { observeModelCall } from './model-telemetry.js';

export interface ModelDeps {
  /** Builds a client from the worker's environment, or `undefined` when `ANTHROPIC_API_KEY` is missing. */
  createModelClient(): Anthropic | undefined;
  /** Used when a request names no model: the worker's model for the request's purpose (`CODELOOP_MODEL`, `_PLANNING`, `_SUMMARY`). */
  models: Record<ModelPurpose, string>;
  hostId: string;
  /** Keeps each request and its response (`CODELOOP_RECORD`), for replaying the session with no key. */
  recordExchange?: ExchangeRecorder;
}

/** One model call as sent and as answered, with the workflow it belongs to. */
export interface ModelExchange {
  /** Absent only for an activity started outside a workflow. */
  workflowId?: string;
  runId?: string;
  attempt: number;
  request: Anthropic.MessageCreateParamsNonStreaming;
  response: Anthropic.Message;
}

export type ExchangeRecorder = (exchange: ModelExchange) => Promise<void>;

const EPHEMERAL = { type: 'ephemeral' } as const;
const HEARTBEAT_EVERY_MS = 3_000;

/** The model activity: one streamed Messages API call per assistant turn. */
export function createModelActivities(deps: ModelDeps) {
  return {
    async callModel(request: ModelRequest): Promise<ModelTurn> {
      const client = deps.createModelClient();
      if (!client) {
        throw ApplicationFailure.nonRetryable(
          `ANTHROPIC_API_KEY is not set on worker ${deps.hostId}: set it in the worker's environment and restart the worker`,
          ErrorType.MissingApiKey,
        );
      }
      const context = Context.current();
      // Heartbeat on a timer as well as per event: a large prompt can take a while before its first byte.
      const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        const body = toApiRequest(request, deps.models);
        const message = await observeModelCall(body, request.purpose ?? 'default', (tracing) => {
          const stream = client.messages.stream(body, { signal: context.cancellationSignal, ...tracing });
          stream.on('streamEvent', () => context.heartbeat());
          return stream.finalMessage();
        });
        // A recording that cannot be written must not cost the task its turn (a retry would pay for the call again).
        const { workflowExecution, attempt } = context.info;
        await deps
          .recordExchange?.({ ...workflowExecution, attempt, request: body, response: message })
          .catch((error) => context.log.error('could not record the model exchange', { error: String(error) }));
        return toModelTurn(message);
      } catch (error) {
        throw toModelFailure(error, deps.hostId);
      } finally {
        clearInterval(timer);
      }
    },
  };
}

/**
 * Cache breakpoints go on the stable prefix, in the order the API reads it: the tools, then the system prompt,
 * then the conversation so far (its last block). Each request therefore reads back everything the previous one wrote.
 */
export function toApiRequest(request: ModelRequest, models: Record<ModelPurpose, string>): Anthropic.MessageCreateParamsNonStreaming {
  const tools = toolDefinitions(request.toolSet);
  return {
    model: request.model ?? models[request.modelOf ?? request.purpose ?? 'default'],
    max_tokens: request.maxTokens,
    system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }],
    messages: withConversationBreakpoint(request.messages) as Anthropic.MessageParam[],
    ...(tools.length
      ? { tools: tools.map((tool, index) => (index === tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool)) }
      : {}),
  };
}

function withConversationBreakpoint(messages: Message[]): unknown[] {
  return messages.map((message, index) => {
    if (index !== messages.length - 1) return message;
    const content = message.content.map((block, blockIndex) =>
      blockIndex === message.content.length - 1 ? { ...block, cache_control: EPHEMERAL } : block,
    );
    return { ...message, content };
  });
}

function toModelTurn(message: Anthropic.Message): ModelTurn {
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use') content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    else if (block.type === 'thinking') content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: block.data });
  }
  const usage = message.usage;
  return {
    content,
    stopReason: message.stop_reason,
    model: message.model,
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    },
  };
}
