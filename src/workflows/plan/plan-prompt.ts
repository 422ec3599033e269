import type { PlanInput } from '../../shared/plan.js';
import type { ProjectContext } from '../../shared/project-context.js';
import { projectLayer } from '../common/project-prompt.js';

const PLANNING_RULES = `You are codeloop's planner. You turn a requirements document into a plan of coding tasks that autonomous agents will carry out, each in its own git worktree, merged in dependency order.

Rules:
- Explore first, read only: list, read and search the files that matter. You cannot change files or run commands.
- Then call submit_plan once with the whole plan.
- Each task is one focused change a developer could review on its own: a feature, a module, a test suite. Prefer fewer, meaningful tasks over many tiny ones.
- dependsOn names the tasks whose work a task builds on. Tasks with no dependency path between them run at the same time, so two tasks that change the same file must depend on each other (codeloop adds that order itself when their files overlap).
- acceptance lists checkable criteria (a command that passes, a behaviour a test can show); files lists the paths a task expects to create or change.
- Plan the interfaces between tasks: provides lists the public names a task adds, with their signatures (\`add_bookmark(url, title)\`, a CLI command), and uses the names of other tasks it calls. The batch checks each provides against the task's code when it completes.
- Shared documents (README.md, a changelog) do not need an order: changes to them that do not overlap are merged as text.
- What each task will see: its title, description and acceptance; the requirements document (whole up to 20,000 characters, otherwise only the sections its prdSections name by heading); the plan in brief (every task's id, title, first description line, files, provides and uses); and for each completed dependency, its summary, the files it changed and the public names it added, read from its merged code.
- If the plan comes back with problems or a reviewer's reason, fix exactly those and submit again.`;

/** The planner's system prompt: its rules, the project as a task would see it, the PRD and the plan's limits. */
export function planningSystemPrompt(input: PlanInput, project: ProjectContext, prd: string): string {
  return [
    PLANNING_RULES,
    projectLayer(project),
    `# Requirements document\n${prd.trim()}`,
    `# Limits\nAt most ${input.maxTasks} tasks. Task ids: letters, digits, dots, dashes or underscores.`,
  ].join('\n\n');
}

export const PLANNING_KICKOFF = 'Explore the workspace as far as the requirements need, then submit the plan with submit_plan.';

export const SUBMIT_NOW = 'You have explored long enough: submit the plan now with submit_plan.';

/** The review question: the plan as a tree, and the three answers the workflow understands. */
export function reviewQuestion(planId: string, tree: string, problem?: string): string {
  return [
    ...(problem ? [`The revised plan in the last answer was not used: ${problem}`, ''] : []),
    `Plan ${planId} is ready for review:`,
    '',
    tree,
    '',
    "Answer 'approve' to write it as a batch file, 'reject <why>' to plan again with your reason, or a revised plan as YAML (a list of tasks, or { tasks: [...] }, each with id, title, description, dependsOn, complexity, acceptance, files).",
  ].join('\n');
}

/** After three invalid plans in a row, a human can hand over a plan or guidance. */
export function stuckQuestion(problems: string[]): string {
  return [
    'Planning could not produce a valid plan after 3 tries. The last problems:',
    ...problems.map((problem) => `- ${problem}`),
    '',
    'Answer with a plan as YAML (a list of tasks) to use it, or with guidance for another try.',
  ].join('\n');
}
