import type { Client } from '@temporalio/client';
import { connectClient } from '../connection.js';

/** Runs a command body with a connected client and always closes the connection. */
export async function withClient<T>(body: (client: Client, namespace: string) => Promise<T>): Promise<T> {
  const { client, connection, namespace } = await connectClient();
  try {
    return await body(client, namespace);
  } finally {
    await connection.close();
  }
}
