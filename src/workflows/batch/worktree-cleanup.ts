import { log } from '@temporalio/workflow';
import { gitActivities } from '../common/activities.js';
import type { InFlight } from './in-flight.js';

/** Enough merged worktrees to remove in one activity while merges keep coming. */
const REMOVE_AT = 8;

/**
 * Removes merged tasks' worktrees, off the hand-off path and in batches: the worktrees of several merges go in one
 * activity, once `REMOVE_AT` have gathered or the repository's merges are idle (`flush`), so housekeeping adds few
 * activities however many tasks merge. A removal counts as `git` work, which the batch waits for before it ends or
 * continues as new. Their work is already in the integration branch, so a failure is only logged.
 */
export class WorktreeCleanup {
  private readonly waiting = new Map<string, { hostQueue: string; paths: string[] }>();
  private readonly removing = new Set<string>();
  /** Repositories whose waiting worktrees go as soon as the removal running there ends. */
  private readonly flushAfter = new Set<string>();

  constructor(private readonly inFlight: InFlight) {}

  remove(hostQueue: string, repo: string, paths: string[]): void {
    if (paths.length === 0) return;
    const waiting = this.waiting.get(repo) ?? { hostQueue, paths: [] };
    waiting.paths.push(...paths);
    this.waiting.set(repo, waiting);
    if (waiting.paths.length >= REMOVE_AT) this.flush(repo);
  }

  /** Removes what has gathered for `repo`: now, or once the removal running there ends. */
  flush(repo: string): void {
    const next = this.waiting.get(repo);
    if (!next) return;
    if (this.removing.has(repo)) {
      this.flushAfter.add(repo);
      return;
    }
    this.waiting.delete(repo);
    this.flushAfter.delete(repo);
    this.removing.add(repo);
    this.inFlight.launch('git', async () => {
      try {
        await this.removeNow(repo, next.hostQueue, next.paths);
      } finally {
        this.removing.delete(repo);
        if (this.flushAfter.has(repo) || (this.waiting.get(repo)?.paths.length ?? 0) >= REMOVE_AT) this.flush(repo);
      }
    });
  }

  private async removeNow(repo: string, hostQueue: string, paths: string[]): Promise<void> {
    const summary = `remove ${paths.length} merged worktree${paths.length === 1 ? '' : 's'}`;
    try {
      await gitActivities.removeTaskWorktrees.executeWithOptions({ taskQueue: hostQueue, summary }, [{ repo, paths }]);
    } catch (error) {
      log.warn('merged worktrees left in place', { paths, error: String(error) });
    }
  }
}
