// A watched collection (src/cluster/watched-list.ts) through a server restart, with a scripted client:
// a 404 before the first list means "not served"; a 404 after it (a restarting server that has not yet
// served its custom resources again) is a failure shown as reconnecting and retried, never the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchedList } from '../../src/cluster/watched-list';
import { watchFailure } from '../../src/cluster/list-watch';
import { ApiError } from '../../src/cluster/errors';
import type { KubeClient } from '../../src/cluster/kube-client';
import { errorNode } from '../../src/views/items/error';

type Obj = { metadata: { name: string; namespace?: string; resourceVersion?: string } };

/** Lists answer in turn from `answers` (an Error is thrown); watches fail at once with ECONNREFUSED until `watchOk`. */
function scripted(answers: (Obj[] | Error)[], watchOk: () => boolean) {
  let rv = 0;
  return {
    async get() {
      const a = answers.length > 1 ? answers.shift()! : answers[0];
      if (a instanceof Error) throw a;
      rv++;
      return { items: a, metadata: { resourceVersion: String(rv) } };
    },
    watch(_p: string, _q: unknown, _e: unknown, onDone: (err?: unknown) => void, _i: number, onOpen?: () => void) {
      setTimeout(() => {
        if (watchOk()) onOpen?.();
        else onDone(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }));
      }, 1);
      return { stop: () => undefined };
    },
  } as unknown as KubeClient;
}

const until = async (what: string, cond: () => boolean) => {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), what);
};

const ms = (name: string): Obj => ({ metadata: { name, namespace: 'openshift-machine-api' } });
const notFound = () => new ApiError(404, 'Not Found', '/apis/machine.openshift.io/v1beta1/machinesets');

test('a 404 before the first list: not served, nothing more is asked', async () => {
  const w = new WatchedList<Obj>(
    scripted([notFound()], () => true),
    { path: '/apis/machine.openshift.io/v1beta1/machinesets', selector: {} },
    { errorContext: { what: 'Windows MachineSets' }, retryMs: 5 },
  );
  await w.start();
  assert.equal(w.served, false);
  assert.equal(w.error, undefined);
  w.stop();
});

test('a 404 after a list (the server restarts, its CRDs not served yet) is "reconnecting", retried, then the new rows', async () => {
  let up = false;
  const w = new WatchedList<Obj>(
    scripted([[ms('old-a'), ms('old-b')], notFound(), notFound(), [ms('new-c')]], () => up),
    { path: '/apis/machine.openshift.io/v1beta1/machinesets', selector: {} },
    { errorContext: { what: 'Windows MachineSets', context: 'lab' }, retryMs: 5 },
  );
  const states: string[] = [];
  w.on('change', () => states.push(w.error ? `error ${w.error.reconnecting ? 'reconnecting' : ''}` : 'ok'));
  await w.start();
  assert.deepEqual(
    w.items().map((o) => o.metadata.name),
    ['old-a', 'old-b'],
  );
  await until('a 404 seen as reconnecting', () => states.filter((s) => s === 'error reconnecting').length >= 2);
  assert.equal(w.served, true, 'still served: a restart, not a cluster without the API');
  const row = errorNode('ctx/lab/group/machineSets/error', w.error!);
  assert.match(row.label, /^Windows MachineSets: reconnecting/);
  assert.equal(row.icon.id, 'sync~spin');
  up = true;
  await until('listed again', () => w.error === undefined && w.items().length === 1);
  assert.deepEqual(
    w.items().map((o) => o.metadata.name),
    ['new-c'],
    'the rows of the new list only: nothing stale',
  );
  w.stop();
});

test('only failures a retry can cure read as reconnecting: a refused credential or permission needs the user', () => {
  const ctx = { what: 'Windows nodes', context: 'lab' };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
  assert.equal(watchFailure(refused, ctx).reconnecting, true);
  assert.equal(watchFailure(new ApiError(503, 'Service Unavailable', '/api/v1/nodes'), ctx).reconnecting, true);
  for (const status of [401, 403]) {
    const e = watchFailure(new ApiError(status, 'No', '/api/v1/nodes'), ctx);
    assert.equal(e.reconnecting, undefined, `HTTP ${status}`);
    assert.doesNotMatch(errorNode('x/error', e).label, /reconnecting/);
  }
});
