/**
 * Workflow time in milliseconds. Inside the workflow sandbox `Date` is the deterministic time of the current
 * workflow task and replays identically; this is the one place workflow code reads it.
 */
export function workflowNow(): number {
  return new Date().getTime();
}
