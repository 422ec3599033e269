import { Context } from '@temporalio/activity';

const EVERY_MS = 5_000;

/**
 * Heartbeats while `body` runs, so an activity on a host that dies is retried within its heartbeat timeout instead
 * of waiting out its whole start-to-close timeout.
 */
export async function withHeartbeat<T>(body: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), EVERY_MS);
  try {
    return await body();
  } finally {
    clearInterval(timer);
  }
}
