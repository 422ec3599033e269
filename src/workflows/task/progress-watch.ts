import { CONCURRENT_TOOLS, type ToolName } from '../../shared/tools.js';
import type { LoopFinding } from './loop-detector.js';

/** One call of a turn, as the watch sees it. */
export interface WatchedCall {
  name: string;
  input: unknown;
}

export interface ProgressWatchCarry {
  /** The last calls' signatures, for the same call repeating and A/B cycles. */
  recent: string[];
  /** Signatures of the read-only calls made since anything last changed: what would bring nothing new. */
  seen: string[];
  /** Turns in a row that only read. */
  readTurns: number;
  /** Turns in a row that only repeated reads already made since the last change. */
  staleTurns: number;
}

const WINDOW = 6;
/** The most read-only signatures remembered; a task that reads more than this between changes is judged by turns. */
const SEEN_LIMIT = 300;
/** Turns that bring nothing new: a nudge at the 3rd in a row, a loop at the 6th. */
export const STALE_TURNS = { nudgeAt: 3, loopAt: 6 } as const;

/**
 * How many turns in a row may only read before a nudge: 8 in a small repository, one more for every 20 files in
 * its tree (up to 40), since finding one's way takes longer in a larger one. Twice as many count as a loop.
 */
export function readTurnBudget(fileCount: number): number {
  return Math.min(40, 8 + Math.floor(fileCount / 20));
}

/** How many entries the prompt's file tree (three levels deep) holds, counting the `… N more` it left out. */
export function fileCountOf(fileTree: string): number {
  const lines = fileTree.split('\n').filter(Boolean);
  const more = /^… (\d+) more$/.exec(lines.at(-1) ?? '');
  return more ? lines.length - 1 + Number(more[1]) : lines.length;
}

const isReadOnly = (name: string) => CONCURRENT_TOOLS.has(name as ToolName) && name !== 'raise_blocker';
const signatureOf = (call: WatchedCall) => `${call.name}:${JSON.stringify(call.input)}`;

/**
 * Watches for an agent that makes no progress, by turns rather than by calls: the same call three times in a row,
 * an A/B cycle over six calls, turns that only repeat reads already made since anything changed, or more turns of
 * reading in a row than the repository's size explains. Several reads in one turn are one step of exploration,
 * never a stall (the system prompt invites them).
 */
export class ProgressWatch {
  private state: ProgressWatchCarry;

  constructor(carry?: ProgressWatchCarry) {
    this.state = carry ?? { recent: [], seen: [], readTurns: 0, staleTurns: 0 };
  }

  /** Feeds one turn's calls in order; returns what the turn revealed, most serious first. */
  observe(calls: WatchedCall[], readBudget: number): LoopFinding | undefined {
    let finding: LoopFinding | undefined;
    for (const call of calls) {
      this.state.recent = [...this.state.recent, signatureOf(call)].slice(-WINDOW);
      finding ??= this.repeating();
    }
    return finding ?? this.judgeTurn(calls, readBudget);
  }

  private repeating(): LoopFinding | undefined {
    const { recent } = this.state;
    const [a, b] = [recent[recent.length - 1], recent[recent.length - 2]];
    if (recent.length >= 3 && recent.slice(-3).every((signature) => signature === a)) {
      return { kind: 'repeat', message: 'you made the same tool call with the same input 3 times in a row' };
    }
    if (recent.length === WINDOW && a !== b && recent.every((signature, index) => signature === (index % 2 === 0 ? b : a))) {
      return { kind: 'cycle', message: 'your last 6 tool calls alternate between the same two calls' };
    }
    return undefined;
  }

  private judgeTurn(calls: WatchedCall[], readBudget: number): LoopFinding | undefined {
    const state = this.state;
    if (!calls.every((call) => isReadOnly(call.name))) {
      // Something may have changed: what was read before may read differently now.
      Object.assign(state, { seen: [], readTurns: 0, staleTurns: 0 });
      return undefined;
    }
    const signatures = calls.map(signatureOf);
    const novel = signatures.some((signature) => !state.seen.includes(signature));
    state.seen = [...new Set([...state.seen, ...signatures])].slice(-SEEN_LIMIT);
    state.readTurns += 1;
    state.staleTurns = novel ? 0 : state.staleTurns + 1;
    if (state.staleTurns === STALE_TURNS.nudgeAt || state.staleTurns === STALE_TURNS.loopAt) {
      return {
        kind: 'read-only',
        message: `your last ${state.staleTurns} turns only repeated reads you had already made, and nothing changed since`,
      };
    }
    if (state.readTurns === readBudget || state.readTurns === 2 * readBudget) {
      return { kind: 'read-only', message: `you have only read for ${state.readTurns} turns in a row` };
    }
    return undefined;
  }

  /** After a human's answer the agent starts with a clean slate. */
  reset(): void {
    this.state = { recent: [], seen: [], readTurns: 0, staleTurns: 0 };
  }

  carry(): ProgressWatchCarry {
    return this.state;
  }
}
