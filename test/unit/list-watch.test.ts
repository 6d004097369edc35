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

test('a failed watch is reported, retried from the same version, and recovered once the server accepts it', async () => {
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
      ['watch', '20'],
    ],
  );
  assert.deepEqual(seen, ['listed a20', 'failed Error: socket hang up', 'recovered']);
});
