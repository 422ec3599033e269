import { gateVerdict, type GateResult } from '../../shared/gates.js';
import { CONCURRENT_TOOLS, type ToolName } from '../../shared/tools.js';
import { FixTracker, type FixTrackerCarry } from './fix-tracker.js';
import { LoopDetector, type LoopDetectorCarry } from './loop-detector.js';
import type { ExecutedCall } from '../common/tool-calls.js';

export interface GuardsCarry {
  fixes: FixTrackerCarry;
  loops: LoopDetectorCarry;
  loopNudged: boolean;
}

/** What a turn's outcome calls for: a note to the agent, or a human. */
export interface GuardVerdict {
  nudge?: string;
  escalate?: { kind: 'loop' | 'fixes'; question: string };
}

/**
 * Watches for an agent burning money in circles: failures counted by error and by file (the fix tracker), and
 * repeated or read-only tool calls (the loop detector). A loop first earns a nudge; the next one goes to a human.
 */
export class Guards {
  private readonly fixes: FixTracker;
  private readonly loops: LoopDetector;
  private loopNudged: boolean;

  constructor(carry?: GuardsCarry) {
    this.fixes = new FixTracker(carry?.fixes);
    this.loops = new LoopDetector(carry?.loops);
    this.loopNudged = carry?.loopNudged ?? false;
  }

  afterTools(executed: ExecutedCall[], iteration: number): GuardVerdict {
    let escalation: string | undefined;
    for (const { name, input, outcome } of executed) {
      if (name === 'run_tests' && !outcome.isError) this.fixes.reset();
      const file = (input as { path?: string } | undefined)?.path;
      if (outcome.isError && name && !CONCURRENT_TOOLS.has(name as ToolName)) {
        escalation = this.fixes.record({ iteration, source: name, file, error: outcome.content }) ?? escalation;
      }
      if (outcome.lintErrors) {
        escalation = this.fixes.record({ iteration, source: 'lint', file: outcome.changedFile, error: outcome.lintErrors }) ?? escalation;
      }
    }
    if (escalation) return { escalate: { kind: 'fixes', question: this.fixesQuestion(escalation) } };
    const finding = this.loops.observe(executed.map(({ call }) => ({ name: call.name, input: call.input })));
    if (!finding) return {};
    if (!this.loopNudged) {
      this.loopNudged = true;
      const advice = finding.kind === 'read-only' ? 'Start making the change now' : 'Try a different approach';
      return { nudge: `Note from codeloop: ${finding.message}. ${advice}, or call raise_blocker if you are stuck.` };
    }
    return {
      escalate: {
        kind: 'loop',
        question: `The agent looks stuck: ${finding.message}, even after a nudge. Answer with guidance for it, or 'stop' to fail the task.`,
      },
    };
  }

  /** Failed gates count as failures too; the answer is an escalation reason, if one is due. */
  afterGates(results: GateResult[], iteration: number): string | undefined {
    let escalation: string | undefined;
    for (const result of results.filter((gate) => gateVerdict(gate) === 'failed')) {
      escalation = this.fixes.record({ iteration, source: `gate:${result.name}`, error: result.summary }) ?? escalation;
    }
    return escalation ? this.fixesQuestion(escalation) : undefined;
  }

  /** A green run starts the failure count again. */
  passed(): void {
    this.fixes.reset();
  }

  /** After a human's guidance, both watchers start afresh. */
  guided(): void {
    this.fixes.reset();
    this.loops.reset();
    this.loopNudged = false;
  }

  private fixesQuestion(reason: string): string {
    return `Escalating: ${reason}. The attempts so far:\n${this.fixes.history()}\n\nAnswer with guidance for the agent, or 'stop' to fail the task.`;
  }

  carry(): GuardsCarry {
    return { fixes: this.fixes.carry(), loops: this.loops.carry(), loopNudged: this.loopNudged };
  }
}
