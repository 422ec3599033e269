import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { sleep } from './process.js';

const NOT_FOUND = 5;

/** Whether a gRPC call failed with `code` (a Temporal client error carries the gRPC status code). */
export function isGrpcCode(error: unknown, code: number): boolean {
  return (error as { code?: unknown })?.code === code;
}

/** Retries `attempt` every 250 ms until it resolves; past `timeoutMs`, fails with the last error and what it waited for. */
export async function retryUntil<T>(
  what: string,
  timeoutMs: number,
  attempt: () => Promise<T>,
  stillWorthIt?: () => string | undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = stillWorthIt?.();
    if (reason) throw new Error(reason);
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}: ${(error as Error).message}`, { cause: error });
    }
    await sleep(250);
  }
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`, or rejects. */
export function acceptsConnections(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`port ${port}: no answer`));
    });
    socket.once('error', (error) => reject(new Error(`port ${port}: ${error.message}`)));
  });
}

/**
 * Waits until the cluster serves, judged from outside as a client would: the frontend answers, every history shard
 * answers (a lookup of workflows that do not exist comes back "not found" rather than "unavailable"; 32 random ids
 * reach each of the 4 shards but for a 1-in-20,000 chance), and matching answers for a task queue.
 */
export async function waitUntilServing(address: string, namespace: string, timeoutMs: number, stillWorthIt?: () => string | undefined) {
  await retryUntil(`Temporal at ${address} to serve`, timeoutMs, () => probeCluster(address, namespace), stillWorthIt);
}

async function probeCluster(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    await connection.withDeadline(Date.now() + 5_000, async () => {
      await connection.workflowService.getSystemInfo({});
      const lookups = Array.from({ length: 32 }, () =>
        connection.workflowService
          .describeWorkflowExecution({ namespace, execution: { workflowId: `codeloop-probe-${randomUUID()}` } })
          .then(
            () => undefined,
            (error: unknown) => {
              if (!isGrpcCode(error, NOT_FOUND)) throw error;
            },
          ),
      );
      await Promise.all(lookups);
      await connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: 'codeloop-probe' },
        taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
    });
  } finally {
    await connection.close();
  }
}
