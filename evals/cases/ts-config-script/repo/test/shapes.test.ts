import test from 'node:test';
import assert from 'node:assert/strict';
import { area } from '../src/shapes.js';

test('areas', () => {
  assert.equal(area({ kind: 'rectangle', width: 2, height: 3 }), 6);
  assert.equal(Math.round(area({ kind: 'circle', radius: 1 }) * 100), 314);
});
