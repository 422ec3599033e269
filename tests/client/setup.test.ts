import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SetupReport } from '../../src/client/setup.js';
import { startDevServer, type DevServer } from '../../src/server/dev-server.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/free-port.js';

let server: DevServer;

beforeAll(async () => {
  // A server without codeloop's search attributes: what an existing cluster looks like before setup.
  server = await startDevServer({ port: await freePort(), searchAttributes: false });
});

afterAll(async () => server?.stop());

test('codeloop setup registers the search attributes once and is safe to run again', async () => {
  const env = { TEMPORAL_ADDRESS: server.address };
  const first = await runCli(['setup', '--json'], env);
  expect(first.code).toBe(0);
  expect((JSON.parse(first.stdout) as SetupReport).searchAttributes).toEqual([
    { name: 'CodeloopStatus', action: 'registered' },
    { name: 'CodeloopPhase', action: 'registered' },
    { name: 'CodeloopBatchId', action: 'registered' },
  ]);
  const second = await runCli(['setup'], env);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain(`connected to ${server.address}, namespace default (retention 30 days)`);
  expect(second.stdout).toContain('CodeloopStatus (Keyword): already registered');
  expect(second.stdout).toContain('CodeloopBatchId (Keyword): already registered');
});

test('codeloop setup names the fix when the server is not there', async () => {
  const result = await runCli(['setup'], { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/cannot reach Temporal at 127\.0\.0\.1:\d+ .*set TEMPORAL_ADDRESS/);
  // One line, not a stack trace: the same for every command.
  const status = await runCli(['task', 'status', 'any'], { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
  expect(status.code).toBe(1);
  expect(status.stderr).toMatch(/^codeloop: cannot reach Temporal at 127\.0\.0\.1:\d+ .*set TEMPORAL_ADDRESS\n$/);
});
