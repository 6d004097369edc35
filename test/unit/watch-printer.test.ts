// What `nodes --watch` and `pods --watch` print (src/core/watch-printer.ts) and the pods list's words
// (src/core/pod-listing.ts): kubectl's table then one row per change, no line for what did not change
// (a heartbeat, a list made again after a reconnect), DELETED for what went while the server was away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeNames, nodeTable, printedNode, type ListedNode } from '../../src/core/node-listing';
import { isWindowsPod, podStatus, podRestarts, podTable, type ListedPod } from '../../src/core/pod-listing';
import { WatchPrinter, type WatchFormat, type WatchListing } from '../../src/core/watch-printer';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const HOUR = 3_600_000;

function node(name: string, ready = true, rv = '1', extra: Partial<ListedNode> = {}): ListedNode {
  return {
    metadata: {
      name,
      creationTimestamp: new Date(NOW - 5 * HOUR).toISOString(),
      labels: { 'node.kubernetes.io/windows-build': '10.0.20348' },
      resourceVersion: rv,
    } as ListedNode['metadata'],
    status: {
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      nodeInfo: { kubeletVersion: 'v1.35.4' },
    },
    ...extra,
  };
}

const nodes: WatchListing<ListedNode> = {
  key: (n) => n.metadata?.name ?? '',
  table: (ns, now) => nodeTable(ns, now, false),
  name: (n) => nodeNames([n]),
  printed: printedNode,
};

const printer = (format: WatchFormat, events = false) => new WatchPrinter(nodes, format, events);

test('the table first, aligned as kubectl aligns it, then one row per change under the same columns', () => {
  const p = printer('table');
  const first = p.start([node('win-b'), node('win-a')], NOW);
  assert.deepEqual(first.split('\n'), [
    'NAME    STATUS   ROLES    AGE   VERSION   WINDOWS',
    'win-a   Ready    <none>   5h    v1.35.4   Windows Server 2022 (10.0.20348)',
    'win-b   Ready    <none>   5h    v1.35.4   Windows Server 2022 (10.0.20348)',
    '',
  ]);
  assert.equal(
    p.event('MODIFIED', node('win-a', false, '2'), NOW),
    'win-a   NotReady   <none>   5h    v1.35.4   Windows Server 2022 (10.0.20348)\n',
  );
});

test('a change that leaves the row as it was prints nothing; a later age does not count as a change', () => {
  const p = printer('table');
  p.start([node('win-a')], NOW);
  assert.equal(p.event('MODIFIED', node('win-a', true, '7'), NOW + HOUR), '');
  assert.notEqual(p.event('MODIFIED', node('win-a', false, '8'), NOW + HOUR), '');
});

test('a list made again after a reconnect prints only the differences: gone DELETED, new ADDED, changed MODIFIED', () => {
  const p = printer('table', true);
  const first = p.start([node('win-a'), node('win-b'), node('win-c')], NOW).split('\n');
  assert.equal(first[0].split(/\s+/)[0], 'EVENT');
  assert.ok(first.slice(1, 4).every((l) => l.startsWith('ADDED')));
  // Same data (resourceVersions continue, or start over on a fresh etcd): nothing at all.
  assert.equal(p.sync([node('win-c', true, '900'), node('win-a', true, '901'), node('win-b', true, '3')], NOW), '');
  const lines = p
    .sync([node('win-a'), node('win-c', false, '5'), node('win-d')], NOW)
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/\s+/).slice(0, 3).join(' '));
  assert.deepEqual(lines, ['MODIFIED win-c NotReady', 'ADDED win-d Ready', 'DELETED win-b Ready']);
  // Deleted once: an event for it after that prints nothing.
  assert.equal(p.event('DELETED', node('win-b'), NOW), '');
});

test('nothing at first: the header comes with the first row', () => {
  const p = printer('table');
  assert.equal(p.start([], NOW), '');
  assert.match(p.event('ADDED', node('win-a'), NOW), /^NAME\s+STATUS.*\nwin-a\s+Ready/);
  assert.doesNotMatch(p.event('ADDED', node('win-b'), NOW), /NAME/);
});

test('-o name: one line per object added or deleted; -o json: each object, or each {type, object} event', () => {
  const names = printer('name', true);
  assert.equal(names.start([node('win-a')], NOW), 'ADDED node/win-a\n');
  assert.equal(names.event('MODIFIED', node('win-a', false, '2'), NOW), '', 'the line did not change');
  assert.equal(names.event('DELETED', node('win-a'), NOW), 'DELETED node/win-a\n');

  const json = printer('json');
  const out = json.start([node('win-a')], NOW);
  assert.equal(JSON.parse(out).kind, 'Node');
  assert.match(out, /^\{\n {4}"apiVersion": "v1",/);
  assert.equal(json.sync([node('win-a', true, '99')], NOW), '', 'only the resourceVersion differs');
  const events = printer('json', true);
  events.start([], NOW);
  const e = JSON.parse(events.event('ADDED', node('win-a'), NOW));
  assert.equal(e.type, 'ADDED');
  assert.equal(e.object.metadata.name, 'win-a');
});

test('-o yaml: documents separated by ---, as kubectl prints several objects', () => {
  const p = printer('yaml');
  const out = p.start([node('win-a'), node('win-b')], NOW) + p.event('MODIFIED', node('win-a', false, '2'), NOW);
  const docs = out.split(/^---\n/m);
  assert.equal(docs.length, 3);
  assert.ok(
    docs.every((d) => /^apiVersion: v1\nkind: Node\n/.test(d)),
    out,
  );
});

function pod(name: string, extra: Partial<ListedPod> = {}): ListedPod {
  return {
    metadata: { name, namespace: 'web', creationTimestamp: new Date(NOW - 2 * HOUR).toISOString() },
    spec: { nodeName: 'win-a', containers: [{}, {}] },
    status: {
      phase: 'Running',
      podIP: '10.1.0.7',
      containerStatuses: [
        { ready: true, restartCount: 0, state: { running: {} } },
        { ready: true, restartCount: 0, state: { running: {} } },
      ],
    },
    ...extra,
  };
}

test("the pods table: kubectl's columns, NAMESPACE first for every namespace, the wide columns", () => {
  assert.deepEqual(podTable([pod('iis-1')], NOW, { wide: false, allNamespaces: false }), [
    ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
    ['iis-1', '2/2', 'Running', '0', '120m'],
  ]);
  assert.deepEqual(podTable([pod('iis-1')], NOW, { wide: true, allNamespaces: true }), [
    ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
    ['web', 'iis-1', '2/2', 'Running', '0', '120m', '10.1.0.7', 'win-a', '<none>', '<none>'],
  ]);
});

test("a pod's STATUS and RESTARTS as kubectl words them", () => {
  const waiting = pod('a', {
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          ready: false,
          restartCount: 4,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, finishedAt: new Date(NOW - 5 * 60_000).toISOString() } },
        },
      ],
    },
  });
  assert.equal(podStatus(waiting), 'CrashLoopBackOff');
  assert.equal(podRestarts(waiting, NOW), '4 (5m ago)');
  const init = pod('b', {
    spec: { containers: [{}], initContainers: [{}, {}] },
    status: {
      phase: 'Pending',
      initContainerStatuses: [
        { state: { terminated: { exitCode: 0 } } },
        { state: { waiting: { reason: 'PodInitializing' } } },
      ],
    },
  });
  assert.equal(podStatus(init), 'Init:1/2');
  assert.equal(podStatus(pod('c', { metadata: { name: 'c', deletionTimestamp: 'x' } })), 'Terminating');
  const failed = pod('d', {
    status: { phase: 'Running', containerStatuses: [{ state: { terminated: { exitCode: 137, signal: 9 } } }] },
  });
  assert.equal(podStatus(failed), 'Signal:9');
});

test('a Windows pod: on a Windows node, or unscheduled and asking for Windows', () => {
  const windows = new Set(['win-a']);
  assert.ok(isWindowsPod(pod('a'), windows));
  assert.ok(!isWindowsPod(pod('b', { spec: { nodeName: 'linux-1' } }), windows));
  assert.ok(isWindowsPod(pod('c', { spec: { os: { name: 'windows' } } }), windows));
  assert.ok(isWindowsPod(pod('d', { spec: { nodeSelector: { 'kubernetes.io/os': 'windows' } } }), windows));
  assert.ok(!isWindowsPod(pod('e', { spec: {} }), windows));
});
