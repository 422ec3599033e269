/** A node of a batch's dependency graph. */
export interface DagNode {
  id: string;
  dependsOn: string[];
}

/**
 * Checks a batch's DAG before anything starts: duplicate ids, unknown dependencies, self-dependencies and cycles.
 * Returns every problem found; a cycle is named by its path, e.g. "cycle: a → b → c → a". Linear in tasks and
 * edges and free of recursion, so a 50,000-task chain listed in any order is checked in milliseconds.
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

/** The first cycle met walking the dependencies; its path in execution order, the first node repeated at the end. */
export function findCycle(nodes: DagNode[]): string[] | undefined {
  const walk = walkDependencies(nodes, 'stop');
  return 'cycle' in walk ? walk.cycle : undefined;
}

/** Every task that depends on `id`, directly or through others, nearest first. */
export function transitiveDependents(nodes: DagNode[], id: string): string[] {
  const dependents = new Map<string, string[]>();
  for (const node of nodes) {
    for (const dependency of node.dependsOn) {
      const list = dependents.get(dependency);
      if (list) list.push(node.id);
      else dependents.set(dependency, [node.id]);
    }
  }
  const found = new Set<string>();
  const queue = [...(dependents.get(id) ?? [])];
  // An index instead of `shift()`, so a wide fan-out stays linear.
  for (let head = 0; head < queue.length; head++) {
    const next = queue[head];
    if (found.has(next)) continue;
    found.add(next);
    queue.push(...(dependents.get(next) ?? []));
  }
  return [...found];
}

/**
 * The longest chain of dependencies by duration: the floor under any schedule's makespan, whatever the
 * parallelism. Durations of tasks that did not run count as 0. One pass in dependency order keeps each task's best
 * total and the dependency it came through, so memory stays linear however long the chain.
 */
export function criticalPath(nodes: DagNode[], durationMs: (id: string) => number): { ids: string[]; durationMs: number } {
  const edges = edgesOf(nodes);
  const walk = walkDependencies(nodes, 'skip');
  const order = 'order' in walk ? walk.order : [];
  const total = new Map<string, number>();
  const through = new Map<string, string>();
  for (const id of order) {
    let best = 0;
    for (const dependency of edges.get(id) ?? []) {
      // A dependency without a total closes a cycle; the walk did not follow it, so neither does the path.
      const candidate = total.get(dependency);
      if (candidate !== undefined && candidate > best) {
        best = candidate;
        through.set(id, dependency);
      }
    }
    total.set(id, best + durationMs(id));
  }
  let end: string | undefined;
  let longest = 0;
  for (const node of nodes) {
    const candidate = total.get(node.id) ?? 0;
    if (candidate > longest) {
      end = node.id;
      longest = candidate;
    }
  }
  const ids: string[] = [];
  for (let id = end; id !== undefined; id = through.get(id)) ids.push(id);
  return { ids: ids.reverse(), durationMs: longest };
}

/** Later duplicates win, as they do in a `Map` built from the list. */
function edgesOf(nodes: DagNode[]): Map<string, string[]> {
  return new Map(nodes.map((node) => [node.id, node.dependsOn]));
}

/**
 * Depth-first walk along dependencies with an explicit stack, so depth costs heap rather than call stack. Returns
 * every id reached (unknown dependencies included) in post-order, each after its dependencies. A dependency back onto
 * the current path is a cycle: `stop` returns it, `skip` leaves that edge out and walks on.
 */
function walkDependencies(nodes: DagNode[], onCycle: 'stop' | 'skip'): { order: string[] } | { cycle: string[] } {
  const edges = edgesOf(nodes);
  const done = new Set<string>();
  const order: string[] = [];
  const path: string[] = [];
  const nextEdge: number[] = [];
  const onPath = new Map<string, number>();
  const enter = (id: string) => {
    onPath.set(id, path.length);
    path.push(id);
    nextEdge.push(0);
  };
  for (const root of nodes) {
    if (done.has(root.id) || onPath.has(root.id)) continue;
    enter(root.id);
    while (path.length > 0) {
      const top = path.length - 1;
      const id = path[top];
      const dependencies = edges.get(id) ?? [];
      if (nextEdge[top] < dependencies.length) {
        const dependency = dependencies[nextEdge[top]++];
        const position = onPath.get(dependency);
        // The walk reads "a depends on b"; reversed, the cycle reads in execution order.
        if (position !== undefined && onCycle === 'stop') return { cycle: [...path.slice(position), dependency].reverse() };
        if (position === undefined && !done.has(dependency)) enter(dependency);
        continue;
      }
      path.pop();
      nextEdge.pop();
      onPath.delete(id);
      done.add(id);
      order.push(id);
    }
  }
  return { order };
}
