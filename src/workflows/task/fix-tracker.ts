import { errorSignature } from '../common/error-signature.js';

export interface FailedAttempt {
  iteration: number;
  /** The tool or gate that failed, e.g. `run_tests` or `gate:lint`. */
  source: string;
  file?: string;
  signature: string;
  excerpt: string;
}

export interface FixTrackerCarry {
  attempts: FailedAttempt[];
}

/** CodeFRAME's escalation thresholds: the same error 3 times, the same file 3 times, or 5 failures in all. */
export const ESCALATION = { sameError: 3, sameFile: 3, total: 5 } as const;

const EXCERPT_CHARS = 160;

/**
 * Counts failures since the last green run, by normalised error signature and by file, and says when to stop
 * looping and ask a human instead.
 */
export class FixTracker {
  private attempts: FailedAttempt[];

  constructor(carry?: FixTrackerCarry) {
    this.attempts = carry?.attempts ?? [];
  }

  /** Records a failure; returns why to escalate when a threshold is reached. */
  record(attempt: Omit<FailedAttempt, 'signature' | 'excerpt'> & { error: string }): string | undefined {
    const { error, ...rest } = attempt;
    const excerpt = error.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS);
    this.attempts.push({ ...rest, signature: errorSignature(error), excerpt });
    const latest = this.attempts[this.attempts.length - 1];
    const sameError = this.attempts.filter((a) => a.signature === latest.signature).length;
    if (sameError >= ESCALATION.sameError) return `the same error ${sameError} times (${latest.source})`;
    if (latest.file) {
      const sameFile = this.attempts.filter((a) => a.file === latest.file).length;
      if (sameFile >= ESCALATION.sameFile) return `${sameFile} failures in ${latest.file}`;
    }
    if (this.attempts.length >= ESCALATION.total) return `${this.attempts.length} failures since the last green run`;
    return undefined;
  }

  /** The attempts so far, one line each, for the escalation blocker. */
  history(): string {
    return this.attempts
      .map((a, index) => `${index + 1}. iteration ${a.iteration}, ${a.source}${a.file ? ` on ${a.file}` : ''}: ${a.excerpt}`)
      .join('\n');
  }

  /** A green run (tests or gates pass) or a human's guidance starts the count again. */
  reset(): void {
    this.attempts = [];
  }

  carry(): FixTrackerCarry {
    return { attempts: this.attempts };
  }
}
