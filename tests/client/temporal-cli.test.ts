import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, inject, test } from 'vitest';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import { waitForBlockers } from '../support/blockers.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { makeWorkspace } from '../support/workspace.js';

const run = promisify(execFile);
const harness = useTaskHarness('temporal-cli');

/** The `temporal` CLI lines the README shows, run as written against the test server. */
const temporal = (...args: string[]) => run(findTemporalBinary()!, [...args, '--address', inject('temporalAddress')]);

test('a task started and answered with the temporal CLI runs to the end', async () => {
  harness.fake.enqueue({ toolCalls: [{ name: 'raise_blocker', input: { question: 'Proceed?' } }] }, { text: 'proceeded' });
  const workflowId = uniqueName('cli-task');
  const input = JSON.stringify({ title: 'Delete command', description: 'Add a delete command with confirmation', workspace: makeWorkspace() });
  await temporal('workflow', 'start', '--type', 'agentTaskWorkflow', '--task-queue', harness.taskQueue, '--workflow-id', workflowId, '--input', input);
  const handle = harness.temporal.client.workflow.getHandle(workflowId);
  await waitForBlockers(handle);
  await temporal('workflow', 'signal', '--workflow-id', workflowId, '--name', 'answerBlocker', '--input', '{"answer":"yes"}');
  expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'proceeded' });
  const { stdout } = await temporal('workflow', 'query', '--workflow-id', workflowId, '--type', 'getState', '--output', 'json');
  expect(JSON.parse(stdout).queryResult[0]).toMatchObject({ status: 'completed', answeredBlockers: [{ answer: 'yes' }] });
}, 60_000);
