import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeDivergence, findDivergence, indexRecording, type Divergence, type IndexedExchange } from './divergence.js';
import { readBody, sendError, sendMessage, type ApiMessage } from './messages-wire.js';
import { requestKey, type ApiRequest } from './normalise.js';
import type { Recording } from './recording.js';

/** What the replay server's refusals start with; the eval finds it in the task's failure to tell a divergence from a failure. */
export const DIVERGED_MARKER = 'codeloop replay: ';

export interface ReplayServer {
  /** `ANTHROPIC_BASE_URL` for the worker that replays. */
  url: string;
  /** Any key is accepted; the worker needs one to call at all. */
  apiKey: string;
  /** Requests answered from a recording. */
  served(): number;
  divergences: Divergence[];
  close(): Promise<void>;
}

/**
 * A loopback server that speaks the Messages API and answers each request with the response recorded for the same
 * request (compared after `normaliseRequest`). It keeps no position: the answer depends on the conversation alone,
 * so repeats, parallel runs and retried calls all get the recorded turn. A request with no recorded twin is answered
 * with a 400 naming where it parted from the closest recorded request; the model activity does not retry a 400, so
 * the task fails with that message.
 */
export async function startReplayServer(recordings: Recording[]): Promise<ReplayServer> {
  const responses = new Map<string, ApiMessage>();
  const indexed: IndexedExchange[] = [];
  for (const recording of recordings) {
    // A retried call is recorded twice; the later response is the one its task went on with.
    for (const exchange of recording.exchanges) responses.set(requestKey(exchange.request), exchange.response);
    indexed.push(...indexRecording(recording));
  }
  const divergences: Divergence[] = [];
  let served = 0;
  const server = http.createServer(async (req, res) => {
    try {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        return sendError(res, { status: 404, type: 'not_found_error', message: `${DIVERGED_MARKER}no route ${req.method} ${req.url}` });
      }
      const request = JSON.parse(await readBody(req)) as ApiRequest;
      const response = responses.get(requestKey(request));
      if (response) {
        served += 1;
        return await sendMessage(res, response, request.stream === true);
      }
      const divergence = findDivergence(request, indexed);
      const message = divergence ? describeDivergence(divergence) : 'diverged at request 1: there is no recording to replay';
      if (divergence) divergences.push(divergence);
      sendError(res, { status: 400, type: 'invalid_request_error', message: `${DIVERGED_MARKER}${message}` });
    } catch (error) {
      if (!res.headersSent)
        sendError(res, { status: 500, type: 'api_error', message: `${DIVERGED_MARKER}replay server error: ${String(error)}` });
      else res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: 'codeloop-replay',
    served: () => served,
    divergences,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
