import { gateVerdict, type GateResult } from '../../shared/gates.js';
import { CONCURRENT_TOOLS, type ToolInput, type ToolName } from '../../shared/tools.js';
import { applies } from '../common/patches.js';
import { CheckTracker, type CheckTrackerCarry } from './check-tracker.js';
import { FixTracker, type FixTrackerCarry } from './fix-tracker.js';
import { LoopDetector, type LoopDetectorCarry, type LoopFinding } from './loop-detector.js';
import { ProgressWatch, type ProgressWatchCarry } from './progress-watch.js';
import type { ExecutedCall } from '../common/tool-calls.js';

export interface GuardsCarry {
  fixes: FixTrackerCarry;
  loops: LoopDetectorCarry;
  loopNudged: boolean;
  /** The guards that judge progress (`progressGuards`); absent in runs that count calls. */
  checks?: CheckTrackerCarry;
  progress?: ProgressWatchCarry;
}

/** What a turn's outcome calls for: a note to the agent, or a human. */
export interface GuardVerdict {
  nudge?: string;
  escalate?: { kind: 'loop' | 'fixes'; question: string };
}

/** Calls after which the workspace may differ: a successful write, or a command that ran. */
const changes = ({ name, outcome }: ExecutedCall) => (name === 'run_command' || outcome.changedFile !== undefined) && !outcome.isError;

/**
 * Watches for an agent burning money in circles, and asks a human before it does for long. A loop first earns a
 * nudge; the next one goes to a human.
 *
 * Runs since `progressGuards` judge progress: repeated failures of the same check after changes (`CheckTracker`)
 * and turns that bring nothing new (`ProgressWatch`); reading in parallel and failing exploratory commands never
 * count. Runs from before count calls and failures (`FixTracker`, `LoopDetector`), and replay as they ran.
 */
export class Guards {
  private readonly fixes: FixTracker;
  private readonly loops: LoopDetector;
  private readonly checks: CheckTracker;
  private readonly progress: ProgressWatch;
  private loopNudged: boolean;
  private judgesProgress?: boolean;

  constructor(
    carry?: GuardsCarry,
    /** Whether this run judges progress; the workflow asks its patch, a test of the guards alone says. */
    private readonly decide: () => boolean = () => applies('progressGuards'),
  ) {
    this.fixes = new FixTracker(carry?.fixes);
    this.loops = new LoopDetector(carry?.loops);
    this.checks = new CheckTracker(carry?.checks);
    this.progress = new ProgressWatch(carry?.progress);
    this.loopNudged = carry?.loopNudged ?? false;
  }

  /** Decided once per run, at its first use, where a replay decides it too. */
  private progressGuards(): boolean {
    this.judgesProgress ??= this.decide();
    return this.judgesProgress;
  }

  /** `readBudget`: how many turns in a row may only read before a nudge (see `readTurnBudget`). */
  afterTools(executed: ExecutedCall[], iteration: number, readBudget: number): GuardVerdict {
    const escalation = this.progressGuards() ? this.recordChecks(executed, iteration) : this.recordFailures(executed, iteration);
    if (escalation) return { escalate: { kind: 'fixes', question: this.fixesQuestion(escalation) } };
    const calls = executed.map(({ call }) => ({ name: call.name, input: call.input }));
    const finding = this.progressGuards() ? this.progress.observe(calls, readBudget) : this.loops.observe(calls);
    return finding ? this.react(finding) : {};
  }

  /** The counting guards of runs from before `progressGuards`: every failed write or command, and lint errors. */
  private recordFailures(executed: ExecutedCall[], iteration: number): string | undefined {
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
    return escalation;
  }

  /** Checks that failed or passed in this turn, in order: the tests, each file's lint, each command. */
  private recordChecks(executed: ExecutedCall[], iteration: number): string | undefined {
    let escalation: string | undefined;
    for (const entry of executed) {
      const { name, input, outcome } = entry;
      if (changes(entry)) this.checks.changed();
      const check =
        name === 'run_tests'
          ? `tests${(input as ToolInput<'run_tests'>).test_path ? `:${(input as ToolInput<'run_tests'>).test_path}` : ''}`
          : name === 'run_command'
            ? `command:${(input as ToolInput<'run_command'>).command}`
            : undefined;
      if (check && outcome.isError) escalation = this.checks.record({ iteration, check, error: outcome.content }) ?? escalation;
      else if (check) this.checks.passed(check);
      if (!outcome.changedFile || outcome.isError) continue;
      const lint = `lint:${outcome.changedFile}`;
      if (outcome.lintErrors) {
        escalation = this.checks.record({ iteration, check: lint, file: outcome.changedFile, error: outcome.lintErrors }) ?? escalation;
      } else this.checks.passed(lint);
    }
    return escalation;
  }

  private react(finding: LoopFinding): GuardVerdict {
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
      const failure = { iteration, error: result.summary };
      escalation =
        (this.progressGuards()
          ? this.checks.record({ ...failure, check: `gate:${result.name}`, always: true })
          : this.fixes.record({ ...failure, source: `gate:${result.name}` })) ?? escalation;
    }
    return escalation ? this.fixesQuestion(escalation) : undefined;
  }

  /** A green run starts the failure count again. */
  passed(): void {
    this.fixes.reset();
    this.checks.reset();
  }

  /** After a human's guidance, both watchers start afresh. */
  guided(): void {
    this.fixes.reset();
    this.checks.reset();
    this.loops.reset();
    this.progress.reset();
    this.loopNudged = false;
  }

  private fixesQuestion(reason: string): string {
    const history = this.progressGuards() ? this.checks.history() : this.fixes.history();
    return `Escalating: ${reason}. The attempts so far:\n${history}\n\nAnswer with guidance for the agent, or 'stop' to fail the task.`;
  }

  carry(): GuardsCarry {
    return {
      fixes: this.fixes.carry(),
      loops: this.loops.carry(),
      loopNudged: this.loopNudged,
      checks: this.checks.carry(),
      progress: this.progress.carry(),
    };
  }
}
