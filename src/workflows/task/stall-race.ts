import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';

/**
 * Runs `body` (a model call) against a deadline: if the deadline comes first, the body's scope is cancelled (the
 * activity gets the cancellation with its next heartbeat) and `undefined` comes back instead of a result.
 */
export async function withDeadline<T>(deadlineMs: number, summary: string, body: () => Promise<T>): Promise<T | undefined> {
  const work = new CancellationScope();
  const timer = new CancellationScope();
  let expired = false;
  const running = work.run(body);
  timer
    .run(() => sleep(Math.max(1_000, deadlineMs), { summary }))
    .then(() => {
      expired = true;
      work.cancel();
    })
    .catch(() => undefined);
  try {
    return await running;
  } catch (error) {
    if (expired && isCancellation(error)) return undefined;
    throw error;
  } finally {
    timer.cancel();
  }
}
