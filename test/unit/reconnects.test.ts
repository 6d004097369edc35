// When the cluster tree tries a failed cluster again (src/views/reconnects.ts), and the row it shows
// meanwhile (src/views/items/cluster-error.ts). Node's mocked timers: no wall clock.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Reconnects } from '../../src/views/reconnects';
import { clusterErrorNode } from '../../src/views/items/cluster-error';
import { classifyError, RequestTimeoutError } from '../../src/cluster/errors';

test('tries again after a wait that doubles with each failure in a row, up to the longest, one timer per cluster', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  try {
    const r = new Reconnects({ firstMs: 1000, maxMs: 5000 });
    const runs: string[] = [];
    const waits: number[] = [];
    let failure: object = {};
    for (let i = 0; i < 5; i++) {
      const start = Date.now();
      const next = r.failed('a', failure, () => runs.push('a'));
      // Asked again for the same failure (the view asks for the children again): the same try, no second timer.
      assert.deepEqual(
        r.failed('a', failure, () => runs.push('dup')),
        next,
      );
      waits.push(next.at - start);
      assert.equal(next.failures, i + 1);
      mock.timers.tick(next.at - start - 1);
      assert.equal(runs.length, i, 'not before its time');
      mock.timers.tick(1);
      assert.equal(runs.length, i + 1);
      failure = {}; // the try failed again: a new failure
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 5000, 5000]);
    assert.ok(!runs.includes('dup'));
    r.dispose();
  } finally {
    mock.timers.reset();
  }
});

test('a collapsed cluster stops being tried; connected, it starts from the first wait again', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  try {
    const r = new Reconnects({ firstMs: 1000 });
    let runs = 0;
    const failure = {};
    r.failed('a', failure, () => runs++);
    r.failed('b', {}, () => runs++);
    assert.deepEqual(r.pending, ['a', 'b']);
    r.stop('a');
    assert.deepEqual(r.pending, ['b']);
    assert.equal(r.stopped('a', failure), true);
    assert.equal(r.stopped('a', {}), false);
    mock.timers.tick(10_000);
    assert.equal(runs, 1, 'only b was tried');
    r.failed('b', {}, () => runs++);
    r.forget('b');
    assert.equal(r.failed('b', {}, () => runs++).failures, 1);
    r.dispose();
    assert.deepEqual(r.pending, []);
  } finally {
    mock.timers.reset();
  }
});

test("a cluster's error row: its cause in one line, when it is tried again, Retry on click", () => {
  const e = classifyError(new RequestTimeoutError('https://10.1.2.3:6443', 15_000), {
    context: 'prod',
    server: 'https://10.1.2.3:6443',
    what: 'server version',
  });
  const at = new Date(2026, 10, 27, 14, 5, 31).getTime();
  const row = clusterErrorNode('ctx/prod/error', e, { at, failures: 2 });
  assert.equal(row.label, 'No answer: timeout after 15 s');
  assert.equal(row.description, 'retrying at 14:05:31');
  assert.deepEqual(row.command, { id: 'kubeWindows.retry', title: 'Retry', args: ['ctx/prod/error'] });
  assert.equal(row.contextValue, 'error');
  assert.match(row.tooltip, /does not answer at https:\/\/10\\\.1\\\.2\\\.3:6443/);
  assert.match(row.tooltip, /Next try by itself at 14:05:31 \(failure 2 in a row/);
  assert.equal(clusterErrorNode('x', e, undefined).description, 'click to retry');
});
