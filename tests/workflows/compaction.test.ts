import { expect, test } from 'vitest';
import { getStateQuery } from '../../src/workflows/messages.js';
import { withSummaries } from '../support/fake-messages-api.js';
import { payloadSizes } from '../support/history.js';
import { chunkFiles, largeOutputSession } from '../support/sessions.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('compaction');
const ITERATIONS = 200;
const PAYLOAD_WARNING = 512 * 1024;
const WINDOW_TOKENS = 200_000;

test('200 iterations with 5 KB outputs: the conversation stays under the window and every payload under 512 KB', async () => {
  harness.fake.setResponder(withSummaries(largeOutputSession(ITERATIONS)));
  const before = harness.fake.requests.length;
  try {
    const handle = await harness.start({ description: 'read everything', workspace: makeWorkspace(chunkFiles(5_000)), maxIterations: ITERATIONS });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', iterations: ITERATIONS });
    const state = await handle.query(getStateQuery);
    expect(state.compactions).toBeGreaterThanOrEqual(1);

    const requests = harness.fake.requests.slice(before);
    const largestRequest = Math.max(...requests.map((request) => JSON.stringify(request.body).length));
    expect(largestRequest).toBeLessThan(PAYLOAD_WARNING);
    expect(largestRequest / 4).toBeLessThan(WINDOW_TOKENS * 0.85);

    let runs = 0;
    for await (const execution of harness.temporal.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) {
      const history = await harness.temporal.client.workflow.getHandle(handle.workflowId, execution.runId).fetchHistory();
      expect(Math.max(...(history.events ?? []).flatMap((event) => payloadSizes(event)))).toBeLessThan(PAYLOAD_WARNING);
      runs += 1;
    }
    expect(runs).toBe(result.runs);
  } finally {
    harness.fake.setResponder(undefined);
  }
}, 300_000);
