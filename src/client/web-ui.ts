import path from 'node:path';
import { openCluster } from '../cluster/cluster.js';
import type { CodeloopConfig } from '../config.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** `host:port` split, with the host lower-cased; `[::1]:7233` keeps its brackets. */
function hostAndPort(address: string): { host: string; port?: number } {
  const match = /^(.*?)(?::(\d+))?$/.exec(address)!;
  return { host: match[1].toLowerCase(), port: match[2] === undefined ? undefined : Number(match[2]) };
}

/** Whether two `host:port` addresses name the same server, loopback spelled any way. */
function sameServer(a: string, b: string): boolean {
  const [left, right] = [hostAndPort(a), hostAndPort(b)];
  const sameHost = left.host === right.host || (LOOPBACK.has(left.host) && LOOPBACK.has(right.host));
  return sameHost && left.port === right.port;
}

/**
 * The Web UI of the server the CLI talks to (`TEMPORAL_ADDRESS`), without a trailing slash, so that a link the CLI
 * prints opens where that server's runs are:
 * - `CODELOOP_UI_URL` when it is set (a server elsewhere, a UI behind a proxy);
 * - else the UI of the running `codeloop cluster` in the data directory whose frontend is that address (its own
 *   state, `cluster.json`): `undefined` when that cluster runs without a UI;
 * - else, for the embedded server `npm start` runs (`CODELOOP_TEMPORAL_PORT` on this host), its `CODELOOP_UI_PORT`;
 * - else `undefined`: nothing says where that server's UI is, and a guessed link would point at another server's.
 */
export function webUiBase(config: Pick<CodeloopConfig, 'cli' | 'temporal' | 'server'>): string | undefined {
  if (config.cli.uiUrl) return config.cli.uiUrl;
  const { address } = config.temporal;
  const cluster = openCluster(path.join(config.server.dataDir, 'cluster'));
  if (cluster && cluster.pid('frontend') !== undefined && sameServer(cluster.address, address)) return cluster.uiUrl;
  const { host, port } = hostAndPort(address);
  if (LOOPBACK.has(host) && port === config.server.port) return `http://${host}:${config.server.uiPort}`;
  return undefined;
}

/** What the CLI prints where a link would be when it cannot know the UI's address. */
export const UNKNOWN_WEB_UI = 'unknown for this server: set CODELOOP_UI_URL';

/** The Web UI page of a workflow (see `webUiBase`); `undefined` when the UI's address is unknown. */
export function webUiUrl(config: Parameters<typeof webUiBase>[0], namespace: string, workflowId: string): string | undefined {
  const base = webUiBase(config);
  if (base === undefined) return undefined;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** The link as a human reads it: the page, or why there is none. */
export const shownLink = (url: string | undefined): string => url ?? UNKNOWN_WEB_UI;
