import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { waitForBatch } from '../support/batch.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTask, byTurn, type RecordedRequest, type Responder } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('batch-integration');

const startBatch = (input: Record<string, unknown>) =>
  harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('batch-integration'),
  });

/** A Python project whose one gate is its pytest suite. */
const pythonProject = () =>
  makeGitRepo({
    'codeloop.json': JSON.stringify({ gates: [{ name: 'tests', command: 'python3 -m pytest -q -p no:cacheprovider' }] }),
    'greet.py': 'def greet(name):\n    return "hello " + name\n',
    'test_greet.py': 'from greet import greet\n\n\ndef test_greet():\n    assert greet("a") == "hello a"\n',
    '.gitignore': '__pycache__/\n',
  });

const WELCOME = 'from greet import greet\n\n\ndef welcome(name):\n    return greet(name) + "!"\n';
const welcomeTest = (expected: string) =>
  `from welcome import welcome\n\n\ndef test_welcome():\n    assert welcome("a") == "${expected}"\n`;

const systemText = (request: RecordedRequest) => JSON.stringify(request.body.system ?? '');
const isCorrection = (request: RecordedRequest) => systemText(request).includes('Correction round: the integration branch fails');

/** loud changes greet() and its test; welcome (held by a question until loud merged) builds on the old greet(). */
const loud = byTurn([
  {
    toolCalls: [
      { name: 'edit_file', input: { path: 'greet.py', edits: [{ search: '"hello "', replace: '"HELLO "' }] } },
      { name: 'edit_file', input: { path: 'test_greet.py', edits: [{ search: '"hello a"', replace: '"HELLO a"' }] } },
    ],
  },
  { text: 'greet() shouts now.' },
]);
const welcome = (correction: Responder): Responder => {
  const first = byTurn([
    { toolCalls: [{ name: 'raise_blocker', input: { question: 'Start now?' } }] },
    {
      toolCalls: [
        { name: 'create_file', input: { path: 'welcome.py', content: WELCOME } },
        { name: 'create_file', input: { path: 'test_welcome.py', content: welcomeTest('hello a!') } },
      ],
    },
    { text: 'welcome() added.' },
  ]);
  return (request) => (isCorrection(request) ? correction(request) : first(request));
};

/** Runs loud and welcome side by side; welcome's merge comes second and breaks test_welcome. */
async function runBrokenMerge(correction: Responder) {
  harness.fake.setResponder(byTask({ 'Loud greeting': loud, 'Welcome message': welcome(correction) }));
  const repo = pythonProject();
  const handle = await startBatch({
    workspace: repo,
    tasks: [
      { id: 'loud', title: 'Loud greeting', description: 'Make greet() shout.' },
      { id: 'welcome', title: 'Welcome message', description: 'Add welcome(name).' },
    ],
  });
  await waitForBatch(handle, (state) => state.tasks.find((task) => task.id === 'loud')?.status === 'completed', 300);
  const welcomeChild = harness.temporal.client.workflow.getHandle(`${handle.workflowId}/welcome`);
  await waitForBlockers(welcomeChild);
  await welcomeChild.signal(answerBlockerSignal, { answer: 'go' });
  return { repo, handle };
}

describe('the integration branch is verified after each merge', () => {
  test('two tasks that each pass but break a test together: the second gets a correction round with the failing test', async () => {
    let sawFailing = false;
    const correction = byTurn([
      {
        toolCalls: [{ name: 'edit_file', input: { path: 'test_welcome.py', edits: [{ search: '"hello a!"', replace: '"HELLO a!"' }] } }],
      },
      { text: 'test_welcome now expects the loud greeting.' },
    ]);
    const { repo, handle } = await runBrokenMerge((request) => {
      sawFailing ||= systemText(request).includes('test_welcome.py::test_welcome');
      return correction(request);
    });
    const broken = await waitForBatch(handle, (state) => state.integration === 'failed', 300);
    const failure = broken.tasks.find((task) => task.id === 'welcome')!.integrationFailure!;
    expect(failure.gates).toEqual(['tests']);
    expect(failure.failures).toContain('test_welcome.py::test_welcome');

    const result = (await handle.result()) as BatchResult;
    expect(sawFailing).toBe(true);
    expect(result.status).toBe('completed');
    expect(result.integration).toBe('verified');
    expect(result.tasks.find((task) => task.id === 'welcome')).toMatchObject({ status: 'completed', attempts: 2 });
    expect(result.tasks.find((task) => task.id === 'welcome')!.integrationFailure).toBeUndefined();
    expect(fileOnBranch(repo, result.integrationBranch!, 'test_welcome.py')).toBe(welcomeTest('HELLO a!'));
    await recordHistory('batch-integration-corrected', handle);
  }, 300_000);

  test('a correction round that does not fix it asks a human; failed, its merge is taken back and the branch verified again', async () => {
    const { repo, handle } = await runBrokenMerge(byTurn([{ text: 'Nothing to change.' }]));
    const asked = await waitForBatch(handle, (state) => state.openBlockers.length === 1, 300);
    expect(asked.openBlockers[0]).toMatchObject({ origin: 'integration', options: ['retry', 'accept', 'fail'] });
    expect(asked.openBlockers[0].question).toContain('test_welcome.py::test_welcome');
    expect(asked.integration).toBe('failed');
    await handle.signal(answerBlockerSignal, { answer: 'fail' });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('failed');
    const welcomeTask = result.tasks.find((task) => task.id === 'welcome')!;
    expect(welcomeTask.status).toBe('failed');
    expect(welcomeTask.reason).toContain('its merge breaks the integration branch: tests fail (test_welcome.py::test_welcome)');
    // What is published holds only work that stands: loud's, and none of welcome's (its first run's nor its correction's).
    expect(welcomeTask.reason).toContain(`its merge was taken back out of ${result.integrationBranch}`);
    expect(fileOnBranch(repo, result.integrationBranch!, 'welcome.py')).toBeUndefined();
    expect(fileOnBranch(repo, result.integrationBranch!, 'test_welcome.py')).toBeUndefined();
    expect(fileOnBranch(repo, result.integrationBranch!, 'greet.py')).toContain('"HELLO "');
    expect(result.integration).toBe('verified');
    await recordHistory('batch-integration-failed-taken-back', handle);
  }, 300_000);
});

describe('shared documents', () => {
  test('four tasks that each add a section to README.md run side by side and all four merge', async () => {
    const section = (name: string): Responder =>
      byTurn([
        {
          toolCalls: [
            {
              name: 'edit_file',
              input: { path: 'README.md', edits: [{ search: 'Usage:\n', replace: `Usage:\n\n## ${name}\n${name} works.\n` }] },
            },
          ],
        },
        { text: `Documented ${name}.` },
      ]);
    const names = ['alpha', 'beta', 'gamma', 'delta'];
    harness.fake.setResponder(byTask(Object.fromEntries(names.map((name) => [`Document ${name}`, section(name)]))));
    const repo = makeGitRepo({ 'README.md': '# tool\n\nUsage:\n' });
    const handle = await startBatch({
      workspace: repo,
      maxParallel: 4,
      tasks: names.map((name) => ({ id: name, title: `Document ${name}`, description: `Add a ${name} section.`, files: ['README.md'] })),
    });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.totals.tasks.completed).toBe(4);
    const readme = fileOnBranch(repo, result.integrationBranch!, 'README.md')!;
    for (const name of names) expect(readme).toContain(`## ${name}\n${name} works.\n`);
    expect(readme.startsWith('# tool\n\nUsage:\n')).toBe(true);
    // They ran side by side: each started before any other ended.
    const started = result.tasks.map((task) => Date.parse(task.startedAt!));
    const ended = result.tasks.map((task) => Date.parse(task.endedAt!));
    expect(Math.max(...started)).toBeLessThan(Math.min(...ended));
  }, 300_000);
});
