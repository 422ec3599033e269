// Hidden from the agent: the regression the task describes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDuration } from '../src/duration.js';

test('hours are 3600 seconds', () => {
  assert.equal(parseDuration('1h'), 3600);
  assert.equal(parseDuration('1h30m'), 5400);
  assert.equal(parseDuration('2h5s'), 7205);
});

test('parse and format agree', () => {
  for (const text of ['1h2m5s', '3h', '59m59s']) assert.equal(formatDuration(parseDuration(text)), text);
});
