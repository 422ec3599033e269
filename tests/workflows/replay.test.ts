import '../support/quiet-runtime.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { beforeAll, expect, inject, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { payloadCodecsFor } from '../../src/payloads/codecs.js';
import { CODEC_FIXTURE_KEYS, CODEC_HISTORIES_DIR, HISTORIES_DIR, recordedWorkflowIds } from '../support/record-history.js';

const fixtures = readdirSync(HISTORIES_DIR)
  .filter((file) => file.endsWith('.json') && file !== 'workflow-ids.json')
  .sort();
const workflowIds = recordedWorkflowIds();

test('there are histories to replay', () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(5);
});

const workflowIdOf = (file: string) => workflowIds[path.basename(file, '.json')] ?? path.basename(file, '.json');

/**
 * Every fixture replayed by one replay worker, in order (a worker for each history cost this file about 40 worker
 * starts): each fixture's test then checks its own result, as `runReplayHistory` would have thrown it.
 */
const replayed: ReplayResult[] = [];
beforeAll(async () => {
  const histories = fixtures.map((file) => ({
    workflowId: workflowIdOf(file),
    history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))),
  }));
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') } }, histories)) {
    replayed.push(result);
  }
});

test.each(fixtures)('%s replays against the current workflow code', (file) => {
  const result = replayed[fixtures.indexOf(file)];
  expect(result?.workflowId).toBe(workflowIdOf(file));
  if (result?.error) throw result.error;
});

const codecFixtures = readdirSync(CODEC_HISTORIES_DIR).filter((file) => file.endsWith('.json'));

test('there is a history recorded with the payload store and encryption', () => {
  expect(codecFixtures.length).toBeGreaterThanOrEqual(1);
});

test.each(codecFixtures)('%s replays with the payload codecs it was written with', async (file) => {
  const name = path.basename(file, '.json');
  const settings = {
    CODELOOP_PAYLOAD_STORE: `file://${path.join(CODEC_HISTORIES_DIR, `${name}.store`)}`,
    CODELOOP_PAYLOAD_KEYS: CODEC_FIXTURE_KEYS,
  };
  const payloads = payloadCodecsFor(loadConfig(settings).payloads, settings);
  const history = historyFromJSON(JSON.parse(readFileSync(path.join(CODEC_HISTORIES_DIR, file), 'utf8')));
  // Its payloads really are encoded: without the codecs the same history does not replay.
  await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, name)).rejects.toThrow();
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter: payloads.dataConverter },
    history,
    name,
  );
});
