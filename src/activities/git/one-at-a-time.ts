const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` once everything run before it under the same `key` in this worker has settled, in the order asked.
 * A failure does not hold up what comes after it.
 */
export function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const result = (queues.get(key) ?? Promise.resolve()).then(work, work);
  const tail = result.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}
