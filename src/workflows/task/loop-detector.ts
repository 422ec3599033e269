import { CONCURRENT_TOOLS, type ToolName } from '../../shared/tools.js';

export type LoopKind = 'repeat' | 'cycle' | 'read-only';

export interface LoopFinding {
  kind: LoopKind;
  message: string;
}

export interface LoopDetectorCarry {
  recent: string[];
  readOnlyStreak: number;
}

const WINDOW = 6;
/** A nudge at 5 read-only steps in a row; 10 counts as a loop. */
export const READ_ONLY = { nudgeAt: 5, loopAt: 10 } as const;

/**
 * Spots a stuck agent from its tool calls, combining CodeFRAME's and OpenHands' patterns: the same call three times
 * in a row, an A/B cycle over the last six calls, and a long run of reading without acting.
 */
export class LoopDetector {
  private recent: string[];
  private readOnlyStreak: number;

  constructor(carry?: LoopDetectorCarry) {
    this.recent = carry?.recent ?? [];
    this.readOnlyStreak = carry?.readOnlyStreak ?? 0;
  }

  /** Feeds one turn's calls in order; returns what the turn revealed, most serious first. */
  observe(calls: { name: string; input: unknown }[]): LoopFinding | undefined {
    let finding: LoopFinding | undefined;
    for (const call of calls) {
      this.recent = [...this.recent, `${call.name}:${JSON.stringify(call.input)}`].slice(-WINDOW);
      const readOnly = CONCURRENT_TOOLS.has(call.name as ToolName) && call.name !== 'raise_blocker';
      this.readOnlyStreak = readOnly ? this.readOnlyStreak + 1 : 0;
      finding = this.check() ?? finding;
    }
    return finding;
  }

  private check(): LoopFinding | undefined {
    const [a, b] = [this.recent[this.recent.length - 1], this.recent[this.recent.length - 2]];
    if (this.recent.length >= 3 && this.recent.slice(-3).every((signature) => signature === a)) {
      return { kind: 'repeat', message: 'you made the same tool call with the same input 3 times in a row' };
    }
    if (this.recent.length === WINDOW && a !== b && this.recent.every((signature, index) => signature === (index % 2 === 0 ? b : a))) {
      return { kind: 'cycle', message: 'your last 6 tool calls alternate between the same two calls' };
    }
    if (this.readOnlyStreak === READ_ONLY.loopAt || this.readOnlyStreak === READ_ONLY.nudgeAt) {
      return { kind: 'read-only', message: `your last ${this.readOnlyStreak} tool calls only read` };
    }
    return undefined;
  }

  /** After a human's answer the agent starts with a clean slate. */
  reset(): void {
    this.recent = [];
    this.readOnlyStreak = 0;
  }

  carry(): LoopDetectorCarry {
    return { recent: this.recent, readOnlyStreak: this.readOnlyStreak };
  }
}
