import type { BatchInput, BatchTask } from '../../shared/batch-input.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { PRD_PROMPT_CHARS } from '../../shared/constants.js';
import type { IntegrateTasksRequest } from '../../activities/git/index.js';
import { DEFAULT_ACCESS } from '../../shared/command-access.js';
import { interfaceMismatches, type Delivery, type InterfaceMismatch } from '../../shared/delivery.js';
import type { BatchParts } from './batch-parts.js';
import { stateOf, taskOf } from './run-state.js';

/** A dependency's summary as the model wrote it, cut so that many dependencies still fit. */
const SUMMARY_CHARS = 1_500;

/**
 * What a batch task is told beyond its own description, so that planned work fits together: the PRD (whole within
 * the budget, otherwise the sections the plan named for the task), the plan in brief, and for each dependency that
 * completed, what it delivered as read from its merge.
 */
export function taskContext(
  batch: BatchInput,
  tasks: readonly BatchTask[],
  task: BatchTask,
  states: readonly BatchTaskState[],
): { prd?: string; batchContext?: string } {
  const prd = task.prd ?? (batch.prd === undefined ? undefined : prdFor(batch.prd, task.prdSections));
  const delivered = task.dependsOn
    .map((id) => states.find((state) => state.id === id))
    .filter((state): state is BatchTaskState => state?.status === 'completed')
    .map((state) =>
      deliveredBlock(
        state,
        tasks.find((candidate) => candidate.id === state.id),
      ),
    );
  const parts = [
    ...(tasks.length > 1 ? [planInBrief(tasks, task.id)] : []),
    ...(delivered.length ? [`## What your dependencies delivered (read from their merged code)\n\n${delivered.join('\n\n')}`] : []),
  ];
  return { ...(prd === undefined ? {} : { prd }), ...(parts.length ? { batchContext: parts.join('\n\n') } : {}) };
}

/**
 * The PRD whole when it fits the budget; otherwise the sections named (by heading, without the `#`s, any case), in
 * the PRD's order, with a line saying the rest was left out. Named sections that match nothing leave the whole PRD,
 * which the prompt then cuts at the budget.
 */
export function prdFor(prd: string, sections: readonly string[] = []): string {
  if (prd.length <= PRD_PROMPT_CHARS || sections.length === 0) return prd;
  const wanted = sections.map((name) => name.trim().toLowerCase());
  const chosen = splitSections(prd).filter((section) => wanted.includes(section.heading.toLowerCase()));
  if (chosen.length === 0) return prd;
  const names = chosen.map((section) => section.heading).join('; ');
  return `(The PRD is ${prd.length} characters; these are the sections planned for this task: ${names}.)\n\n${chosen.map((section) => section.text).join('\n\n')}`;
}

/** Markdown sections: each heading with its text, up to the next heading of the same level or above. */
function splitSections(prd: string): { heading: string; text: string }[] {
  const lines = prd.split('\n');
  const headings = lines.flatMap((line, index) => {
    const match = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    return match ? [{ index, level: match[1].length, heading: match[2] }] : [];
  });
  return headings.map((heading) => {
    const end = headings.find((next) => next.index > heading.index && next.level <= heading.level)?.index ?? lines.length;
    return { heading: heading.heading, text: lines.slice(heading.index, end).join('\n').trim() };
  });
}

/** Every task of the batch on a line or two: id, title, the first line of its description, files, provides and uses. */
export function planInBrief(tasks: readonly BatchTask[], current: string): string {
  const lines = tasks.map((task) => {
    const oneLine =
      task.description
        .split('\n')
        .find((line) => line.trim())
        ?.trim() ?? '';
    const facts = [
      task.dependsOn.length ? `after ${task.dependsOn.join(', ')}` : '',
      task.files?.length ? `files ${task.files.join(', ')}` : '',
      task.provides?.length ? `provides ${task.provides.join('; ')}` : '',
      task.uses?.length ? `uses ${task.uses.join('; ')}` : '',
    ].filter(Boolean);
    const you = task.id === current ? ' ← this task' : '';
    return `- ${task.id}: ${task.title}${you}. ${oneLine}${facts.length ? `\n  (${facts.join('; ')})` : ''}`;
  });
  return `## The plan in brief (every task of this batch; others run in their own worktrees)\n${lines.join('\n')}`;
}

/** One dependency's delivered block: its summary, its files with a diffstat, and its public names from the code. */
export function deliveredBlock(state: BatchTaskState, task?: BatchTask): string {
  const lines = [`### ${state.id}: ${state.title}`];
  if (state.summary) lines.push(`Summary: ${cut(state.summary.trim(), SUMMARY_CHARS)}`);
  const delivery = state.delivered;
  if (!delivery) {
    lines.push('(What it changed was not read; look at the integration branch.)');
    return lines.join('\n');
  }
  if (delivery.files.length)
    lines.push(`Files: ${delivery.files.map((file) => `${file.path} (+${file.added} −${file.removed})`).join(', ')}`);
  else lines.push('Files: none changed.');
  const named = delivery.names.filter((name) => name.change !== 'unchanged');
  if (named.length) {
    lines.push('Public names it added or changed:');
    for (const name of named) lines.push(`- ${name.change} ${name.kind} \`${name.signature}\` in ${name.file}`);
  }
  if (delivery.unread?.length) lines.push(`Not read (did not parse): ${delivery.unread.join(', ')}`);
  lines.push(...mismatchLines(state.interfaceMismatches ?? [], task));
  return lines.join('\n');
}

function mismatchLines(mismatches: readonly InterfaceMismatch[], task?: BatchTask): string[] {
  if (!task?.provides?.length) return [];
  if (mismatches.length === 0) return [`Its declared interface is in the code: ${task.provides.join('; ')}.`];
  return mismatches.map(
    (mismatch) =>
      `Warning: it declared \`${mismatch.declared}\`, but the code ${mismatch.found ? `has \`${mismatch.found}\`` : 'has no such name'}; use what is really there.`,
  );
}

/** What the batch keeps of a delivery: the block's facts, and the mismatches against what the task declared. */
export type DeliveryFacts = { delivered: Delivery; interfaceMismatches?: InterfaceMismatch[] };

const cut = (text: string, chars: number) => (text.length <= chars ? text : `${text.slice(0, chars)} …`);

/** What to ask the merge step to read of these tasks' merges; nothing for a run from before `batchTaskContext`. */
export function deliveryRequest(batch: Pick<BatchParts, 'input' | 'patches'>, ids: string[]): IntegrateTasksRequest['describe'] {
  if (!batch.patches.givesContext) return undefined;
  const provides = Object.fromEntries(
    ids.flatMap((id) => {
      const declared = taskOf(batch.input, id).provides;
      return declared ? [[id, declared]] : [];
    }),
  );
  return { provides, access: DEFAULT_ACCESS };
}

/** Each merged task's delivery, checked against the interface it declared, kept for its dependents. */
export function noteDeliveries(batch: Pick<BatchParts, 'input' | 'state'>, deliveries: Delivery[]): void {
  for (const delivery of deliveries) {
    const state = stateOf(batch.state, delivery.taskId);
    if (!state) continue;
    state.delivered = delivery;
    const provides = taskOf(batch.input, delivery.taskId).provides;
    if (provides?.length) state.interfaceMismatches = interfaceMismatches(provides, delivery.names);
  }
}
