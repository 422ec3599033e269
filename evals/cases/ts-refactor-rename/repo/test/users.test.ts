import test from 'node:test';
import assert from 'node:assert/strict';
import { getUsr } from '../src/users.js';
import { userReport } from '../src/report.js';

test('a user by id', () => {
  assert.equal(getUsr(2).name, 'Alan Turing');
  assert.throws(() => getUsr(3), /no user 3/);
});

test('the report', () => {
  assert.equal(userReport(), '1 Ada Lovelace <ada@example.org>\n2 Alan Turing <alan@example.org>');
});
