import type { Duration } from '@temporalio/common';
import { condition, setHandler } from '@temporalio/workflow';
import {
  answeredQuestions,
  type AnsweredQuestion,
  BlockerAnswerSchema,
  isAnsweredQuestion,
  type Blocker,
  type BlockerAcknowledgement,
  type BlockerOrigin,
  type RejectedAnswer,
} from '../../shared/blockers.js';
import { answerBlockerSignal, answerBlockerUpdate } from '../../shared/messages.js';
import { countBlockerAnswered, countBlockerRaised, countBlockerTimedOut } from './metrics.js';
import { workflowNow } from './workflow-time.js';

export interface BlockerSpec {
  question: string;
  context?: string;
  origin: BlockerOrigin;
  options?: string[];
}

export interface DeskCarry {
  blockers: Blocker[];
  rejected: RejectedAnswer[];
  nextId: number;
}

export type WaitOutcome = { answered: true; answer: string } | { answered: false };

/** How many closed operational blockers and rejected answers travel across continue-as-new. */
const KEEP_CLOSED = 50;

const isoNow = () => new Date(workflowNow()).toISOString();

/**
 * The task's blockers: questions waiting for a human, answered by the `answerBlocker` signal or update. An answer
 * that names an unknown blocker, is empty, or leaves out the id while several are open is refused: the update says
 * why, the signal is recorded as rejected. Neither fails the workflow.
 */
export class BlockerDesk {
  readonly blockers: Blocker[];
  readonly rejected: RejectedAnswer[];
  private nextId: number;

  constructor(
    carry: DeskCarry | undefined,
    private readonly onChange: () => void,
  ) {
    this.blockers = carry?.blockers ?? [];
    this.rejected = carry?.rejected ?? [];
    this.nextId = carry?.nextId ?? 1;
  }

  listen(): void {
    setHandler(answerBlockerSignal, (payload) => {
      const verdict = this.check(payload);
      if ('reason' in verdict) this.reject(payload, verdict.reason);
      else this.accept(verdict.blocker, verdict.answer);
    });
    setHandler(
      answerBlockerUpdate,
      (payload) => {
        const verdict = this.check(payload);
        if ('reason' in verdict) throw new Error(verdict.reason);
        return this.accept(verdict.blocker, verdict.answer);
      },
      {
        validator: (payload) => {
          const verdict = this.check(payload);
          if ('reason' in verdict) throw new Error(verdict.reason);
        },
      },
    );
  }

  /** Opens a blocker and waits for its answer, or for `timeout` if one is set. */
  async ask(spec: BlockerSpec, timeout?: Duration): Promise<WaitOutcome & { blocker: Blocker }> {
    const blocker: Blocker = { ...spec, id: `b${this.nextId++}`, askedAt: isoNow(), status: 'open' };
    this.blockers.push(blocker);
    countBlockerRaised(blocker.origin);
    this.onChange();
    const closed = () => blocker.status !== 'open';
    if (timeout === undefined) await condition(closed);
    else if (!(await condition(closed, timeout))) {
      blocker.status = 'timed-out';
      countBlockerTimedOut(blocker.origin);
      this.onChange();
      return { answered: false, blocker };
    }
    if (blocker.status !== 'answered') return { answered: false, blocker };
    return { answered: true, answer: blocker.answer!, blocker };
  }

  /** Closes an open blocker that no longer needs an answer; its `ask` returns unanswered. */
  withdraw(id: string): void {
    const blocker = this.blockers.find((candidate) => candidate.id === id && candidate.status === 'open');
    if (!blocker) return;
    blocker.status = 'withdrawn';
    this.onChange();
  }

  open(): Blocker[] {
    return this.blockers.filter((blocker) => blocker.status === 'open');
  }

  answered(): Blocker[] {
    return this.blockers.filter((blocker) => blocker.status === 'answered');
  }

  /** What humans told the agent (not approvals or budget answers), for the prompt's task layer. */
  answeredQuestions(): AnsweredQuestion[] {
    return answeredQuestions(this.blockers);
  }

  /** Every open blocker and answered question, and the latest closed operational blockers, in the order asked. */
  carry(): DeskCarry {
    const operational = this.blockers.filter((blocker) => blocker.status !== 'open' && !isAnsweredQuestion(blocker));
    const dropped = new Set(operational.slice(0, -KEEP_CLOSED));
    return {
      blockers: this.blockers.filter((blocker) => !dropped.has(blocker)),
      rejected: this.rejected.slice(-KEEP_CLOSED),
      nextId: this.nextId,
    };
  }

  private check(payload: unknown): { blocker: Blocker; answer: string } | { reason: string } {
    const parsed = BlockerAnswerSchema.safeParse(payload);
    if (!parsed.success) return { reason: 'the payload must be {"blockerId"?: string, "answer": string}' };
    const { blockerId, answer } = parsed.data;
    if (answer.trim() === '') return { reason: 'the answer is empty' };
    const open = this.open();
    if (blockerId === undefined) {
      if (open.length === 1) return { blocker: open[0], answer: answer.trim() };
      if (open.length === 0) return { reason: 'no blocker is open' };
      return { reason: `${open.length} blockers are open (${open.map((blocker) => blocker.id).join(', ')}); name one with blockerId` };
    }
    const blocker = this.blockers.find((candidate) => candidate.id === blockerId);
    if (!blocker) return { reason: `no blocker ${blockerId}; open: ${open.map((b) => b.id).join(', ') || 'none'}` };
    if (blocker.status !== 'open') return { reason: `blocker ${blockerId} is already ${blocker.status}` };
    return { blocker, answer: answer.trim() };
  }

  private accept(blocker: Blocker, answer: string): BlockerAcknowledgement {
    blocker.status = 'answered';
    blocker.answer = answer;
    blocker.answeredAt = isoNow();
    countBlockerAnswered(blocker.origin, Date.parse(blocker.answeredAt) - Date.parse(blocker.askedAt));
    this.onChange();
    return { blockerId: blocker.id, question: blocker.question, answer, answeredAt: blocker.answeredAt };
  }

  private reject(payload: unknown, reason: string): void {
    const { blockerId, answer } = (payload ?? {}) as { blockerId?: unknown; answer?: unknown };
    this.rejected.push({
      blockerId: typeof blockerId === 'string' ? blockerId : undefined,
      answer: typeof answer === 'string' ? answer : JSON.stringify(answer ?? null),
      reason,
      at: isoNow(),
    });
    this.onChange();
  }
}
