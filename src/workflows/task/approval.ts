import type { ToolOutcome } from '../../activities/index.js';
import { APPROVE_WORDS } from '../../shared/blockers.js';
import { isRiskyCommand } from './risky-command.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { BlockerSpec } from '../common/blocker-desk.js';

const DENY_WORDS = /^\s*(deny|denied|no|n|reject)\s*[.!]?\s*$/i;

/**
 * The `approval` policy for `run_command`: a command that needs approval becomes a blocker showing the exact
 * command. Returns `undefined` to run it, or the tool result that tells the agent it was denied (with the human's
 * words when they said more than "deny").
 */
export async function approveCommand(
  policy: TaskInput['approval'],
  command: string,
  workspace: string,
  ask: (spec: BlockerSpec) => Promise<string>,
  /** The classifier's edition: false for runs from before patch `approvalHoldsUnreadCode` (asked only when needed). */
  holdsUnreadCode: () => boolean = () => true,
): Promise<ToolOutcome | undefined> {
  if (policy === 'never' || (policy === 'risky' && !isRiskyCommand(command, holdsUnreadCode()))) return undefined;
  const answer = await ask({
    origin: 'approval',
    question: `Approve running this command in ${workspace}?\n\n    ${command}\n\nAnswer 'approve' or 'deny'.`,
    options: ['approve', 'deny'],
  });
  if (APPROVE_WORDS.test(answer)) return undefined;
  const note = DENY_WORDS.test(answer) ? '' : ` The human said: ${answer}`;
  return { content: `A human denied running \`${command}\`; it did not run.${note}`, isError: true };
}
