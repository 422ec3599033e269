/**
 * What a batch has under way besides its children: `start` (a worktree being cut and a child started), `git`
 * (commits, merges, worktree removals), `conflict` (a merge conflict waiting for a human) and `outage` (its question
 * about a model outage, which its tasks wait on).
 */
export type WorkKind = 'start' | 'git' | 'conflict' | 'outage';

/**
 * The batch's work in flight, counted in one place: `run` counts the work from its call until it settles, however it
 * settles, so no path can leave a count behind and hang the batch at its end or before it continues as new.
 */
export class InFlight {
  private readonly counts: Record<WorkKind, number> = { start: 0, git: 0, conflict: 0, outage: 0 };
  /** The first failure of work run in the background that nothing else handled; the batch's main loop rethrows it. */
  fault?: unknown;

  async run<T>(kind: WorkKind, work: () => Promise<T>): Promise<T> {
    this.counts[kind] += 1;
    try {
      return await work();
    } finally {
      this.counts[kind] -= 1;
    }
  }

  /** Runs `work` without waiting for it; its failure goes to `onError`, by default to `fault`, never unhandled. */
  launch(kind: WorkKind, work: () => Promise<unknown>, onError = (error: unknown) => this.fail(error)): void {
    this.run(kind, work).catch(onError);
  }

  fail(error: unknown): void {
    this.fault ??= error;
  }

  /** Whether nothing of these kinds (by default, of any kind) is under way. */
  idle(...kinds: WorkKind[]): boolean {
    return (kinds.length ? kinds : (Object.keys(this.counts) as WorkKind[])).every((kind) => this.counts[kind] === 0);
  }
}
