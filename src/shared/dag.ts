/** A node of a batch's dependency graph. */
export interface DagNode {
  id: string;
  dependsOn: string[];
}

/**
 * Checks a batch's DAG before anything starts: duplicate ids, unknown dependencies, self-dependencies and cycles.
 * Returns every problem found; a cycle is named by its path, e.g. "cycle: a → b → c → a".
 */
export function dagProblems(nodes: DagNode[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const node of nodes) {
    if (ids.has(node.id)) problems.push(`duplicate task id: ${node.id}`);
    ids.add(node.id);
  }
  for (const node of nodes) {
    for (const dependency of node.dependsOn) {
      if (dependency === node.id) problems.push(`task ${node.id} depends on itself`);
      else if (!ids.has(dependency)) problems.push(`task ${node.id} depends on unknown task ${dependency}`);
    }
  }
  if (problems.length === 0) {
    const cycle = findCycle(nodes);
    if (cycle) problems.push(`cycle: ${cycle.join(' → ')}`);
  }
  return problems;
}

/** Depth-first search for a cycle; returns its path with the first node repeated at the end. */
export function findCycle(nodes: DagNode[]): string[] | undefined {
  const edges = new Map(nodes.map((node) => [node.id, node.dependsOn]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const dependency of edges.get(id) ?? []) {
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const node of nodes) {
    const cycle = visit(node.id);
    // The walk follows dependencies, so the path reads "a depends on b"; reverse it to read in execution order.
    if (cycle) return cycle.reverse();
  }
  return undefined;
}

/** Every task that depends on `id`, directly or through others. */
export function transitiveDependents(nodes: DagNode[], id: string): string[] {
  const dependents = new Map<string, string[]>();
  for (const node of nodes) for (const dependency of node.dependsOn) dependents.set(dependency, [...(dependents.get(dependency) ?? []), node.id]);
  const found = new Set<string>();
  const queue = [...(dependents.get(id) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (found.has(next)) continue;
    found.add(next);
    queue.push(...(dependents.get(next) ?? []));
  }
  return [...found];
}

/**
 * The longest chain of dependencies by duration: the floor under any schedule's makespan, whatever the
 * parallelism. Durations of tasks that did not run count as 0.
 */
export function criticalPath(nodes: DagNode[], durationMs: (id: string) => number): { ids: string[]; durationMs: number } {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const memo = new Map<string, { ids: string[]; durationMs: number }>();
  const longest = (id: string): { ids: string[]; durationMs: number } => {
    const cached = memo.get(id);
    if (cached) return cached;
    let best = { ids: [] as string[], durationMs: 0 };
    for (const dependency of byId.get(id)?.dependsOn ?? []) {
      const candidate = longest(dependency);
      if (candidate.durationMs > best.durationMs) best = candidate;
    }
    const result = { ids: [...best.ids, id], durationMs: best.durationMs + durationMs(id) };
    memo.set(id, result);
    return result;
  };
  let best = { ids: [] as string[], durationMs: 0 };
  for (const node of nodes) {
    const candidate = longest(node.id);
    if (candidate.durationMs > best.durationMs) best = candidate;
  }
  return best;
}
