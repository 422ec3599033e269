const queues = new Map<string, Promise<void>>();

/**
 * Runs `body` once every earlier body holding `key` has finished. `edit_file` and `create_file` read, change and
 * rewrite a whole file: two calls on one file at once (parallel tool calls, or a retry overlapping its own first
 * attempt) would otherwise both start from the same content and the later write would drop the earlier change.
 * The file tools write only from the worker process, so a lock in that process is enough; callers key it by the
 * file's real path, so two spellings of one file share a lock.
 */
export async function withFileLock<T>(key: string, body: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const queue = previous.then(() => done);
  queues.set(key, queue);
  await previous;
  try {
    return await body();
  } finally {
    release();
    if (queues.get(key) === queue) queues.delete(key);
  }
}
