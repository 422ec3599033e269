import { reportedUsage, type MessagesBody, type RecordedRequest } from '../tests/support/fake-messages-api.js';
import { DEFAULT_MODEL } from '../src/shared/constants.js';
import { costOf } from '../src/workflows/common/pricing.js';

/** A request as the API caches it: tools, then system, then each message block, without cache markers. */
export function cacheableText(body: MessagesBody): string {
  const strip = ({ cache_control: _marker, ...rest }: Record<string, unknown>) => JSON.stringify(rest);
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  const parts = [
    ...(body.tools ?? []).map(strip),
    ...system.map((block) => strip(block as Record<string, unknown>)),
    ...body.messages.flatMap((message) =>
      (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content).map((block) =>
        strip({ role: message.role, ...block }),
      ),
    ),
  ];
  return parts.join('');
}

/** The share of `current` that is a byte-identical prefix of `previous`. */
export function identicalPrefixShare(previous: string, current: string): number {
  const limit = Math.min(previous.length, current.length);
  let index = 0;
  while (index < limit && previous.charCodeAt(index) === current.charCodeAt(index)) index++;
  return index / current.length;
}

/** The agent's own requests (they carry tools), not the summariser's. */
export const agentRequests = (requests: RecordedRequest[]) => requests.filter((request) => request.body.tools?.length);

export const requestCost = (request: RecordedRequest): number => costOf(reportedUsage(request), DEFAULT_MODEL);

export const cacheReadShare = (request: RecordedRequest) => {
  const usage = request.usage!;
  return usage.cache_read_input_tokens / (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens);
};
