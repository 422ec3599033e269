/**
 * Values built once and shared from then on: in a worker's workflow thread, by every workflow run on it.
 *
 * Temporal evaluates the workflow bundle's modules afresh for each workflow run, so a module's top-level zod schemas
 * were built again for every run: about 12 ms of the workflow thread each time, a quarter of all its work for a
 * batch of quick tasks. This module is preloaded into the thread (see `workflowBundlerOptions`), so its map outlives
 * the runs; the values in it are pure (schemas, and data derived from them), so sharing them cannot leak one run's
 * state into another. Temporal freezes what a preloaded module exports, but not the entries of a `Map`, and a zod
 * schema that is frozen cannot parse. Outside a workflow this is an ordinary memo.
 */
const built = new Map<string, unknown>();

export function builtOnce<T>(key: string, build: () => T): T {
  if (!built.has(key)) built.set(key, build());
  return built.get(key) as T;
}
