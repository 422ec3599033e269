// Hidden from the agent: the new name works, and the module exports nothing under another.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as users from '../src/users.js';

test('getUser is the only way to a user', () => {
  assert.equal(users.getUser(1).email, 'ada@example.org');
  assert.deepEqual(Object.keys(users).sort(), ['getUser', 'listUserIds']);
});
