import type { BatchTaskState, IntegrationStatus, IntegrationFailure } from '../../shared/batch-state.js';
import type { CommandAccess } from '../../shared/command-access.js';
import { gateVerdict, verificationOf, type GateResult, type GateSpec } from '../../shared/gates.js';
import { commandActivities, fileActivities } from '../common/activities.js';
import type { TaskPlace } from './batch-setup.js';
import type { HostRunner } from './host-wait.js';

/** What the batch keeps of its integration branches across continue-as-new. */
export interface IntegrationCarry {
  /** Per repository: the gates' results on the integration branch before any task merged. */
  baselines: Record<string, GateResult[]>;
  /** Per repository: what the gates said after the latest merge. */
  statuses: Record<string, IntegrationStatus>;
}

/** Failing test ids (or error lines) shown per failing gate; the rest are counted. */
const FAILURES_SHOWN = 10;

/**
 * The gates on the integration branch, on the host that holds it, in the sandbox, as a task's final gates run: once
 * when the branch is cut (the baseline: what already failed is not a merge's fault), then after each merge. Two
 * tasks that each pass can still merge into a branch that fails; this is what notices.
 */
export class IntegrationVerifier {
  private readonly baselines: Record<string, GateResult[]>;
  private readonly statuses: Record<string, IntegrationStatus>;

  constructor(
    private readonly onHost: HostRunner,
    private readonly access: CommandAccess,
    carry?: IntegrationCarry,
  ) {
    this.baselines = carry?.baselines ?? {};
    this.statuses = carry?.statuses ?? {};
  }

  /** Runs the gates once on the freshly cut branch; the batch reads as `unverified` until a merge is verified. */
  async recordBaseline(place: Pick<TaskPlace, 'binding' | 'repo'>): Promise<void> {
    this.baselines[place.repo.repo] = await this.runGates(place, 'before the batch');
    this.statuses[place.repo.repo] = 'unverified';
  }

  /** The gates after a merge: `failure` when one now fails worse than before the batch. */
  async verify(place: Pick<TaskPlace, 'binding' | 'repo'>): Promise<{ status: IntegrationStatus; failure?: IntegrationFailure }> {
    const results = await this.runGates(place);
    const status = verificationOf(results);
    this.statuses[place.repo.repo] = status;
    if (status !== 'failed') return { status };
    return { status, failure: describeFailure(results) };
  }

  /** The batch's word on its integration branches: `failed` if one fails, `verified` only if every one is. */
  status(): IntegrationStatus {
    const statuses = Object.values(this.statuses);
    if (statuses.includes('failed')) return 'failed';
    return statuses.length > 0 && statuses.every((status) => status === 'verified') ? 'verified' : 'unverified';
  }

  carry(): IntegrationCarry {
    return { baselines: this.baselines, statuses: this.statuses };
  }

  private async runGates(place: Pick<TaskPlace, 'binding' | 'repo'>, when?: string): Promise<GateResult[]> {
    const { binding, repo } = place;
    const where = repo.integrationPath;
    const detect = `detect gates on ${repo.integrationBranch}`;
    const gates: GateSpec[] = await this.onHost(binding.hostId, detect, (limit) =>
      fileActivities.detectGates.executeWithOptions({ taskQueue: binding.hostQueue, summary: detect, ...limit }, [where]),
    );
    const baselines = this.baselines[repo.repo] ?? [];
    const results: GateResult[] = [];
    for (const gate of gates) {
      const baseline = when ? undefined : baselines.find((result) => result.name === gate.name);
      const summary = `verify ${gate.name} on ${repo.integrationBranch}${when ? ` ${when}` : ''}: ${gate.command}`;
      const timeout = `${gate.timeoutSeconds + 60} seconds`;
      results.push(
        await this.onHost(binding.hostId, summary, (limit) =>
          commandActivities.runVerification.executeWithOptions(
            { taskQueue: binding.hostQueue, summary, startToCloseTimeout: timeout, ...limit },
            [{ workspace: where, gate, access: this.access, ...(baseline ? { baseline } : {}) }],
          ),
        ),
      );
    }
    return results;
  }
}

/** The failing gates, with their failing tests (new against the baseline first) and the first failure's text. */
function describeFailure(results: GateResult[]): IntegrationFailure {
  const failed = results.filter((result) => gateVerdict(result) === 'failed');
  const tests = failed.flatMap((result) => result.newFailures ?? result.failures ?? []);
  return {
    gates: failed.map((result) => result.name),
    failures: tests.slice(0, FAILURES_SHOWN * failed.length),
    summary: failed.map((result) => `${result.name} (\`${result.command}\`): ${result.summary}`).join('\n\n'),
  };
}

/**
 * What a task whose merge broke the integration branch is told on its correction round: it starts from the branch
 * as it now is, its own earlier work included, and must make the gates pass there.
 */
export function correctionBrief(state: BatchTaskState): string | undefined {
  const failure = state.integrationFailure;
  if (!failure) return undefined;
  const tests = failure.failures.length ? `Failing: ${failure.failures.join('; ')}\n` : '';
  return [
    '## Correction round: the integration branch fails after your merge',
    `Your earlier work on this task is already merged into the batch's integration branch, and this worktree starts from that branch. After the merge, these gates fail there: ${failure.gates.join(', ')}.`,
    `${tests}${failure.summary}`,
    'Make them pass on this branch without undoing what the other tasks of the plan delivered, then reply with your summary.',
  ].join('\n\n');
}
