import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseTasksFile } from '../shared/batch-file.js';
import { parseBatchInput, type BatchInput, type BatchTask } from '../shared/batch-input.js';
import type { BatchResult } from '../shared/batch-state.js';
import type { batchConductorWorkflow } from '../workflows/index.js';
import { CliError, emit, parseOrExplain, type OutputOptions } from './output.js';
import { shownLink, webUiUrl } from './web-ui.js';
import { cliConfig, startInputOf, withClient } from './session.js';

export interface ResumeOptions extends OutputOptions {
  /** `task-id=answer`, once per question to answer. */
  answer?: string[];
  id?: string;
  /** The new batch's deadline; by default the ended batch's. */
  deadline?: string;
}

/**
 * `codeloop batch resume ID --answer task=text`: a batch that ended (at its deadline, or with failures) is closed,
 * so no signal reaches it. This starts a new batch on what it left: every task that did not complete, from the
 * ended batch's integration branch, each waiting task with the answer to the question it was left on.
 */
export async function resumeBatch(workflowId: string, options: ResumeOptions): Promise<void> {
  await withClient(async (client, namespace) => {
    const handle = client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    if (description.status.name !== 'COMPLETED')
      throw new CliError(
        `batch ${workflowId} is ${description.status.name.toLowerCase()}; only a batch that ended with a result can be resumed`,
      );
    const result = (await handle.result()) as BatchResult;
    const input = await startInputOf<BatchInput>(client, handle);
    const left = result.tasks.filter((task) => task.status !== 'completed');
    if (left.length === 0) throw new CliError(`nothing to resume: every task of ${workflowId} completed`);
    const answers = parseAnswers(options.answer ?? [], result);
    const ids = new Set(left.map((task) => task.id));
    const tasks = tasksOf(input)
      .filter((task) => ids.has(task.id))
      .map((task) => ({
        ...task,
        dependsOn: task.dependsOn.filter((id) => ids.has(id)),
        ...(answers.has(task.id) ? { answers: [...(task.answers ?? []), ...answers.get(task.id)!] } : {}),
      }));
    const resumed = parseOrExplain(parseBatchInput, {
      ...input,
      batchId: undefined,
      tasksFile: undefined,
      tasks,
      baseBranch: result.integrationBranch ?? input.baseBranch,
      deadline: options.deadline ?? input.deadline,
    });
    const newId = options.id ?? `${workflowId.replace(/-resumed-[0-9a-f]{8}$/, '')}-resumed-${randomUUID().slice(0, 8)}`;
    await client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
      args: [resumed],
      taskQueue: description.taskQueue,
      workflowId: newId,
      staticSummary: `resume of ${workflowId}: ${tasks.length} tasks`,
      staticDetails: tasks.map((task) => `- ${task.id}: ${task.title}`).join('\n'),
    });
    const url = webUiUrl(cliConfig(), namespace, newId);
    const answered = [...answers.values()].flat().length;
    emit(options, { workflowId: newId, resumes: workflowId, tasks: tasks.map((task) => task.id), answered, url }, () =>
      [
        `started ${newId}: ${tasks.length} tasks left by ${workflowId}, from ${resumed.baseBranch}, ${answered} answered`,
        `  web UI:  ${shownLink(url)}`,
        `  follow:  npx codeloop batch follow ${newId}`,
      ].join('\n'),
    );
  });
}

/** Each `task=answer` goes to every question that task was left waiting on. */
function parseAnswers(given: string[], result: BatchResult): Map<string, { question: string; answer: string }[]> {
  const answers = new Map<string, { question: string; answer: string }[]>();
  for (const item of given) {
    const split = item.indexOf('=');
    const [taskId, answer] = split > 0 ? [item.slice(0, split), item.slice(split + 1).trim()] : ['', ''];
    const task = result.tasks.find((candidate) => candidate.id === taskId);
    if (!task || !answer) throw new CliError(`--answer ${item}: write it as <task-id>=<answer>, for a task of the batch`, 2);
    if (!task.waitingFor?.length) throw new CliError(`--answer ${item}: task ${taskId} was not waiting on a question`, 2);
    answers.set(
      taskId,
      task.waitingFor.map(({ question }) => ({ question, answer })),
    );
  }
  return answers;
}

/** The batch's tasks as it ran them: listed in its input, or read from its tasks file in the workspace. */
function tasksOf(input: BatchInput): BatchTask[] {
  if (input.tasks.length > 0 || !input.tasksFile) return input.tasks;
  const file = path.resolve(input.workspace!, input.tasksFile);
  try {
    return parseTasksFile(readFileSync(file, 'utf8'), input.tasksFile);
  } catch (error) {
    throw new CliError(`cannot read the batch's tasks file ${file} on this machine: ${(error as Error).message}`);
  }
}
