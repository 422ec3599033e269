/**
 * Names and limits that form codeloop's public contract or come from elsewhere. Where a number is borrowed,
 * the comment says from where.
 */

/** Default task queue; `CODELOOP_TASK_QUEUE` overrides it. */
export const DEFAULT_TASK_QUEUE = 'codeloop';

/** Keyword search attributes codeloop keeps current, so the Web UI and visibility queries can filter runs. */
export const SEARCH_ATTRIBUTES = {
  status: 'CodeloopStatus',
  phase: 'CodeloopPhase',
  batchId: 'CodeloopBatchId',
} as const;

/** Default model when neither the task nor `CODELOOP_MODEL` names one. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Planning a batch: the strongest model, since one plan steers every task of a night (`CODELOOP_MODEL_PLANNING`). */
export const DEFAULT_PLANNING_MODEL = 'claude-opus-5-5';

/** Compaction summaries: a small, cheap model; they are called often and only condense (`CODELOOP_MODEL_SUMMARY`). */
export const DEFAULT_SUMMARY_MODEL = 'claude-haiku-5';

/** A scheduled batch with no `deadline` of its own stops waiting after this long: a night, not days. */
export const SCHEDULED_BATCH_DEADLINE = '8h';

/**
 * An agent or planning model turn's output allowance: room for adaptive thinking and a whole new file in one turn;
 * the spend caps count all of it.
 */
export const MAX_OUTPUT_TOKENS = 16_384;

/** Iteration budget: 30 by default; CodeFRAME scales it by complexity between 15 and 100. */
export const DEFAULT_MAX_ITERATIONS = 30;

/**
 * The PRD's budget in a task's prompt: whole up to this many characters (about 5K tokens), cut beyond it. A batch
 * gives a task with a longer PRD the sections the plan named for it instead.
 */
export const PRD_PROMPT_CHARS = 20_000;

/** Command output longer than this keeps its first and last half. */
export const COMMAND_OUTPUT_CHARS = 4_000;

/** Lint output appended to a tool result is capped here. */
export const LINT_OUTPUT_CHARS = 2_000;

/** Search/replace fuzzy threshold: CodeFRAME's 0.85 similarity, and the match must be unique. */
export const FUZZY_THRESHOLD = 0.85;

/** `read_file` of a long file without a range shows the head and tail only. */
export const READ_FILE = {
  longFileLines: 500,
  headLines: 200,
  tailLines: 50,
  /** What one call may return, whatever range is asked for: a 5 MB one-line file must not become a 5 MB tool result. */
  maxLines: 2_000,
  maxChars: 100_000,
  maxLineChars: 2_000,
} as const;

/** `run_command` timeouts, in seconds. */
export const COMMAND_TIMEOUT = { defaultSeconds: 60, maxSeconds: 300 } as const;
