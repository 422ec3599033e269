import { condition, executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';

/**
 * The floor for a batch: the least a Temporal conductor can do over a DAG. It starts a child for each task as soon as
 * its dependencies completed, at most `maxParallel` at a time, and each child runs one trivial activity. No model, no
 * git, no state beyond what scheduling needs: what is left is the server and the worker.
 */

export interface FloorTask {
  id: string;
  dependsOn: string[];
}

export interface FloorTaskTimes {
  id: string;
  /** When the child began (its first workflow task). */
  startedAt: number;
  /** When the child finished its work (after its activity returned). */
  finishedAt: number;
}

export interface FloorResult {
  makespanMs: number;
  tasks: FloorTaskTimes[];
}

const { trivialWork } = proxyActivities<{ trivialWork(): Promise<number> }>({ startToCloseTimeout: '1 minute' });

export async function floorTaskWorkflow(id: string): Promise<FloorTaskTimes> {
  const startedAt = Date.now();
  await trivialWork();
  return { id, startedAt, finishedAt: Date.now() };
}

export async function floorConductorWorkflow(input: { tasks: FloorTask[]; maxParallel: number }): Promise<FloorResult> {
  const started = Date.now();
  const done = new Map<string, FloorTaskTimes>();
  const waiting = [...input.tasks];
  let running = 0;
  let failure: unknown;
  while (done.size < input.tasks.length) {
    for (const task of waiting.filter((candidate) => candidate.dependsOn.every((id) => done.has(id)))) {
      if (running >= input.maxParallel) break;
      waiting.splice(waiting.indexOf(task), 1);
      running += 1;
      void executeChild(floorTaskWorkflow, { workflowId: `${workflowInfo().workflowId}/${task.id}`, args: [task.id] }).then(
        (times) => {
          done.set(task.id, times);
          running -= 1;
        },
        (error: unknown) => (failure = error),
      );
    }
    const seen = done.size;
    await condition(() => done.size > seen || failure !== undefined);
    if (failure !== undefined) throw failure;
  }
  return { makespanMs: Date.now() - started, tasks: [...done.values()] };
}
