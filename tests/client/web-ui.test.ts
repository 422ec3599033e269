import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { webUiBase, webUiUrl } from '../../src/client/web-ui.js';
import { loadConfig } from '../../src/config.js';
import { writeState, type ClusterState } from '../../src/cluster/state.js';

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/**
 * A data directory holding the state of a cluster whose frontend is at `address`: the "frontend" is a process whose
 * command line carries what the real one's does (its configuration directory and service name), so the state reads
 * as a running cluster. `frontend: false` leaves it stopped.
 */
function clusterDataDir(address: string, uiUrl: string | undefined, { frontend = true } = {}): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-ui-'));
  const clusterDir = path.join(dataDir, 'cluster');
  mkdirSync(clusterDir);
  const configDir = path.join(clusterDir, 'temporal');
  const pids: ClusterState['pids'] = {};
  if (frontend) {
    const child = spawn('/bin/sh', ['-c', 'sleep 60', configDir, 'frontend'], { stdio: 'ignore' });
    running.push(child);
    pids.frontend = child.pid;
  }
  const service = { grpc: 1, membership: 2 };
  writeState({
    dataDir: clusterDir,
    address,
    uiUrl,
    ports: { services: { frontend: service, history: service, matching: service, worker: service }, postgres: 3 },
    durable: false,
    pids,
    startedAt: new Date().toISOString(),
  });
  return dataDir;
}

const base = (env: NodeJS.ProcessEnv) => webUiBase(loadConfig(env));

describe('webUiBase: where the Web UI of the server the CLI talks to is', () => {
  test('CODELOOP_UI_URL wins over everything', () => {
    const dataDir = clusterDataDir('127.0.0.1:7233', 'http://127.0.0.1:8080');
    expect(base({ CODELOOP_UI_URL: 'https://ui.example.com/', CODELOOP_DATA_DIR: dataDir })).toBe('https://ui.example.com');
  });

  test("a running cluster at TEMPORAL_ADDRESS: the cluster's own UI, loopback spelled either way", () => {
    const dataDir = clusterDataDir('127.0.0.1:17233', 'http://127.0.0.1:18080');
    expect(base({ TEMPORAL_ADDRESS: '127.0.0.1:17233', CODELOOP_DATA_DIR: dataDir })).toBe('http://127.0.0.1:18080');
    expect(base({ TEMPORAL_ADDRESS: 'localhost:17233', CODELOOP_DATA_DIR: dataDir })).toBe('http://127.0.0.1:18080');
    // The cluster's default port is the dev server's too: the cluster's state decides, not the port.
    const onDefault = clusterDataDir('127.0.0.1:7233', 'http://127.0.0.1:8080');
    expect(base({ CODELOOP_DATA_DIR: onDefault })).toBe('http://127.0.0.1:8080');
  });

  test('a cluster without a UI: no link rather than a wrong one', () => {
    const dataDir = clusterDataDir('127.0.0.1:17233', undefined);
    expect(base({ TEMPORAL_ADDRESS: '127.0.0.1:17233', CODELOOP_DATA_DIR: dataDir })).toBeUndefined();
    expect(webUiUrl(loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:17233', CODELOOP_DATA_DIR: dataDir }), 'default', 'w')).toBeUndefined();
  });

  test("a stopped cluster, or one at another address, is not this server's", () => {
    const stopped = clusterDataDir('127.0.0.1:7233', 'http://127.0.0.1:8080', { frontend: false });
    expect(base({ CODELOOP_DATA_DIR: stopped })).toBe('http://127.0.0.1:8233');
    const elsewhere = clusterDataDir('127.0.0.1:17233', 'http://127.0.0.1:18080');
    expect(base({ TEMPORAL_ADDRESS: '127.0.0.1:27233', CODELOOP_DATA_DIR: elsewhere })).toBeUndefined();
  });

  test("the embedded server of `npm start`: its configured UI port; any other server's UI is unknown", () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'codeloop-ui-'));
    expect(base({ CODELOOP_DATA_DIR: empty })).toBe('http://127.0.0.1:8233');
    expect(
      base({ CODELOOP_DATA_DIR: empty, TEMPORAL_ADDRESS: 'localhost:17233', CODELOOP_TEMPORAL_PORT: '17233', CODELOOP_UI_PORT: '18233' }),
    ).toBe('http://localhost:18233');
    expect(base({ CODELOOP_DATA_DIR: empty, TEMPORAL_ADDRESS: 'temporal.internal:7233' })).toBeUndefined();
  });

  test('a workflow page: namespace and id escaped', () => {
    const config = loadConfig({ CODELOOP_UI_URL: 'https://ui.example.com' });
    expect(webUiUrl(config, 'my ns', 'batch/t1')).toBe('https://ui.example.com/namespaces/my%20ns/workflows/batch%2Ft1');
  });
});
