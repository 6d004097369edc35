// The cluster explorer's tree model (src/views/cluster-tree.ts) against the Kubernetes API emulator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { mixedCluster, windowsNode, WMCO_NAMESPACE } from '../support/kube-seed';
import { ClusterTree, type ClusterTreeOptions } from '../../src/views/cluster-tree';
import type { NodeServicesAnswer } from '../../src/cluster/windows-nodes';
import { ask, byLabel, waitFor } from '../support/tree-view';

let emu: Emulator;
let tmp: string;
const trees: ClusterTree[] = [];

before(async () => {
  emu = await startEmulator({
    objects: mixedCluster(),
    openshift: true,
    tokens: {
      'limited-token': { user: 'limited', deny: [{ verb: 'list', resource: 'configmaps', namespace: WMCO_NAMESPACE }] },
    },
  });
  tmp = mkdtempSync(join(tmpdir(), 'kw-tree-'));
});

after(async () => {
  for (const t of trees) t.dispose();
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function tree(kubeconfig: string, options: Omit<ClusterTreeOptions, 'locate'> = {}): ClusterTree {
  // Answers in full unless a test asks for loading rows (their own tests below).
  const t = new ClusterTree({
    locate: { explicit: kubeconfig },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
    ...options,
  });
  trees.push(t);
  return t;
}

const windowsNodeLists = () =>
  emu.requests.filter(
    (r) =>
      r.path === '/api/v1/nodes' &&
      r.query.includes('kubernetes.io%2Fos%3Dwindows') &&
      !r.query.includes('watch=true') &&
      !r.query.includes('limit='),
  ).length;

test('roots are the kubeconfig contexts, listed without any request to the cluster', async () => {
  const before = emu.requests.length;
  const t = tree(emu.kubeconfig({ context: 'lazy', file: join(tmp, 'lazy') }));
  const roots = await ask(t);
  assert.deepEqual(
    roots.map((r) => [r.id, r.label, r.contextValue, r.collapsible]),
    [['ctx/lazy', 'lazy', 'cluster', 'expanded']],
  );
  assert.match(roots[0].description ?? '', /current/);
  assert.match(roots[0].tooltip, /current context/);
  assert.equal(t.noKubeconfig, false);
  assert.equal(t.activeContext, 'lazy');
  assert.equal(emu.requests.length, before, 'no request before the children of a cluster are asked');
});

test('initial load: info line, Windows nodes with builds, BYOH not joined, mirror sets, RuntimeClasses; a snapshot', async () => {
  const t = tree(emu.kubeconfig({ context: 'mixed', file: join(tmp, 'mixed') }), { snapshotThrottleMs: 50 });
  const snapshots: unknown[] = [];
  t.onSnapshot((s) => snapshots.push(s));
  const [root] = await ask(t);
  const kids = await ask(t, root);
  assert.match(kids[0].label, /^v1\.\d+\.\d+.* · OpenShift · WMCO 10\.18\.0 Succeeded · 3 Linux \/ 3 Windows nodes$/);
  assert.deepEqual(
    kids.slice(1).map((k) => k.label),
    [
      'Windows nodes',
      'Windows MachineSets',
      'BYOH instances',
      'Mirror sets',
      'Windows RuntimeClasses',
      'Admission policies',
    ],
  );
  assert.equal(t.item('ctx/mixed')?.contextValue, 'cluster.openshift');

  const nodes = await ask(t, byLabel(kids, 'Windows nodes'));
  assert.deepEqual(
    nodes.map((n) => [n.id, n.description, n.contextValue, n.icon.color]),
    [
      ['ctx/mixed/node/byoh-win2022-1', 'Windows Server 2022 · Ready · BYOH', 'windowsNode', 'testing.iconPassed'],
      ['ctx/mixed/node/winworker-2019-a', 'Windows Server 2019 · Ready', 'windowsNode', 'testing.iconPassed'],
      ['ctx/mixed/node/winworker-2022-b', 'Windows Server 2022 · Ready', 'windowsNode', 'testing.iconPassed'],
    ],
  );
  assert.match(nodes[1].tooltip, /build 10\\\.0\\\.17763/);
  const yaml = (await nodes[1].yaml?.()) as { kind?: string; metadata?: { name?: string; managedFields?: unknown } };
  assert.equal(yaml.kind, 'Node');
  assert.equal(yaml.metadata?.name, 'winworker-2019-a');
  assert.equal(yaml.metadata?.managedFields, undefined);

  // Node children: conditions, taints, then the pods asked with a field selector.
  const details = await ask(t, nodes[2]);
  assert.ok(details.some((d) => d.label === 'Ready: True'));
  assert.ok(details.some((d) => d.label === 'os=Windows:NoSchedule'));
  const pods = await ask(t, byLabel(details, 'Pods'));
  assert.deepEqual(
    pods.map((p) => [p.id, p.contextValue]),
    [['ctx/mixed/node/winworker-2022-b/pods/win-apps/iis-7c9d5f8b6-abcde', 'pod']],
  );
  assert.ok(
    emu.requests.some(
      (r) => r.path === '/api/v1/pods' && r.query.includes('fieldSelector=spec.nodeName%3Dwinworker-2022-b'),
    ),
  );
  assert.ok(
    emu.requests.every((r) => r.path !== '/api/v1/pods' || r.query.includes('fieldSelector=')),
    'never a cluster-wide pod list',
  );
  assert.ok(
    !details.some((d) => d.label === 'Services'),
    'no Services group without a services source (the CLI, plain trees)',
  );

  const byoh = await ask(t, byLabel(kids, 'BYOH instances'));
  assert.deepEqual(
    byoh.map((b) => [b.label, b.description, b.contextValue]),
    [
      ['10.0.140.12', 'joined as byoh-win2022-1', 'byohInstance'],
      ['10.0.140.25', 'not joined', 'byohInstance'],
    ],
  );
  const mirrors = await ask(t, byLabel(kids, 'Mirror sets'));
  assert.deepEqual(
    mirrors.map((m) => [m.label, m.description, m.contextValue]),
    [['windows-mirrors', 'ImageDigestMirrorSet', 'mirrorSet']],
  );
  const rcs = await ask(t, byLabel(kids, 'Windows RuntimeClasses'));
  assert.deepEqual(
    rcs.map((r) => r.label),
    ['windows2019', 'windows2022'],
  );
  assert.equal(rcs[1].contextValue, 'runtimeClass');
  assert.match(rcs[1].description ?? '', /build 10\.0\.20348/);

  await waitFor('a snapshot', () => snapshots.length > 0);
  const snap = snapshots[0] as { name: string; flavour: string; windowsNodes: { name: string; build: string }[] };
  assert.equal(snap.name, 'mixed');
  assert.equal(snap.flavour, 'openshift');
  assert.equal(snap.windowsNodes.length, 3);
});

test('a node going NotReady updates only its item, without a re-list; a new node refreshes the group', async () => {
  const t = tree(emu.kubeconfig({ context: 'watch', file: join(tmp, 'watch') }));
  const [root] = await ask(t);
  const kids = await ask(t, root);
  const group = byLabel(kids, 'Windows nodes');
  const nodes = await ask(t, group);
  const item = byLabel(nodes, 'winworker-2022-b');
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  const lists = windowsNodeLists();

  emu.patch('Node', 'winworker-2022-b', undefined, {
    status: {
      conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' }],
    },
  });
  await waitFor('the node change', () => changes.includes(item.id));
  assert.deepEqual(changes, [item.id], 'only that item');
  assert.equal(windowsNodeLists(), lists, 'no re-list');
  // The same descriptor object now shows the new state (the view refreshes it by identity).
  assert.equal(t.item(item.id), item);
  assert.equal(item.description, 'Windows Server 2022 · NotReady');
  assert.equal(item.icon.color, 'problemsErrorIcon.foreground');

  changes.length = 0;
  emu.apply(windowsNode('winworker-2025-c', { build: '10.0.26100', address: '10.0.132.7' }));
  await waitFor('the group change', () => changes.includes(group.id));
  const after = await ask(t, group);
  assert.ok(after.some((n) => n.label === 'winworker-2025-c' && n.description === 'Windows Server 2025 · Ready'));
  assert.equal(windowsNodeLists(), lists, 'still no re-list');

  emu.remove('Node', 'winworker-2025-c');
  emu.patch('Node', 'winworker-2022-b', undefined, {
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
  });
});

test('403 on the windows-instances ConfigMap: an error item naming the permission, the rest works', async () => {
  const t = tree(emu.kubeconfig({ context: 'limited', token: 'limited-token', file: join(tmp, 'limited') }));
  const [root] = await ask(t);
  const kids = await ask(t, root);
  const nodes = await ask(t, byLabel(kids, 'Windows nodes'));
  assert.ok(nodes.filter((n) => n.contextValue === 'windowsNode').length >= 3);
  const byoh = await ask(t, byLabel(kids, 'BYOH instances'));
  assert.equal(byoh.length, 1);
  const [err] = byoh;
  assert.equal(err.contextValue, 'error');
  assert.match(err.label, /permission denied/);
  assert.match(
    err.description ?? '',
    /not allowed to list configmaps in namespace "openshift-windows-machine-config-operator"/,
  );
  assert.ok(!JSON.stringify(err).includes('limited-token'));
  assert.deepEqual(err.command && [err.command.id, err.command.args], ['kubeWindows.retry', [err.id]]);
  // Retry asks the group again.
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  t.retry(err.id);
  // (Once the view is done loading below the group: it answered just now.)
  await waitFor('the group change', () => changes.length > 0);
  assert.deepEqual(changes, ['ctx/limited/group/byoh']);
});

test('a cluster that does not answer: one error item, quickly', async () => {
  const t = tree(emu.kubeconfig({ context: 'silent', file: join(tmp, 'silent') }), { session: { timeoutMs: 300 } });
  emu.setFault({ hangMs: 1500, path: /^\/version$/ });
  try {
    const [root] = await ask(t);
    const t0 = Date.now();
    const kids = await ask(t, root);
    assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
    assert.equal(kids.length, 1);
    assert.equal(kids[0].contextValue, 'error');
    assert.equal(kids[0].id, 'ctx/silent/error');
    // The cause in one line, when it is tried again, the whole message in the tooltip.
    assert.equal(kids[0].label, 'No answer: timeout after 300 ms');
    assert.match(kids[0].description ?? '', /^retrying at \d\d:\d\d:\d\d$/);
    assert.match(kids[0].tooltip, /does not answer/);
    assert.equal(kids[0].icon.color, 'problemsErrorIcon.foreground');
  } finally {
    emu.setFault(undefined);
  }
});

test('no kubeconfig: the welcome state (no roots)', async () => {
  const t = new ClusterTree({ locate: { explicit: join(tmp, 'does-not-exist') }, watchKubeconfig: false });
  trees.push(t);
  assert.deepEqual(await ask(t), []);
  assert.equal(t.noKubeconfig, true);
  const env = new ClusterTree({ locate: { env: {}, home: join(tmp, 'empty-home') }, watchKubeconfig: false });
  trees.push(env);
  assert.deepEqual(await env.children(), []);
  assert.equal(env.noKubeconfig, true);
});

test('with a services source each Windows node gets a Services group fed by it (context and node view), connect and error items', async () => {
  const asked: [string, string, string[]][] = [];
  let answer: NodeServicesAnswer = {
    services: [
      { name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' },
      { name: 'csi-proxy', exists: false, status: null, startType: null },
    ],
  };
  const t = tree(emu.kubeconfig({ context: 'mixed', file: join(tmp, 'mixed-services') }), {
    services: async (context, node) => {
      asked.push([context, node.name, node.addresses.map((a) => a.type)]);
      return answer;
    },
  });
  const [root] = await ask(t);
  const nodes = await ask(t, byLabel(await ask(t, root), 'Windows nodes'));
  const details = await ask(t, nodes[2]);
  const group = byLabel(details, 'Services');
  assert.equal(group.id, 'ctx/mixed/node/winworker-2022-b/services');
  assert.equal(asked.length, 0, 'nothing is read until the group is expanded');
  const rows = await ask(t, group);
  assert.equal(asked[0]?.[0], 'mixed');
  assert.equal(asked[0]?.[1], 'winworker-2022-b');
  assert.deepEqual(
    rows.map((r) => [r.id, r.label, r.description, r.contextValue]),
    [
      ['ctx/mixed/node/winworker-2022-b/services/kubelet', 'kubelet', 'Running · Automatic', 'windowsService'],
      ['ctx/mixed/node/winworker-2022-b/services/csi-proxy', 'csi-proxy', 'not installed', 'info'],
    ],
  );
  answer = { connect: 'No SSH key is known for mixed yet.' };
  const connect = await ask(t, group);
  assert.equal(connect[0]?.label, 'Connect to show services…');
  assert.deepEqual(connect[0]?.command, {
    id: 'kubeWindows.connectServices',
    title: 'Connect',
    args: [{ ref: { kind: 'node', context: 'mixed', node: 'winworker-2022-b' } }],
  });
  answer = { error: 'Could not connect: connection refused.' };
  const failed = await ask(t, group);
  assert.equal(failed[0]?.contextValue, 'error');
  // The error item's retry asks the group again (what the extension fires after a connect or restart).
  let fired: string | undefined;
  const sub = t.onDidChange((id) => (fired = id));
  t.retry(failed[0]!.id);
  await waitFor('the group change', () => fired !== undefined);
  sub.dispose();
  assert.equal(fired, group.id);
});

// ---- How the tree meets VS Code's view: loading rows, held changes, superseded answers ----
// VS Code registers each child id after our answer and fails with "Element with id … is already
// registered" when an answer lands in a part of the tree it has already asked again, or an item is
// refreshed while children below it are still being read. These pin the tree's side of that contract.

async function slowly<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  emu.setLatency(ms);
  try {
    return await fn();
  } finally {
    emu.setLatency(0);
  }
}

test('a slow cluster answers with a loading row at once; its change event brings the children, connected once', async () => {
  const t = tree(emu.kubeconfig({ context: 'slow', file: join(tmp, 'slow') }), { loadingAfterMs: 30 });
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  const [root] = await ask(t);
  await slowly(300, async () => {
    const t0 = Date.now();
    const first = await t.children(root);
    assert.ok(Date.now() - t0 < 250, 'the answer did not wait for the cluster');
    assert.deepEqual(
      first.map((n) => [n.id, n.label, n.icon.id]),
      [['ctx/slow/loading', 'Connecting…', 'loading~spin']],
    );
    await waitFor('the cluster change', () => changes.includes(root.id), 10_000);
  });
  const versions = emu.requests.filter((r) => r.path === '/version').length;
  const kids = await ask(t, root);
  assert.deepEqual(
    kids.slice(1).map((k) => k.label),
    [
      'Windows nodes',
      'Windows MachineSets',
      'BYOH instances',
      'Mirror sets',
      'Windows RuntimeClasses',
      'Admission policies',
    ],
  );
  assert.equal(
    emu.requests.filter((r) => r.path === '/version').length,
    versions,
    'the children that arrived were used, not asked again',
  );
});

test('a change of an item waits while children below it are being read, then fires for that item only', async () => {
  const t = tree(emu.kubeconfig({ context: 'held', file: join(tmp, 'held') }));
  const [root] = await ask(t);
  const nodes = await ask(t, byLabel(await ask(t, root), 'Windows nodes'));
  const node = byLabel(nodes, 'winworker-2019-a');
  const pods = byLabel(await ask(t, node), 'Pods');
  const order: string[] = [];
  t.onDidChange((id) => order.push(`change ${id}`));
  await slowly(400, async () => {
    const asked = t.children(pods).then(() => order.push('pods answered'));
    await new Promise((r) => setTimeout(r, 50)); // the pod list is under way
    emu.patch('Node', 'winworker-2019-a', undefined, { spec: { unschedulable: true } });
    await asked;
    await waitFor('the node change', () => order.includes(`change ${node.id}`));
  });
  // (The pods may answer with a loading row and change once they arrived: that is the Pods group's own event.)
  assert.deepEqual(
    order.filter((o) => o !== `change ${pods.id}`),
    ['pods answered', `change ${node.id}`],
  );
  assert.equal(node.contextValue, 'windowsNode.cordoned');
  emu.patch('Node', 'winworker-2019-a', undefined, { spec: { unschedulable: null } });
});

test('an answer overtaken by a newer ask of the same part of the tree ends empty; the newer one has the children', async () => {
  const t = tree(emu.kubeconfig({ context: 'again', file: join(tmp, 'again') }));
  const [root] = await ask(t);
  await slowly(300, async () => {
    const first = t.children(root);
    await new Promise((r) => setTimeout(r, 50));
    // The view reloads (a window reload, the welcome state changing): roots, then the cluster again.
    const [again] = await ask(t);
    assert.equal(again, root, 'the same descriptor object for the same id');
    const second = t.children(again);
    assert.deepEqual(await first, []);
    const kids = await second;
    assert.equal(kids.length, 7);
    assert.ok(kids.every((k) => t.item(k.id) === k));
  });
});

test('pods keep distinct ids on two nodes even with the same namespace and name (a rescheduled StatefulSet pod)', async () => {
  const t = tree(emu.kubeconfig({ context: 'pods', file: join(tmp, 'pods') }));
  const [root] = await ask(t);
  const nodes = await ask(t, byLabel(await ask(t, root), 'Windows nodes'));
  const pod = (node: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'win-apps' },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }] },
    status: { phase: 'Running' },
  });
  emu.apply(pod('winworker-2019-a') as never);
  const onA = await ask(t, byLabel(await ask(t, byLabel(nodes, 'winworker-2019-a')), 'Pods'));
  emu.remove('Pod', 'web-0', 'win-apps');
  emu.apply(pod('winworker-2022-b') as never);
  const onB = await ask(t, byLabel(await ask(t, byLabel(nodes, 'winworker-2022-b')), 'Pods'));
  const a = byLabel(onA, 'web-0');
  const b = byLabel(onB, 'web-0');
  assert.notEqual(a.id, b.id);
  emu.remove('Pod', 'web-0', 'win-apps');
});

test('learning the flavour updates the cluster descriptor in place, with no change event that would reload its children', async () => {
  const t = tree(emu.kubeconfig({ context: 'flavour', file: join(tmp, 'flavour') }));
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  const [root] = await ask(t);
  assert.equal(root.contextValue, 'cluster');
  await ask(t, root);
  assert.equal(root.contextValue, 'cluster.openshift', 'commands get the element itself and see the flavour');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(changes, []);
});

test('every item carries a typed reference (what commands read instead of parsing ids)', async () => {
  const t = tree(emu.kubeconfig({ context: 'refs', file: join(tmp, 'refs') }));
  const [root] = await ask(t);
  assert.deepEqual(root.ref, { kind: 'cluster', context: 'refs' });
  const kids = await ask(t, root);
  assert.deepEqual(kids[0].ref, { kind: 'detail', context: 'refs' });
  const group = byLabel(kids, 'Windows nodes');
  assert.deepEqual(group.ref, { kind: 'group', context: 'refs', group: 'nodes' });
  const node = byLabel(await ask(t, group), 'winworker-2022-b');
  assert.deepEqual(node.ref, { kind: 'node', context: 'refs', node: 'winworker-2022-b' });
  const details = await ask(t, node);
  assert.deepEqual(byLabel(details, 'Ready: True').ref, { kind: 'detail', context: 'refs', node: 'winworker-2022-b' });
  const pods = await ask(t, byLabel(details, 'Pods'));
  assert.deepEqual(pods[0].ref, {
    kind: 'pod',
    context: 'refs',
    node: 'winworker-2022-b',
    namespace: 'win-apps',
    name: 'iis-7c9d5f8b6-abcde',
  });
  const byoh = await ask(t, byLabel(kids, 'BYOH instances'));
  assert.deepEqual(byoh[0].ref, { kind: 'byohInstance', context: 'refs', address: '10.0.140.12' });
  const sets = await ask(t, byLabel(kids, 'Mirror sets'));
  assert.deepEqual(sets[0].ref, {
    kind: 'mirrorSet',
    context: 'refs',
    setKind: 'ImageDigestMirrorSet',
    name: 'windows-mirrors',
  });
  // A retry of an id the tree never handed out changes nothing (it used to reload the whole tree).
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  t.retry('ctx/refs/not-an-item/error');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(changes, []);
});
