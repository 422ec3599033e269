import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { ModelExchange } from '../../src/activities/model.js';
import { loadConfig } from '../../src/config.js';
import { createExchangeRecorder, recordingFile } from '../../src/activities/model-recording.js';
import { readRecording } from '../../src/eval/recording.js';
import { scratchDir } from '../support/eval.js';

const root = scratchDir('recorder');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const exchange = (workflowId: string, turn: number): ModelExchange => ({
  workflowId,
  runId: 'run-1',
  attempt: 1,
  request: { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: `turn ${turn}` }] },
  response: {
    id: `msg_${turn}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [{ type: 'text', text: `reply ${turn}`, citations: null }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  } as unknown as ModelExchange['response'],
});

test('one line per exchange, in a file per workflow id; a batch child id becomes a file name', async () => {
  const dir = path.join(root, 'made-on-first-use');
  const record = createExchangeRecorder(dir);
  // Concurrent appends to one file are queued, never interleaved.
  await Promise.all([1, 2, 3, 4, 5].map((turn) => record(exchange('batch-1/task-a', turn))));
  await record(exchange('task-b', 1));
  const file = recordingFile(dir, 'batch-1/task-a');
  expect(path.basename(file)).toBe('batch-1_task-a.jsonl');
  const recording = readRecording(file);
  expect(recording.tornLines).toEqual([]);
  expect(recording.exchanges.map((entry) => entry.response.id)).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4', 'msg_5']);
  expect(recording.exchanges[0]).toMatchObject({ v: 1, workflowId: 'batch-1/task-a', runId: 'run-1', attempt: 1 });
  expect(readRecording(recordingFile(dir, 'task-b')).exchanges).toHaveLength(1);
});

test('after a torn write the next entry starts on a line of its own, and every whole entry stays readable', async () => {
  const dir = path.join(root, 'torn');
  const record = createExchangeRecorder(dir);
  await record(exchange('task', 1));
  const file = recordingFile(dir, 'task');
  // A crash in the middle of the second write.
  appendFileSync(file, JSON.stringify({ v: 1, workflowId: 'task', request: { model: 'x' } }).slice(0, 30));
  await record(exchange('task', 3));
  await record(exchange('task', 4));
  expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(5);
  const recording = readRecording(file);
  expect(recording.tornLines).toEqual([2]);
  expect(recording.exchanges.map((entry) => entry.response.id)).toEqual(['msg_1', 'msg_3', 'msg_4']);
});

test('CODELOOP_RECORD is read with the other settings: a relative directory is made absolute, empty means off', () => {
  expect(loadConfig({ CODELOOP_RECORD: 'recordings' }).worker.recordDir).toBe(path.resolve('recordings'));
  expect(loadConfig({ CODELOOP_RECORD: '/srv/recordings' }).worker.recordDir).toBe('/srv/recordings');
  expect(loadConfig({ CODELOOP_RECORD: '' }).worker.recordDir).toBeUndefined();
});
