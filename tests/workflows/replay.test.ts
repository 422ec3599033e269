import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { expect, inject, test } from 'vitest';
import { HISTORIES_DIR, recordedWorkflowIds } from '../support/record-history.js';

const fixtures = readdirSync(HISTORIES_DIR)
  .filter((file) => file.endsWith('.json') && file !== 'workflow-ids.json')
  .sort();
const workflowIds = recordedWorkflowIds();

test('there are histories to replay', () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(5);
});

test.each(fixtures)('%s replays against the current workflow code', async (file) => {
  const history = historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
  const name = path.basename(file, '.json');
  await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, workflowIds[name] ?? name);
});
