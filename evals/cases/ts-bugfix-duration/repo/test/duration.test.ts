import test from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDuration } from '../src/duration.js';

test('minutes and seconds', () => {
  assert.equal(parseDuration('45s'), 45);
  assert.equal(parseDuration('2m30s'), 150);
});

test('anything else is refused', () => {
  assert.throws(() => parseDuration('soon'), /not a duration/);
  assert.throws(() => parseDuration('5 m'), /not a duration/);
});

test('formatDuration', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(3725), '1h2m5s');
});
