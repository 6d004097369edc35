// The list-then-watch helper (src/cluster/list-watch.ts) with a scripted client: how it reacts to
// each way a watch ends, which the emulator and the real server produce only some of.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListWatch } from '../../src/cluster/list-watch';
import type { KubeClient, Query, WatchEvent } from '../../src/cluster/kube-client';
import { ApiError } from '../../src/cluster/errors';

type Obj = { metadata?: { name?: string; resourceVersion?: string } };
type Ending = { events?: WatchEvent<Obj>[]; end?: unknown; open?: boolean };

/** A client whose lists answer `rv` and whose watches play the given endings in turn (the last one stays open). */
function scripted(endings: Ending[]) {
  const calls: { kind: 'list' | 'watch'; query: Query }[] = [];
  let rv = 10;
  const client = {
    async get(_path: string, query: Query) {
      calls.push({ kind: 'list', query });
      rv += 10;
      return {
        items: [{ metadata: { name: `a${rv}`, resourceVersion: String(rv) } }],
        metadata: { resourceVersion: String(rv) },
      };
    },
    watch(
      _path: string,
      query: Query,
      onEvent: (e: WatchEvent<Obj>) => void,
      onDone: (err?: unknown) => void,
      _idle: number,
      onOpen?: () => void,
    ) {
      calls.push({ kind: 'watch', query });
      const e = endings.shift() ?? { open: true };
      setTimeout(() => {
        if (e.open !== false) onOpen?.();
        for (const ev of e.events ?? []) onEvent(ev);
        if ('end' in e) onDone(e.end);
      }, 1);
      return { stop: () => undefined };
    },
  };
  return { client: client as unknown as KubeClient, calls };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond());
};

function run(endings: Ending[]) {
  const { client, calls } = scripted(endings);
  const seen: string[] = [];
  const lw = new ListWatch<Obj>(
    client,
    {
      path: '/api/v1/pods',
      selector: { fieldSelector: 'spec.nodeName=n1' },
      pageSize: 50,
      watchTimeoutSeconds: 30,
      retryMs: 10,
    },
    {
      listed: (items) => seen.push(`listed ${items.map((i) => i.metadata?.name).join(',')}`),
      event: (type, o) => seen.push(`${type} ${o.metadata?.name}`),
      failed: (err) => seen.push(`failed ${err instanceof ApiError ? err.status : String(err)}`),
      recovered: () => seen.push('recovered'),
    },
  );
  return { lw, calls, seen };
}

test('an HTTP 410 on the watch lists again; the new watch starts from the new list', async () => {
  const { lw, calls, seen } = run([{ open: false, end: new ApiError(410, 'Gone', '/api/v1/pods') }]);
  await lw.start();
  await until(() => calls.length === 4);
  lw.stop();
  assert.deepEqual(
    calls.map((c) => [c.kind, c.query.resourceVersion, c.query.limit]),
    [
      ['list', undefined, 50],
      ['watch', '20', undefined],
      ['list', undefined, 50],
      ['watch', '30', undefined],
    ],
  );
  assert.deepEqual(seen, ['listed a20', 'listed a30']);
  assert.equal(lw.lists, 2);
  assert.deepEqual(calls[1].query, {
    fieldSelector: 'spec.nodeName=n1',
    resourceVersion: '20',
    allowWatchBookmarks: true,
    timeoutSeconds: 30,
  });
});

test('an ERROR event with code 410 lists again; a clean end resumes from the last version seen, bookmarks included', async () => {
  const { lw, calls, seen } = run([
    {
      events: [
        { type: 'ADDED', object: { metadata: { name: 'b', resourceVersion: '25' } } },
        { type: 'BOOKMARK', object: { metadata: { resourceVersion: '27' } } },
      ],
      end: undefined,
    },
    { events: [{ type: 'ERROR', object: { code: 410 } as unknown as Obj }], end: undefined },
  ]);
  await lw.start();
  await until(() => calls.length === 5);
  lw.stop();
  assert.deepEqual(
    calls.map((c) => [c.kind, c.query.resourceVersion]),
    [
      ['list', undefined],
      ['watch', '20'],
      ['watch', '27'],
      ['list', undefined],
      ['watch', '30'],
    ],
  );
  assert.deepEqual(seen, ['listed a20', 'ADDED b', 'listed a30']);
});

test('a failed watch is reported and lists again (the server may have restarted on other data), then recovers', async () => {
  const { lw, calls, seen } = run([
    { open: false, end: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) },
  ]);
  await lw.start();
  await until(() => seen.includes('recovered'));
  lw.stop();
  assert.deepEqual(
    calls.map((c) => [c.kind, c.query.resourceVersion]),
    [
      ['list', undefined],
      ['watch', '20'],
      ['list', undefined],
      ['watch', '30'],
    ],
  );
  assert.deepEqual(seen, ['listed a20', 'failed Error: socket hang up', 'listed a30', 'recovered']);
  assert.equal(lw.lists, 2);
});

test('an ERROR event that refuses the version ("Too large resource version", a fresh etcd) is a failure: listed again after a back-off', async () => {
  const tooLarge = {
    kind: 'Status',
    code: 504,
    reason: 'Timeout',
    message: 'Timeout: Too large resource version: 230, current: 199',
  };
  const { lw, calls, seen } = run([
    { events: [{ type: 'ERROR', object: tooLarge as unknown as Obj }], end: undefined },
  ]);
  await lw.start();
  await until(() => seen.includes('recovered'));
  lw.stop();
  assert.deepEqual(
    calls.map((c) => [c.kind, c.query.resourceVersion]),
    [
      ['list', undefined],
      ['watch', '20'],
      ['list', undefined],
      ['watch', '30'],
    ],
  );
  assert.deepEqual(seen, ['listed a20', 'failed 504', 'listed a30', 'recovered']);
});

test('failures back off with jitter: each delay is half to all of the doubled one, capped at maxRetryMs', async (t) => {
  const delays: number[] = [];
  const realSetTimeout = globalThis.setTimeout;
  // Run every timer at once, recording what was asked: the delays, not the clock, are under test.
  t.mock.method(globalThis, 'setTimeout', ((fn: () => void, ms?: number) => {
    if ((ms ?? 0) > 10) delays.push(ms ?? 0); // not the 5 ms polls of until()
    return realSetTimeout(fn, (ms ?? 0) > 10 ? 0 : ms);
  }) as typeof setTimeout);
  let attempts = 0;
  const client = {
    async get() {
      attempts++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    },
  } as unknown as KubeClient;
  const failures: unknown[] = [];
  const lw = new ListWatch<Obj>(
    client,
    { path: '/api/v1/nodes', selector: {}, retryMs: 1000, maxRetryMs: 4000 },
    { listed: () => undefined, event: () => undefined, failed: (e) => failures.push(e), recovered: () => undefined },
  );
  await lw.start();
  await until(() => attempts >= 8);
  lw.stop();
  const nominal = [1000, 2000, 4000, 4000, 4000, 4000, 4000];
  const asked = delays.slice(0, nominal.length);
  asked.forEach((d, i) =>
    assert.ok(
      d >= nominal[i] / 2 && d <= nominal[i],
      `delay ${i + 1}: ${d} ms, expected ${nominal[i] / 2}–${nominal[i]}`,
    ),
  );
  assert.ok(new Set(asked.slice(2)).size > 1, `jittered, not one fixed delay at the cap: ${asked.join(', ')}`);
  assert.ok(failures.length >= 7);
  assert.equal(lw.lists, 0);
});
