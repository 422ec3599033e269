/** Reads until `ok` holds, every `intervalMs`; after `timeoutMs` fails with `what` and the last value read. */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  { timeoutMs = 60_000, intervalMs = 250 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until a workflow's `CodeloopStatus` search attribute reads `status`; a workflow not yet started reads as none. */
export function eventuallyStatus(
  handle: { describe(): Promise<{ searchAttributes: Record<string, unknown> }> },
  status: string,
  what: string,
  options?: { timeoutMs?: number; intervalMs?: number },
): Promise<unknown> {
  const read = () =>
    handle
      .describe()
      .then((description) => (description.searchAttributes.CodeloopStatus as string[] | undefined)?.[0])
      .catch(() => undefined);
  return eventually(read, (value) => value === status, what, options);
}
