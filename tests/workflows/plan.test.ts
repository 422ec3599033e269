import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, test } from 'vitest';
import { readBatchFile } from '../../src/client/batch-start.js';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { answerBlockerSignal, getPlanStateQuery } from '../../src/shared/messages.js';
import type { PlanStateSnapshot } from '../../src/shared/plan-state.js';
import type { batchConductorWorkflow, planWorkflow } from '../../src/workflows/index.js';
import { byTask, byTurn, type RecordedRequest, type Responder } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('plan');

const PRD = `# Task tracker
A command-line task tracker in Python.
1. A Task model with a title and a done flag.
2. Storage in a JSON file.
3. \`add <title>\` adds a task.
4. \`list\` prints the tasks.
5. A README that documents both commands.`;

const planned = (id: string, dependsOn: string[], files: string[] = [`${id}.py`]) => ({
  id,
  title: `Build ${id}`,
  description: `Implement ${id} as the PRD says.`,
  dependsOn,
  complexity: 2,
  acceptance: [`${id} works as the PRD says`],
  files,
});

const FIVE_FEATURES = [
  planned('model', []),
  planned('storage', ['model']),
  planned('cli-add', ['storage'], ['cli.py']),
  planned('cli-list', ['storage'], ['cli.py']),
  planned('docs', ['cli-add', 'cli-list'], ['README.md']),
];

const submit = (tasks: unknown[]) => ({ toolCalls: [{ name: 'submit_plan', input: { tasks } }] });
const isPlanning = (request: RecordedRequest) => (request.body.tools ?? []).some((tool) => tool.name === 'submit_plan');
/** This test's planning requests: the fake serves the whole file. */
let since = 0;
const planningRequests = () => harness.fake.requests.slice(since).filter(isPlanning);
const lastUserBlocks = (request: RecordedRequest) => {
  const content = request.body.messages.at(-1)!.content;
  return typeof content === 'string' ? [] : content;
};

const startPlan = (input: Record<string, unknown>) => {
  since = harness.fake.requests.length;
  return harness.temporal.client.workflow.start<typeof planWorkflow>('planWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('plan'),
  });
};

/** Waits for the plan's review (or help) blocker and returns the state at that moment. */
async function waitForReview(handle: WorkflowHandle, drafts = 1): Promise<PlanStateSnapshot> {
  const state = await eventually(
    () => handle.query(getPlanStateQuery).catch(() => undefined),
    (current) => current !== undefined && current.openBlockers.length === 1 && current.drafts === drafts,
    'the plan never came up for review',
  );
  return state!;
}

const answer = (handle: WorkflowHandle, text: string) => handle.signal(answerBlockerSignal, { answer: text });

describe('planWorkflow', () => {
  test('a PRD of five features becomes a reviewed DAG, written as a batch file that codeloop batch start reads', async () => {
    harness.fake.setResponder(byTurn([{ toolCalls: [{ name: 'list_files', input: {} }] }, submit(FIVE_FEATURES)]));
    const repo = makeGitRepo({ 'README.md': '# tracker\n' });
    const handle = await startPlan({ workspace: repo, prd: PRD });
    const review = await waitForReview(handle);

    const [first] = planningRequests();
    // No model in the input: the worker's planning default, not its CODELOOP_MODEL.
    expect(first.body.model).toBe('claude-opus-5-5');
    expect(first.body.tools!.map((tool) => tool.name)).toEqual(['read_file', 'search_codebase', 'list_files', 'submit_plan']);
    expect(JSON.stringify(first.body.system)).toContain('`add <title>` adds a task.');
    expect(lastUserBlocks(planningRequests()[1])[0]).toMatchObject({ type: 'tool_result', content: expect.stringContaining('README.md') });

    expect(review.status).toBe('blocked');
    expect(review.phase).toBe('reviewing');
    expect(review.plan!.tasks.map((task) => task.id)).toEqual(['model', 'storage', 'cli-add', 'cli-list', 'docs']);
    // cli-add and cli-list both change cli.py and had no path between them: the later one now waits.
    expect(review.plan!.tasks[3].dependsOn).toEqual(['storage', 'cli-add']);
    expect(review.plan!.orderingNotes).toEqual(['cli-list now waits for cli-add: both change cli.py']);
    const question = review.openBlockers[0].question;
    expect(question).toContain(
      [
        '- model: Build model (complexity 2)',
        '  - storage: Build storage (complexity 2)',
        '    - cli-add: Build cli-add (complexity 2)',
        '      - docs: Build docs (complexity 2, also after cli-list)',
        '    - cli-list: Build cli-list (complexity 2, also after cli-add)',
      ].join('\n'),
    );
    expect(question).toContain("'approve'");
    const described = await handle.describe();
    expect(described.searchAttributes.CodeloopStatus).toEqual(['blocked']);
    expect(described.searchAttributes.CodeloopPhase).toEqual(['reviewing']);

    await answer(handle, 'approve');
    const result = await handle.result();
    expect(result.planFile).toBe(`codeloop/plans/${result.planId}.yaml`);
    expect(result.batchWorkflowId).toBeUndefined();
    const batch = readBatchFile(path.join(repo, result.planFile));
    expect(batch.workspace).toBe(repo);
    expect(batch.batchId).toBe(result.planId);
    expect(batch.tasks.map((task) => [task.id, task.dependsOn])).toEqual([
      ['model', []],
      ['storage', ['model']],
      ['cli-add', ['storage']],
      ['cli-list', ['storage', 'cli-add']],
      ['docs', ['cli-add', 'cli-list']],
    ]);
    expect(batch.tasks[0].acceptance).toEqual(['model works as the PRD says']);
    expect((await handle.query(getPlanStateQuery)).status).toBe('completed');
  });

  test('a cycle in the first plan goes back to the model as a tool error naming it (and a write is refused); the corrected plan is reviewed', async () => {
    const cyclic = submit([planned('a', ['b']), planned('b', ['a'])]);
    const writesToo = { toolCalls: [{ name: 'create_file', input: { path: 'x.txt', content: 'x' } }, ...cyclic.toolCalls] };
    harness.fake.setResponder(byTurn([writesToo, submit([planned('a', []), planned('b', ['a'])])]));
    const repo = makeGitRepo({ 'docs/prd.md': PRD });
    const handle = await startPlan({ workspace: repo, prdFile: 'docs/prd.md' });
    const review = await waitForReview(handle);
    expect(JSON.stringify(planningRequests()[0].body.system)).toContain('A Task model with a title');
    expect(lastUserBlocks(planningRequests()[1])).toMatchObject([
      { type: 'tool_result', is_error: true, content: expect.stringContaining('create_file is not available while planning') },
      { type: 'tool_result', is_error: true, content: 'the plan was not accepted: cycle: a → b → a' },
    ]);
    expect(existsSync(path.join(repo, 'x.txt'))).toBe(false);
    expect(review.plan!.tasks.map((task) => task.dependsOn)).toEqual([[], ['a']]);
    await answer(handle, 'approve');
    expect((await handle.result()).drafts).toBe(1);
  });

  test('a rejected plan is planned again with the reviewer reason in the prompt', async () => {
    harness.fake.setResponder(byTurn([submit([planned('everything', [])]), submit([planned('model', []), planned('cli', ['model'])])]));
    const handle = await startPlan({ workspace: makeGitRepo(), prd: PRD });
    await waitForReview(handle);
    await answer(handle, 'reject one task is too coarse: split the model from the CLI');
    const second = await waitForReview(handle, 2);
    const reasonText = lastUserBlocks(planningRequests()[1]).find((block) => block.type === 'text');
    expect(reasonText?.text).toContain('A reviewer rejected the plan: one task is too coarse: split the model from the CLI');
    expect(second.plan!.tasks.map((task) => task.id)).toEqual(['model', 'cli']);
    await answer(handle, 'approve');
    const result = await handle.result();
    expect(result.drafts).toBe(2);
    expect(result.plan.tasks).toHaveLength(2);
  });

  test("a planning model the account cannot use falls back to the plan's default model instead of failing the plan", async () => {
    harness.fake.setResponder((request) => {
      if (request.body.model === 'claude-plan-unusable')
        return { error: { status: 404, type: 'not_found_error', message: 'model: claude-plan-unusable' } };
      return submit([planned('model', [])]);
    });
    try {
      const handle = await startPlan({ workspace: makeGitRepo(), prd: PRD, model: 'claude-plan-unusable' });
      const review = await waitForReview(handle);
      expect(review.plan!.tasks.map((task) => task.id)).toEqual(['model']);
      expect(planningRequests().map((request) => request.body.model)).toEqual(['claude-plan-unusable', 'claude-test']);
      await answer(handle, 'approve');
      expect((await handle.result()).plan.tasks).toHaveLength(1);
    } finally {
      harness.fake.setResponder(undefined);
    }
  });

  test('a revised plan in YAML as the answer is checked and used; a broken one is named and asked again', async () => {
    harness.fake.setResponder(byTurn([submit([planned('one', [])])]));
    const handle = await startPlan({ workspace: makeGitRepo(), prd: PRD });
    await waitForReview(handle);
    const revised = (dependsOn: string) =>
      `tasks:\n  - id: x\n    title: X\n    description: do x\n    complexity: 1\n    acceptance: [x works]\n  - id: y\n    title: Y\n    description: do y\n    dependsOn: [${dependsOn}]\n    complexity: 1\n    acceptance: [y works]\n`;
    await answer(handle, revised('nope'));
    const again = await eventually(
      () => handle.query(getPlanStateQuery),
      (state) => state.answeredBlockers.length === 1 && state.openBlockers.length === 1,
      'the review was never asked again',
    );
    expect(again!.openBlockers[0].question).toContain(
      'The revised plan in the last answer was not used: task y depends on unknown task nope',
    );
    await answer(handle, revised('x'));
    const result = await handle.result();
    expect(result.plan.tasks.map((task) => [task.id, task.dependsOn])).toEqual([
      ['x', []],
      ['y', ['x']],
    ]);
  });

  test('an approved plan with start runs as a batch to an integration branch that holds every task commit', async () => {
    const creates = (file: string): Responder =>
      byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: 'done' }]);
    const planner = byTurn([submit([planned('first', [], ['first.txt']), planned('second', ['first'], ['second.txt'])])]);
    const tasks = byTask({ 'Build first': creates('first.txt'), 'Build second': creates('second.txt') });
    harness.fake.setResponder((request) => (isPlanning(request) ? planner(request) : tasks(request)));
    const repo = makeGitRepo();
    const handle = await startPlan({
      workspace: repo,
      prd: PRD,
      start: true,
      maxParallel: 2,
      planId: uniqueName('nightly'),
      models: { planning: 'claude-planner-test', default: 'claude-tasks-test' },
    });
    await waitForReview(handle);
    await answer(handle, 'approve');
    const result = await handle.result();
    expect(result.batchWorkflowId).toBe(`batch-${result.planId}`);
    expect(result.spendByPurpose.planning?.calls).toBe(1);
    const batch = harness.temporal.client.workflow.getHandle<typeof batchConductorWorkflow>(result.batchWorkflowId!);
    const outcome = (await batch.result()) as BatchResult;
    expect(outcome.status).toBe('completed');
    const branch = outcome.integrationBranch!;
    expect(fileOnBranch(repo, branch, 'first.txt')).toBe('first.txt\n');
    expect(fileOnBranch(repo, branch, 'second.txt')).toBe('second.txt\n');
    const log = execFileSync('git', ['log', '--format=%s', branch], { cwd: repo }).toString();
    expect(log).toContain('first: Build first');
    expect(log).toContain('second: Build second');
    // The children were told the plan's acceptance criteria.
    const childSystem = JSON.stringify(harness.fake.requests.slice(since).find((request) => !isPlanning(request))!.body.system);
    expect(childSystem).toContain('Acceptance criteria:\\n- first works as the PRD says');
    // The plan's models: planning planned, the tasks ran on the default it passed to the batch.
    const models = new Set(harness.fake.requests.slice(since).map((request) => `${isPlanning(request)}:${request.body.model}`));
    expect(models).toEqual(new Set(['true:claude-planner-test', 'false:claude-tasks-test']));
    expect(outcome.totals.spendByPurpose?.default?.calls).toBe(4);
  });

  test('bad input fails at once, naming the field', async () => {
    const handle = await startPlan({ workspace: makeGitRepo(), prd: PRD, prdFile: 'x.md' });
    await expect(handle.result()).rejects.toMatchObject({ cause: { message: expect.stringContaining('give exactly one of prd') } });
  });

  test('three invalid plans in a row ask a human, whose YAML plan goes to review', async () => {
    const unknownDependency = submit([planned('a', ['ghost'])]);
    harness.fake.setResponder(byTurn([unknownDependency, unknownDependency, unknownDependency]));
    const handle = await startPlan({ workspace: makeGitRepo(), prd: PRD });
    const stuck = await waitForReview(handle);
    expect(stuck.openBlockers[0].question).toContain('could not produce a valid plan after 3 tries');
    expect(stuck.openBlockers[0].question).toContain('- task a depends on unknown task ghost');
    expect(stuck.plan).toBeUndefined();
    await answer(handle, '- id: a\n  title: A\n  description: do a\n  complexity: 1\n  acceptance: [a works]\n');
    const review = await eventually(
      () => handle.query(getPlanStateQuery),
      (state) => state.phase === 'reviewing' && state.openBlockers.length === 1,
      'the handed-over plan never came up for review',
    );
    expect(review!.plan!.tasks.map((task) => task.id)).toEqual(['a']);
    await answer(handle, 'approve');
    expect((await handle.result()).turns).toBe(3);
  });
});
