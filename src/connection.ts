import { Connection, Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';

/** Where codeloop finds Temporal: `TEMPORAL_ADDRESS` and `TEMPORAL_NAMESPACE`, as the `temporal` CLI reads them. */
export function serverSettings(env: NodeJS.ProcessEnv = process.env) {
  return {
    address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
  };
}

/** A client connection with an error that names the fix when no server answers. */
export async function connectClient(env: NodeJS.ProcessEnv = process.env): Promise<{ client: Client; connection: Connection; namespace: string }> {
  const { address, namespace } = serverSettings(env);
  try {
    const connection = await Connection.connect({ address, connectTimeout: 5_000 });
    return { client: new Client({ connection, namespace }), connection, namespace };
  } catch (error) {
    throw new Error(`cannot reach Temporal at ${address} (${(error as Error).message}); start it with \`npm start\` or set TEMPORAL_ADDRESS`);
  }
}

export async function connectWorker(env: NodeJS.ProcessEnv = process.env): Promise<NativeConnection> {
  const { address } = serverSettings(env);
  try {
    return await NativeConnection.connect({ address });
  } catch (error) {
    throw new Error(`cannot reach Temporal at ${address} (${(error as Error).message}); start it with \`npm start\` or set TEMPORAL_ADDRESS`);
  }
}
