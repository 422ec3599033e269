import './quiet-runtime.js';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import { createCodeloopWorkers, type CodeloopWorkers } from '../../src/create-workers.js';
import type { FakeMessagesApi } from './fake-messages-api.js';

export interface TestTemporal {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  address: string;
  close(): Promise<void>;
}

/** Connects to the run's shared dev server (started in global setup). */
export async function connectTemporal(address = inject('temporalAddress')): Promise<TestTemporal> {
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    client: new Client({ connection }),
    connection,
    nativeConnection,
    address,
    async close() {
      await nativeConnection.close();
      await connection.close();
    },
  };
}

/** A task queue and workflow id no other test uses. */
export { uniqueName } from './names.js';

/** Worker environment that points the real Anthropic SDK at a fake server. */
export const modelEnv = (fake: FakeMessagesApi, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ANTHROPIC_API_KEY: fake.apiKey,
  ANTHROPIC_BASE_URL: fake.url,
  CODELOOP_MODEL: 'claude-test',
  // Workers here run against the run's shared server, as a worker given TEMPORAL_ADDRESS does.
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  ...extra,
});

/** Starts codeloop's workers in this process on `taskQueue`; `stop()` shuts them down and waits. */
export async function startWorkers(
  temporal: TestTemporal,
  options: { taskQueue: string; env: NodeJS.ProcessEnv; hostId?: string },
): Promise<CodeloopWorkers & { stop(): Promise<void> }> {
  const workers = await createCodeloopWorkers({
    connection: temporal.nativeConnection,
    taskQueue: options.taskQueue,
    hostId: options.hostId ?? 'test-host',
    workflowBundlePath: inject('workflowBundlePath'),
    env: options.env,
  });
  const running = workers.run();
  return {
    ...workers,
    async stop() {
      workers.shutdown();
      await running;
    },
  };
}
