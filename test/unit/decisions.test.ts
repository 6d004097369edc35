// Domain decisions made once in core/: the severity order, and the waits beside delay().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bySeverity, SEVERITIES, SEVERITY_RANK, worstSeverity, type Severity } from '../../src/core/rules/severity';
import { delay, within } from '../../src/core/delay';

test('one severity order: error above warning above info, listed most severe first', () => {
  assert.deepEqual(SEVERITIES, ['error', 'warning', 'info']);
  assert.ok(SEVERITY_RANK.error > SEVERITY_RANK.warning && SEVERITY_RANK.warning > SEVERITY_RANK.info);
  const found: { id: string; severity: Severity }[] = [
    { id: 'a', severity: 'info' },
    { id: 'b', severity: 'error' },
    { id: 'c', severity: 'warning' },
    { id: 'd', severity: 'error' },
  ];
  assert.deepEqual(
    [...found].sort(bySeverity).map((f) => f.id),
    ['b', 'd', 'c', 'a'],
  );
  assert.equal(worstSeverity(found.map((f) => f.severity)), 'error');
  assert.equal(worstSeverity(['info', 'warning']), 'warning');
  assert.equal(worstSeverity([]), undefined);
});

test('within: the value when it comes in time, undefined when late, and no timer left behind', async () => {
  assert.equal(await within(Promise.resolve(7), 1000), 7);
  const slow = delay(200).then(() => 'late');
  const t0 = Date.now();
  assert.equal(await within(slow, 20), undefined);
  assert.ok(Date.now() - t0 < 150, 'does not wait for the slow promise');
  assert.equal(await slow, 'late', 'the promise goes on');
  await assert.rejects(within(Promise.reject(new Error('refused')), 1000), /refused/);
});
