import { z } from 'zod';
import { builtOnce } from './built-once.js';

/**
 * A question a human already answered; it stays in the prompt across continue-as-new, and across re-runs through the
 * task input's `answers`.
 */
export interface AnsweredQuestion {
  question: string;
  answer: string;
}

/** Where a blocker came from: the agent asked, or the workflow needed a human for it. */
export type BlockerOrigin =
  | 'agent'
  | 'final-question'
  | 'credentials'
  | 'model-unavailable'
  | 'host-unavailable'
  | 'approval'
  | 'escalation'
  | 'budget'
  | 'stall'
  | 'merge-conflict'
  | 'integration'
  | 'plan-review'
  | 'setup'
  | 'remote'
  | 'model-outage';

export interface Blocker {
  id: string;
  question: string;
  context?: string;
  origin: BlockerOrigin;
  askedAt: string;
  /** Answers the workflow understands, e.g. `approve` / `deny`, shown to the human. */
  options?: string[];
  /** `withdrawn`: what it asked about ended before anyone answered, so no answer is needed any more. */
  status: 'open' | 'answered' | 'timed-out' | 'withdrawn';
  answer?: string;
  answeredAt?: string;
}

/**
 * Origins whose answers are facts about the task: they join the prompt, outlive every continue-as-new and carry into
 * re-runs. The rest (approvals, budgets, credential retries…) only unblocked one step.
 */
const QUESTION_ORIGINS: ReadonlySet<BlockerOrigin> = new Set(['agent', 'final-question']);

export const isAnsweredQuestion = (blocker: Blocker): boolean => blocker.status === 'answered' && QUESTION_ORIGINS.has(blocker.origin);

/** The questions among `blockers` that a human answered, as the prompt's task layer shows them. */
export function answeredQuestions(blockers: Blocker[]): AnsweredQuestion[] {
  return blockers.filter(isAnsweredQuestion).map(({ question, answer }) => ({ question, answer: answer ?? '' }));
}

export interface RejectedAnswer {
  blockerId?: string;
  answer: string;
  reason: string;
  at: string;
}

/** The `answerBlocker` signal's and update's payload. `blockerId` may be left out when one blocker is open. */
export const BlockerAnswerSchema = builtOnce('blockers/BlockerAnswerSchema', () =>
  z.object({
    blockerId: z.string().min(1).optional(),
    answer: z.string(),
  }),
);
export type BlockerAnswer = z.infer<typeof BlockerAnswerSchema>;

/** What the `answerBlockerUpdate` returns to the caller. */
export interface BlockerAcknowledgement {
  blockerId: string;
  question: string;
  answer: string;
  answeredAt: string;
}

/** What to do when a blocker waits longer than the task's `blockerTimeout`. */
export const BLOCKER_TIMEOUT_ACTIONS = ['fail', 'continue'] as const;

/** A duration in Temporal's `ms` format, restricted to the unambiguous forms: `90s`, `30m`, `12h`, `7d`, `2w`. */
export const DurationSchema = builtOnce('blockers/DurationSchema', () =>
  z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d|w)$/, 'must be a duration like 30m, 12h or 7d'),
);

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A duration in the form `DurationSchema` accepts, in milliseconds. */
export function durationMs(duration: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(duration);
  if (!match) throw new TypeError(`not a duration like 30m, 12h or 7d: ${duration}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Words that answer an approval blocker. Anything else is treated as a denial with guidance. */
export const APPROVE_WORDS = /^\s*(approve|approved|yes|y|ok|allow|go ahead)\s*[.!]?\s*$/i;
export const STOP_WORDS = /^\s*(stop|fail|abort|cancel|give up)\s*[.!]?\s*$/i;
