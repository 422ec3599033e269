import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { answerBlockerSignal, getPlanStateQuery } from '../../src/shared/messages.js';
import type { batchConductorWorkflow, planWorkflow } from '../../src/workflows/index.js';
import { byTask, byTurn, isForTask, type RecordedRequest, type Responder } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('batch-task-context');

const PRD = `# Bookmarks
A command-line bookmark keeper in Python.

## Storage
Bookmarks are kept in memory as dicts with a url and a title.

## Command line
\`add <url> <title>\` adds a bookmark.`;

const BOOKMARKS = 'def add_bookmark(url, title):\n    return {"url": url, "title": title}\n';
const WRONG_BOOKMARKS = 'def add(url):\n    return {"url": url}\n';
const CLI = 'import sys\nfrom bookmarks import add_bookmark\n\nprint(add_bookmark(sys.argv[1], sys.argv[2]))\n';

const creates = (file: string, content: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content } }] }, { text: `Wrote ${file}.` }]);

const planned = (id: string, dependsOn: string[], extra: Record<string, unknown> = {}) => ({
  id,
  title: `Build ${id}`,
  description: `Implement ${id} as the PRD says.`,
  dependsOn,
  complexity: 1,
  acceptance: [`${id} works`],
  files: [`${id}.py`],
  ...extra,
});

const systemOf = (request: RecordedRequest) => {
  const system = request.body.system ?? '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
};

/** Requests of the current test start here: the fake serves the whole file. */
let since = 0;
/** The first request the fake got in this test for the task with this title. */
const firstRequestOf = (title: string) => harness.fake.requests.slice(since).find((request) => isForTask(request, title))!;

async function approvePlan(handle: WorkflowHandle): Promise<void> {
  await eventually(
    () => handle.query(getPlanStateQuery).catch(() => undefined),
    (state) => state?.openBlockers.length === 1,
    'the plan never came up for review',
  );
  await handle.signal(answerBlockerSignal, { answer: 'approve' });
}

describe('each batch task knows the PRD, the plan and what its dependencies delivered', () => {
  test('a planned dependent starts with the PRD, the plan in brief and a delivered block naming the function with its signature', async () => {
    const plan = [
      planned('bookmarks', [], { provides: ['add_bookmark(url, title)'], prdSections: ['Storage'] }),
      planned('cli', ['bookmarks'], { uses: ['add_bookmark(url, title)'], prdSections: ['Command line'] }),
      planned('readme', ['cli'], { files: ['README.md'] }),
    ];
    const planner = byTurn([{ toolCalls: [{ name: 'submit_plan', input: { tasks: plan } }] }]);
    const tasks = byTask({
      'Build bookmarks': creates('bookmarks.py', BOOKMARKS),
      'Build cli': creates('cli.py', CLI),
      'Build readme': creates('USAGE.md', 'python cli.py add <url> <title>\n'),
    });
    const isPlanning = (request: RecordedRequest) => (request.body.tools ?? []).some((tool) => tool.name === 'submit_plan');
    since = harness.fake.requests.length;
    harness.fake.setResponder((request) => (isPlanning(request) ? planner(request) : tasks(request)));
    const repo = makeGitRepo();
    const handle = await harness.temporal.client.workflow.start<typeof planWorkflow>('planWorkflow', {
      args: [{ workspace: repo, prd: PRD, start: true, planId: uniqueName('bookmarks') }],
      taskQueue: harness.taskQueue,
      workflowId: uniqueName('plan'),
    });
    await approvePlan(handle);
    const { batchWorkflowId } = await handle.result();
    const batch = harness.temporal.client.workflow.getHandle<typeof batchConductorWorkflow>(batchWorkflowId!);
    const result = (await batch.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(fileOnBranch(repo, result.integrationBranch!, 'cli.py')).toBe(CLI);

    const cli = systemOf(firstRequestOf('Build cli'));
    // The PRD, whole: it is far below the budget.
    expect(cli).toContain('## Requirements document\n# Bookmarks');
    expect(cli).toContain('`add <url> <title>` adds a bookmark.');
    // The plan in brief: every task, with what it provides and uses.
    expect(cli).toContain('## The plan in brief');
    expect(cli).toContain(
      '- bookmarks: Build bookmarks. Implement bookmarks as the PRD says.\n  (files bookmarks.py; provides add_bookmark(url, title))',
    );
    expect(cli).toContain('- cli: Build cli ← this task.');
    expect(cli).toContain('- readme: Build readme. Implement readme as the PRD says.\n  (after cli; files README.md)');
    // What bookmarks delivered, read from its merged code by Python's ast.
    expect(cli).toContain('### bookmarks: Build bookmarks\nSummary: Wrote bookmarks.py.\nFiles: bookmarks.py (+2 −0)');
    expect(cli).toContain('- added function `add_bookmark(url, title)` in bookmarks.py');
    expect(cli).toContain('Its declared interface is in the code: add_bookmark(url, title).');
    // The first task depends on nothing: no delivered block; the third hears of cli, not of bookmarks.
    expect(systemOf(firstRequestOf('Build bookmarks'))).not.toContain('What your dependencies delivered');
    const readme = systemOf(firstRequestOf('Build readme'));
    expect(readme).toContain('### cli: Build cli\nSummary: Wrote cli.py.\nFiles: cli.py (+4 −0)');
    expect(readme).not.toContain('### bookmarks');
    await recordHistory('batch-task-context', batch);
  }, 180_000);

  test('a task whose code does not hold what it declared: its dependents are told what is really there', async () => {
    harness.fake.setResponder(
      byTask({
        'Store bookmarks': creates('bookmarks.py', WRONG_BOOKMARKS),
        'Bookmark command': creates('cli.py', 'from bookmarks import add\n'),
      }),
    );
    since = harness.fake.requests.length;
    const handle = await harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
      args: [
        {
          workspace: makeGitRepo(),
          prd: PRD,
          tasks: [
            { id: 'store', title: 'Store bookmarks', description: 'Add bookmarks.py.', provides: ['add_bookmark(url, title)'] },
            { id: 'cli', title: 'Bookmark command', description: 'Add cli.py.', dependsOn: ['store'], uses: ['add_bookmark(url, title)'] },
          ],
        },
      ],
      taskQueue: harness.taskQueue,
      workflowId: uniqueName('batch-provides'),
    });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.tasks.find((task) => task.id === 'store')!.interfaceMismatches).toEqual([{ declared: 'add_bookmark(url, title)' }]);
    const cli = systemOf(firstRequestOf('Bookmark command'));
    expect(cli).toContain('- added function `add(url)` in bookmarks.py');
    expect(cli).toContain('Warning: it declared `add_bookmark(url, title)`, but the code has no such name; use what is really there.');
    // A batch written by hand gets the plan in brief too.
    expect(cli).toContain('- store: Store bookmarks. Add bookmarks.py.\n  (provides add_bookmark(url, title))');
  }, 120_000);
});
