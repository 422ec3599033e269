import { Connection, Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { TemporalConfig } from './config.js';

/** A client connection with an error that names the fix when no server answers. */
export async function connectClient(
  { address, namespace }: TemporalConfig,
  dataConverter?: DataConverter,
): Promise<{ client: Client; connection: Connection; namespace: string }> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 5_000 });
    return { client: new Client({ connection, namespace, dataConverter }), connection, namespace };
  } catch (error) {
    throw unreachable(address, error);
  }
}

export async function connectWorker({ address }: TemporalConfig): Promise<NativeConnection> {
  // Loaded here: the CLI imports this module and needs no worker.
  const { NativeConnection } = await import('@temporalio/worker');
  try {
    return await NativeConnection.connect({ address });
  } catch (error) {
    throw unreachable(address, error);
  }
}

/** No Temporal server answered: the message says where it looked and how to start one. */
export class UnreachableServerError extends Error {}

function unreachable(address: string, error: unknown): Error {
  return new UnreachableServerError(
    `cannot reach Temporal at ${address} (${(error as Error).message}); start it with \`npm start\` or set TEMPORAL_ADDRESS`,
    {
      cause: error,
    },
  );
}
