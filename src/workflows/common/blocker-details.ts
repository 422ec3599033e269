import { workflowInfo } from '@temporalio/workflow';
import type { Blocker } from '../../shared/blockers.js';

/** For the Web UI's current details: each open question first and prominent, with the two ways to answer it. */
export function renderOpenBlockers(state: { openBlockers: Blocker[] }): string[] {
  const { workflowId } = workflowInfo();
  return state.openBlockers.map((blocker) => {
    const options = blocker.options ? ` (${blocker.options.map((option) => `'${option}'`).join(' or ')})` : '';
    return [
      `### ⏸ Waiting for a human: blocker \`${blocker.id}\`${options}`,
      blocker.question
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n'),
      blocker.context ? `Context: ${blocker.context}` : undefined,
      `Asked ${blocker.askedAt}. Answer with \`npx codeloop blockers answer ${workflowId} --blocker ${blocker.id} "…"\` or \`temporal workflow signal --workflow-id ${workflowId} --name answerBlocker --input '{"blockerId":"${blocker.id}","answer":"…"}'\``,
    ]
      .filter(Boolean)
      .join('\n\n');
  });
}
