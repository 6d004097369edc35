// The one way a count is written in a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { counted, plural } from '../../src/core/plural';

test('counted: one is singular, every other count plural, irregular nouns too', () => {
  assert.equal(counted(1, 'node'), '1 node');
  assert.equal(counted(2, 'node'), '2 nodes');
  assert.equal(counted(0, 'Machine'), '0 Machines');
  assert.equal(counted(1, 'fix'), '1 fix');
  assert.equal(counted(3, 'fix'), '3 fixes');
  assert.equal(counted(2, 'policy'), '2 policies');
  assert.equal(counted(2, 'mirror set'), '2 mirror sets');
  assert.equal(plural(2, 'its node', 'their nodes'), 'their nodes');
  assert.equal(plural(1, 'its node', 'their nodes'), 'its node');
});
