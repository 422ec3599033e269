/**
 * Error kinds that cross Temporal boundaries. The `type` string is what retry policies and callers match on;
 * `instanceof` does not survive the workflow sandbox or serialisation.
 */
export const ErrorType = {
  /** Workflow or CLI input failed its schema. Never retried. */
  InvalidInput: 'InvalidInput',
  /** The workspace path is missing or unusable on the worker host that picked up the task. */
  WorkspaceUnavailable: 'WorkspaceUnavailable',
  /** `ANTHROPIC_API_KEY` is not set on the worker. */
  MissingApiKey: 'MissingApiKey',
  /** The model API rejected the credentials (401) or their permissions (403). */
  ModelAuthFailed: 'ModelAuthFailed',
  /** The model API rejected the request itself (400, 404). Retrying sends the same bytes, so it is not retried. */
  ModelRequestRejected: 'ModelRequestRejected',
  /** The account reached a spend limit. Unlike an ordinary 429 this does not clear by waiting. */
  ModelSpendLimit: 'ModelSpendLimit',
  /** 429 / 529 / 5xx / network: retried with the server's `retry-after` when it gives one. */
  ModelUnavailable: 'ModelUnavailable',
  /** The task used up its iteration budget. */
  BudgetExhausted: 'BudgetExhausted',
  /** The task was stopped by an answer or a policy (blocker timeout, escalation, stall). */
  TaskFailed: 'TaskFailed',
  /** The batch's DAG is invalid: duplicate ids, unknown dependencies, self-dependencies or a cycle. */
  InvalidBatch: 'InvalidBatch',
  /** A fetch from or push to a git remote failed (unreachable, refused credentials, unknown branch). */
  RemoteFailed: 'RemoteFailed',
  /** A forge's API (GitHub, GitLab) refused or failed a pull request call. */
  ForgeFailed: 'ForgeFailed',
  /** A notify target could not be reached or refused the message. */
  NotifyFailed: 'NotifyFailed',
} as const;

export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** Model failures that no retry can fix; the model activity's retry policy lists them as non-retryable. */
export const NON_RETRYABLE_MODEL_ERRORS: ErrorTypeName[] = [
  ErrorType.MissingApiKey,
  ErrorType.ModelAuthFailed,
  ErrorType.ModelRequestRejected,
  ErrorType.ModelSpendLimit,
];
