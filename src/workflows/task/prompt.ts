import { PRD_PROMPT_CHARS } from '../../shared/constants.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { AnsweredQuestion } from '../../shared/blockers.js';
import type { ProjectContext } from '../../shared/project-context.js';
import { projectLayer } from '../common/project-prompt.js';
import { environmentLayer } from './environment-prompt.js';
import { truncateEnd } from '../../text/truncate.js';
import { OUTLINE_REQUEST } from './outline.js';

const BASE_RULES = `You are codeloop, an autonomous coding agent. You work inside one workspace through tools, one step at a time.

Rules:
- Explore before you change: list and read the files that matter, search for the names you will touch.
- Change existing files with edit_file, using search blocks copied exactly from read_file output (without line numbers). Use create_file only for new files.
- Never rewrite a config file (package.json, pyproject.toml, tsconfig.json and the like) whole; make targeted edits, and only when the task needs them.
- Keep changes small and focused on the task. Follow the project's own conventions and instructions.
- Prove your work: run the tests (run_tests) and fix what fails before you finish.
- Several tool calls may go in one turn: reads run at once; edits, new files, deletes, moves and commands run in the order given. Write several files in one turn when you know what each needs.
- Delete or move files with delete_file and move_file, not with rm or mv.
- If you need something only a human has (unclear requirements, access, credentials, an external service), call raise_blocker with one clear question. Decide small things (names, structure) yourself.
- When the task is done, reply without any tool call: a short summary of what you changed and how you verified it.`;

/**
 * The layered system prompt: base rules, then the project (its own AGENTS.md / CLAUDE.md, stack and file tree),
 * then the task. It is built once per run and kept byte-identical, so the prompt cache keeps hitting.
 */
export function buildSystemPrompt(task: TaskInput, project: ProjectContext, answered: AnsweredQuestion[] = []): string {
  const environment = environmentLayer(task, project);
  const sections = [
    BASE_RULES,
    projectLayer(project),
    ...(environment ? [environment] : []),
    taskLayer(task, [...task.answers, ...answered]),
  ];
  if (wantsOutline(task, project)) sections.push(OUTLINE_REQUEST);
  return sections.join('\n\n');
}

function taskLayer(task: TaskInput, answered: AnsweredQuestion[]): string {
  const parts = ['# Task', `## ${task.title}`, task.description];
  if (task.prd?.trim()) {
    const prd = task.prd.trim();
    const note = prd.length > PRD_PROMPT_CHARS ? ' (truncated; read the full document in the workspace if it is there)' : '';
    parts.push(`## Requirements document${note}\n${truncateEnd(prd, PRD_PROMPT_CHARS)}`);
  }
  if (task.batchContext?.trim()) parts.push(task.batchContext.trim());
  if (answered.length > 0) {
    parts.push(
      `## Questions already answered by a human\n${answered.map(({ question, answer }) => `Q: ${question}\nA: ${answer}`).join('\n\n')}`,
    );
  }
  return parts.join('\n\n');
}

/** Complex or greenfield tasks plan first: the outline is kept in state and shown in the Web UI. */
export function wantsOutline(task: TaskInput, project: ProjectContext): boolean {
  return task.complexity >= 3 || project.greenfield;
}

/** The first user message: the task itself is in the system prompt, so this only starts the work. */
export function kickoffMessage(task: TaskInput): string {
  return `Start the task "${task.title}". Explore the workspace, make the change, verify it, then reply with a summary.`;
}
