// The pods of a Windows node, watched (src/cluster/node-pods.ts over list-watch.ts) and shown in the
// tree's Pods group (src/views/cluster-tree.ts), against the Kubernetes API emulator: the requests as the
// emulator logged them, events applied without a re-list, a watch the server ends resumed from the
// last resourceVersion, 410 Gone listed again, a dropped connection retried with backoff, collapse.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject, type RequestLogEntry } from '../support/kube-api-emulator';
import { mixedCluster, pod } from '../support/kube-seed';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession } from '../../src/cluster/session';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import type { NodePodWatch, PodChange } from '../../src/cluster/node-pods';
import { ask, byLabel, waitFor } from '../support/tree-view';

const NODE = 'winworker-2022-b';
let emu: Emulator;
let tmp: string;
const sessions: ClusterSession[] = [];
const trees: ClusterTree[] = [];

before(async () => {
  emu = await startEmulator({
    objects: mixedCluster(),
    openshift: true,
    bookmarkIntervalMs: 60_000,
    tokens: { 'no-pods': { user: 'no-pods', deny: [{ verb: 'list', resource: 'pods' }] } },
  });
  tmp = mkdtempSync(join(tmpdir(), 'kw-live-pods-'));
});

after(async () => {
  for (const t of trees) t.dispose();
  for (const s of sessions) s.dispose();
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function session(
  context: string,
  opts: { watchTimeoutSeconds?: number; retryMs?: number; token?: string } = {},
): ClusterSession {
  const load = loadKubeconfig({
    explicit: emu.kubeconfig({ context, file: join(tmp, context), ...(opts.token ? { token: opts.token } : {}) }),
  });
  assert.ok(load.ok, !load.ok ? load.message : '');
  const s = new ClusterSession(context, load.config, {
    timeoutMs: 5000,
    retryMs: opts.retryMs ?? 100,
    watchTimeoutSeconds: opts.watchTimeoutSeconds,
  });
  sessions.push(s);
  return s;
}

function tree(context: string): ClusterTree {
  const t = new ClusterTree({
    locate: { explicit: emu.kubeconfig({ context, file: join(tmp, `tree-${context}`) }) },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
  });
  trees.push(t);
  return t;
}

const query = (r: RequestLogEntry) => new URLSearchParams(r.query);
const isWatch = (r: RequestLogEntry) => query(r).get('watch') === 'true';
const podRequests = (node: string, watch: boolean) =>
  emu.requests.filter(
    (r) =>
      r.path === '/api/v1/pods' && query(r).get('fieldSelector') === `spec.nodeName=${node}` && isWatch(r) === watch,
  );

function nextChange(w: NodePodWatch, pred: (c: PodChange) => boolean = () => true, ms = 5000): Promise<PodChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      w.off('change', on);
      reject(new Error('no pod change in time'));
    }, ms);
    const on = (c: PodChange) => {
      if (!pred(c)) return;
      clearTimeout(timer);
      w.off('change', on);
      resolve(c);
    };
    w.on('change', on);
  });
}

const names = (w: NodePodWatch) => w.pods().map((e) => `${e.view.namespace}/${e.view.name}`);
const winPod = (name: string, node = NODE, extra: Partial<KubeObject> = {}): KubeObject => ({
  ...pod(name, 'win-apps', node, { windows: true }),
  ...extra,
});

test('one paged list with the spec.nodeName field selector, then a watch from its resourceVersion with bookmarks and a timeout', async () => {
  const s = session('requests', { watchTimeoutSeconds: 120 });
  const before = emu.requests.length;
  const w = s.podWatch(NODE);
  await w.start();
  assert.deepEqual(names(w), ['win-apps/iis-7c9d5f8b6-abcde']);
  await waitFor('the watch request', () => podRequests(NODE, true).some((r) => emu.requests.indexOf(r) >= before));
  const mine = emu.requests.slice(before).filter((r) => r.path === '/api/v1/pods');
  const [list, watch] = mine.map(query);
  assert.equal(mine.length, 2, mine.map((r) => r.query).join(' | '));
  assert.equal(list.get('fieldSelector'), `spec.nodeName=${NODE}`);
  assert.equal(list.get('limit'), '250');
  assert.equal(list.get('watch'), null);
  assert.equal(watch.get('fieldSelector'), `spec.nodeName=${NODE}`);
  assert.equal(watch.get('watch'), 'true');
  assert.equal(watch.get('allowWatchBookmarks'), 'true');
  assert.equal(watch.get('timeoutSeconds'), '120');
  assert.match(watch.get('resourceVersion') ?? '', /^\d+$/);
  assert.ok(
    emu.requests.every((r) => r.path !== '/api/v1/pods' || query(r).get('fieldSelector')),
    'never a cluster-wide pod list',
  );
  s.dispose();
});

test('created, changed and deleted pods arrive by watch without a re-list; pods of other nodes never do', async () => {
  const s = session('events');
  const w = s.podWatch(NODE);
  await w.start();
  const lists = podRequests(NODE, false).length;
  const changes: PodChange[] = [];
  w.on('change', (c) => changes.push(c));

  emu.apply(winPod('web-1', 'winworker-2019-a'));
  const added = nextChange(w);
  emu.apply(winPod('web-2'));
  await added;
  assert.deepEqual(names(w), ['win-apps/iis-7c9d5f8b6-abcde', 'win-apps/web-2']);
  assert.equal(changes.length, 1, 'the pod on the other node is no change here');

  const modified = nextChange(w);
  emu.patch('Pod', 'web-2', 'win-apps', {
    status: {
      containerStatuses: [
        { name: 'web', ready: true, restartCount: 3, image: 'x', imageID: '', state: { running: {} } },
      ],
    },
  });
  await modified;
  const view = w.pods().find((e) => e.view.name === 'web-2')?.view;
  assert.deepEqual([view?.readyCount, view?.containerCount, view?.restarts, view?.ready], [1, 1, 3, true]);

  const removed = nextChange(w);
  emu.remove('Pod', 'web-2', 'win-apps');
  await removed;
  assert.deepEqual(names(w), ['win-apps/iis-7c9d5f8b6-abcde']);
  assert.equal(podRequests(NODE, false).length, lists, 'no re-list');
  assert.equal(w.lists, 1);
  emu.remove('Pod', 'web-1', 'win-apps');
  s.dispose();
});

test('a watch the server ends at its timeout resumes from the last resourceVersion, with no re-list', async () => {
  const s = session('resume', { watchTimeoutSeconds: 1 });
  const w = s.podWatch(NODE);
  await w.start();
  const added = nextChange(w);
  const created = emu.apply(winPod('resume-1'));
  await added;
  const rv = Number(created.metadata.resourceVersion);
  const watchesBefore = podRequests(NODE, true).length;
  await waitFor('a resumed watch', () => podRequests(NODE, true).length > watchesBefore, 5000);
  const resumed = query(podRequests(NODE, true).at(-1) as RequestLogEntry);
  // The emulator, as the real server, sends a last bookmark at the timeout: the version may be newer.
  assert.ok(
    Number(resumed.get('resourceVersion')) >= rv,
    `resumed from ${resumed.get('resourceVersion')}, the pod was ${rv}`,
  );
  assert.equal(w.lists, 1, 'resumed, not listed again');
  const again = nextChange(w);
  emu.apply(winPod('resume-2'));
  await again;
  assert.ok(names(w).includes('win-apps/resume-2'));
  emu.remove('Pod', 'resume-1', 'win-apps');
  emu.remove('Pod', 'resume-2', 'win-apps');
  s.dispose();
});

test('410 Gone (the resourceVersion compacted away) lists again and catches up', async () => {
  const s = session('gone', { watchTimeoutSeconds: 1 });
  const w = s.podWatch(NODE);
  await w.start();
  const listsBefore = podRequests(NODE, false).length;
  // Changes missed while the watch is down, then compaction: the resumed watch gets an ERROR 410.
  emu.setFault({ path: /watch=true/, dropConnection: true });
  await nextChange(w, (c) => c.type === 'error', 5000);
  emu.apply(winPod('gone-1'));
  emu.compact();
  emu.setFault(undefined);
  await waitFor('the re-list', () => w.lists === 2 && names(w).includes('win-apps/gone-1'), 10_000);
  assert.equal(podRequests(NODE, false).length, listsBefore + 1);
  assert.equal(w.error, undefined);
  emu.remove('Pod', 'gone-1', 'win-apps');
  s.dispose();
});

test('a dropped connection is an error the caller can show, retried with growing delays, then listed again and watched', async () => {
  const s = session('dropped', { watchTimeoutSeconds: 1, retryMs: 300 });
  const w = s.podWatch(NODE);
  await w.start();
  const errors: PodChange[] = [];
  w.on('change', (c) => c.type === 'error' && errors.push(c));
  emu.setFault({ path: /watch=true/, dropConnection: true });
  // Times at which the emulator saw watch attempts during the fault.
  const seen: number[] = [];
  let count = podRequests(NODE, true).length;
  const end = Date.now() + 8000;
  while (Date.now() < end && seen.length < 4) {
    const n = podRequests(NODE, true).length;
    if (n > count) seen.push(Date.now());
    count = n;
    await new Promise((r) => setTimeout(r, 5));
  }
  emu.setFault(undefined);
  assert.ok(seen.length >= 4, `${seen.length} attempts`);
  const gaps = seen.slice(1).map((t, i) => t - seen[i]);
  // 300, 600, 1200 ms apart less a jitter of up to half, plus a list and a TLS handshake on a busy machine.
  assert.ok(gaps[0] >= 150 && gaps[1] >= 300 && gaps[2] >= 600, `backoff doubles: gaps ${gaps.join(', ')} ms`);
  assert.ok(errors.length >= 1);
  const e = errors[0];
  assert.ok(e.type === 'error' && e.error.reason === 'unreachable', JSON.stringify(e));
  assert.ok(e.type === 'error' && !/\n\s+at /.test(e.error.message), 'no stack trace');
  await waitFor('the recovery', () => w.error === undefined, 10_000);
  emu.apply(winPod('after-drop'));
  await waitFor('the new pod by watch', () => names(w).includes('win-apps/after-drop'), 10_000);
  // Each failed watch was followed by a list (the server that answers next may have restarted on other data).
  assert.ok(w.lists >= 1 + seen.length - 1, `listed again after the failures: ${w.lists} lists`);
  emu.remove('Pod', 'after-drop', 'win-apps');
  s.dispose();
});

/** Expands the tree down to a node's Pods group, as the view does. */
async function podsGroup(t: ClusterTree, node = NODE): Promise<TreeNode> {
  const [root] = await ask(t);
  const nodes = await ask(t, byLabel(await ask(t, root), 'Windows nodes'));
  return byLabel(await ask(t, byLabel(nodes, node)), 'Pods');
}

test('tree: expanding the Pods group starts the watch; a new pod fires the change of that group only; rows show phase, ready, restarts, age', async () => {
  const t = tree('tree-live');
  const group = await podsGroup(t);
  assert.deepEqual(t.watchedPodNodes('tree-live'), [], 'nothing watched before the group is expanded');
  const first = await ask(t, group);
  assert.deepEqual(t.watchedPodNodes('tree-live'), [NODE]);
  assert.deepEqual(
    first.map((p) => [p.id, p.label, p.contextValue]),
    [[`ctx/tree-live/node/${NODE}/pods/win-apps/iis-7c9d5f8b6-abcde`, 'iis-7c9d5f8b6-abcde', 'pod']],
  );
  assert.deepEqual(first[0].ref, {
    kind: 'pod',
    context: 'tree-live',
    node: NODE,
    namespace: 'win-apps',
    name: 'iis-7c9d5f8b6-abcde',
  });

  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  await new Promise((r) => setTimeout(r, 250)); // the view's settle time after its last answer
  const created = new Date(Date.now() - 5 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const body = winPod('live-1', NODE, {});
  (body.metadata as Record<string, unknown>).creationTimestamp = created;
  body.status = {
    phase: 'Running',
    containerStatuses: [
      { name: 'live', ready: true, restartCount: 3, image: 'x', imageID: '', state: { running: {} } },
    ],
  };
  const t0 = Date.now();
  emu.apply(body);
  await waitFor('the Pods group change', () => changes.includes(group.id));
  const rows = await ask(t, group);
  const ms = Date.now() - t0;
  assert.ok(ms < 1000, `shown after ${ms} ms`);
  assert.deepEqual(changes, [group.id], 'only the Pods group changed');
  const row = byLabel(rows, 'live-1');
  assert.equal(row.description, 'Running · 1/1 · 3 restarts · 5m');
  assert.equal(row.icon.id, 'pass');
  assert.match(row.tooltip, /Namespace: win\\-apps/);
  assert.match(row.tooltip, /mcr\.microsoft\.com\/windows\/servercore:ltsc2022/);
  emu.remove('Pod', 'live-1', 'win-apps');
  await waitFor('the removal', async () => !(await ask(t, group)).some((p) => p.label === 'live-1'));
});

test('tree: a pod the failure signatures explain carries the badge (icon and title) and the explanation in its tooltip', async () => {
  const t = tree('tree-badge');
  const group = await podsGroup(t);
  await ask(t, group);
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  const body = winPod('mismatch-1', NODE);
  (body.spec as { containers: { image: string }[] }).containers[0].image =
    'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019';
  body.status = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'mismatch',
        ready: false,
        restartCount: 0,
        image: '',
        imageID: '',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message:
              'hcs::CreateComputeSystem mismatch: The container operating system does not match the host operating system.: unknown',
          },
        },
      },
    ],
  };
  emu.apply(body);
  await waitFor('the Pods group change', () => changes.includes(group.id));
  const row = byLabel(await ask(t, group), 'mismatch-1');
  assert.deepEqual(row.icon, { id: 'error', color: 'problemsErrorIcon.foreground' });
  assert.match(
    row.description ?? '',
    /^Pending · 0\/1 · 0 restarts · \d+[smhd] · Image and node Windows builds differ/,
  );
  assert.match(row.tooltip, /\$\(error\) \*\*WINF001\*\*/);
  assert.match(row.tooltip, /10\\\.0\\\.20348/, 'worded with the node build');
  assert.match(row.tooltip, /Reason: CreateContainerError/);
  emu.remove('Pod', 'mismatch-1', 'win-apps');
});

test('tree: collapsing the Pods group stops its watch and marks it stale; expanding asks and watches again', async () => {
  const t = tree('tree-collapse');
  const group = await podsGroup(t);
  await ask(t, group);
  assert.deepEqual(t.watchedPodNodes('tree-collapse'), [NODE]);
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  await new Promise((r) => setTimeout(r, 250));
  t.collapsed(group);
  assert.deepEqual(t.watchedPodNodes('tree-collapse'), []);
  await waitFor('the stale mark', () => changes.includes(group.id));
  changes.length = 0;
  emu.apply(winPod('while-collapsed'));
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(changes, [], 'a stopped watch fires nothing');
  const rows = await ask(t, group);
  assert.ok(
    rows.some((p) => p.label === 'while-collapsed'),
    'asked again on expand',
  );
  assert.deepEqual(t.watchedPodNodes('tree-collapse'), [NODE]);
  // Collapsing anything else stops nothing.
  t.collapsed(byLabel(await ask(t, (await ask(t))[0]), 'Windows nodes'));
  assert.deepEqual(t.watchedPodNodes('tree-collapse'), [NODE]);
  emu.remove('Pod', 'while-collapsed', 'win-apps');
});

test('tree: a node that disappears stops its pod watch; refresh and dispose stop them all', async () => {
  const t = tree('tree-gone');
  emu.apply({
    ...(mixedCluster().find((o) => o.kind === 'Node' && o.metadata.name === NODE) as KubeObject),
    metadata: {
      name: 'winworker-2022-z',
      labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
    },
  });
  const group = await podsGroup(t, 'winworker-2022-z');
  assert.deepEqual(await ask(t, group).then((rows) => rows.map((r) => r.label)), ['No pods']);
  await ask(t, await podsGroup(t, NODE));
  assert.deepEqual(t.watchedPodNodes('tree-gone').sort(), [NODE, 'winworker-2022-z']);
  emu.remove('Node', 'winworker-2022-z');
  await waitFor(
    'the watch of the deleted node to stop',
    () => !t.watchedPodNodes('tree-gone').includes('winworker-2022-z'),
  );
  const watches = podRequests('winworker-2022-z', true).length;
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(podRequests('winworker-2022-z', true).length, watches, 'no new watch for it');
  const session = (t as unknown as { manager: { session(c: string): ClusterSession } }).manager.session('tree-gone');
  t.refresh();
  assert.deepEqual(session.watchedPodNodes, [], 'refresh stops the watches of the sessions it drops');
});

test('tree: pods the user may not list are an error item naming the permission, no stack trace', async () => {
  const s = session('no-pods', { token: 'no-pods' });
  const w = s.podWatch(NODE);
  await w.start();
  assert.equal(w.error?.reason, 'forbidden');
  assert.deepEqual(w.error?.permission, { verb: 'list', resource: 'pods' });
  assert.match(w.error?.message ?? '', /not allowed to list pods/);
  assert.ok(!/\n\s+at /.test(w.error?.message ?? ''));
  const t = new ClusterTree({
    locate: {
      explicit: emu.kubeconfig({ context: 'no-pods-tree', token: 'no-pods', file: join(tmp, 'no-pods-tree') }),
    },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
  });
  trees.push(t);
  const rows = await ask(t, await podsGroup(t));
  assert.equal(rows.length, 1);
  assert.equal(rows[0].contextValue, 'error');
  assert.match(rows[0].label, /^pods of node winworker-2022-b: permission denied$/);
  assert.deepEqual(rows[0].command?.id, 'kubeWindows.retry');
});
