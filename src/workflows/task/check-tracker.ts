import { errorSignature } from '../common/error-signature.js';
import type { FailedAttempt } from './fix-tracker.js';

/** A failure that counted as a fix attempt: the check that failed (`tests`, `gate:lint`, `lint:src/a.ts`, a command). */
export interface CheckFailure extends FailedAttempt {
  check: string;
}

export interface CheckTrackerCarry {
  failures: CheckFailure[];
  /** Changes (successful writes and commands) so far, and the count at each check's last failure. */
  changes: number;
  changesAtFailure: Record<string, number>;
}

/** The same check failing with the same error 3 times, in the same file 3 times, or 5 times in all since it passed. */
export const CHECK_ESCALATION = { sameError: 3, sameFile: 3, sameCheck: 5 } as const;

const EXCERPT_CHARS = 160;

/**
 * Counts fix attempts: repeated failures of the same check (the tests, a gate, one file's lint, one command) after
 * the agent changed something, and says when to stop and ask a human. A failure with nothing changed since the
 * check last failed is the same observation again, not an attempt (the progress watch sees calls that repeat), and
 * a command that fails once while the agent explores (a grep with no match, `ls build`) is one failure of its own
 * check: five different ones never add up to an escalation. Finishing is an attempt in itself, so a gate's failures
 * always count.
 */
export class CheckTracker {
  private state: CheckTrackerCarry;

  constructor(carry?: CheckTrackerCarry) {
    this.state = carry ?? { failures: [], changes: 0, changesAtFailure: {} };
  }

  /** The agent changed something (a file written, a command run): the next failure of any check is a new attempt. */
  changed(): void {
    this.state.changes += 1;
  }

  /** Records a check's failure; returns why to escalate when it reached a threshold. */
  record(attempt: { iteration: number; check: string; file?: string; error: string; always?: boolean }): string | undefined {
    const { iteration, check, file, error, always } = attempt;
    const last = this.state.changesAtFailure[check];
    this.state.changesAtFailure[check] = this.state.changes;
    if (!always && last !== undefined && last === this.state.changes) return undefined;
    const signature = errorSignature(error);
    const excerpt = error.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS);
    const source = check.startsWith('command:') ? 'run_command' : check;
    this.state.failures.push({ iteration, check, source, file, signature, excerpt });
    const ofCheck = this.state.failures.filter((failure) => failure.check === check);
    const sameError = ofCheck.filter((failure) => failure.signature === signature).length;
    if (sameError >= CHECK_ESCALATION.sameError) return `the same error ${sameError} times (${source})`;
    if (file) {
      const sameFile = this.state.failures.filter((failure) => failure.file === file).length;
      if (sameFile >= CHECK_ESCALATION.sameFile) return `${sameFile} failures in ${file}`;
    }
    if (ofCheck.length >= CHECK_ESCALATION.sameCheck) return `${ofCheck.length} failures of ${source} since it last passed`;
    return undefined;
  }

  /** A check passed: its failures no longer count. */
  passed(check: string): void {
    this.state.failures = this.state.failures.filter((failure) => failure.check !== check);
    delete this.state.changesAtFailure[check];
  }

  /** The attempts so far, one line each, for the escalation blocker. */
  history(): string {
    return this.state.failures
      .map((a, index) => `${index + 1}. iteration ${a.iteration}, ${a.source}${a.file ? ` on ${a.file}` : ''}: ${a.excerpt}`)
      .join('\n');
  }

  /** Every gate passed, or a human gave guidance: the count starts again. */
  reset(): void {
    this.state = { failures: [], changes: this.state.changes, changesAtFailure: {} };
  }

  carry(): CheckTrackerCarry {
    return this.state;
  }
}
