// The cluster explorer's tree model (src/cluster/tree.ts) against the Kubernetes API emulator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { mixedCluster, windowsNode, WMCO_NAMESPACE } from '../support/kube-seed';
import { ClusterTree, type NodeServicesAnswer, type ClusterTreeOptions, type TreeNode } from '../../src/cluster/tree';

let emu: Emulator;
let tmp: string;
const trees: ClusterTree[] = [];

before(async () => {
  emu = await startEmulator({ objects: mixedCluster(), openshift: true, tokens: { 'limited-token': { user: 'limited', deny: [{ verb: 'get', resource: 'configmaps', namespace: WMCO_NAMESPACE }] } } });
  tmp = mkdtempSync(join(tmpdir(), 'kw-tree-'));
});

after(async () => {
  for (const t of trees) t.dispose();
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function tree(kubeconfig: string, options: Omit<ClusterTreeOptions, 'locate'> = {}): ClusterTree {
  const t = new ClusterTree({ locate: { explicit: kubeconfig }, watchKubeconfig: false, session: { timeoutMs: 5000, retryMs: 100 }, ...options });
  trees.push(t);
  return t;
}

const byLabel = (nodes: TreeNode[], label: string): TreeNode => {
  const n = nodes.find((x) => x.label === label);
  assert.ok(n, `no item "${label}" in ${nodes.map((x) => x.label).join(', ')}`);
  return n;
};

async function waitFor(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const windowsNodeLists = () => emu.requests.filter((r) => r.path === '/api/v1/nodes' && r.query.includes('kubernetes.io%2Fos%3Dwindows') && !r.query.includes('watch=true') && !r.query.includes('limit=')).length;

test('roots are the kubeconfig contexts, listed without any request to the cluster', async () => {
  const before = emu.requests.length;
  const t = tree(emu.kubeconfig({ context: 'lazy', file: join(tmp, 'lazy') }));
  const roots = await t.children();
  assert.deepEqual(roots.map((r) => [r.id, r.label, r.contextValue, r.collapsible]), [['ctx/lazy', 'lazy', 'cluster', 'expanded']]);
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
  const [root] = await t.children();
  const kids = await t.children(root);
  assert.match(kids[0].label, /^v1\.\d+\.\d+.* · OpenShift · WMCO 10\.18\.0 Succeeded · 3 Linux \/ 3 Windows nodes$/);
  assert.deepEqual(kids.slice(1).map((k) => k.label), ['Windows nodes', 'BYOH instances', 'Mirror sets', 'Windows RuntimeClasses']);
  assert.equal(t.item('ctx/mixed')?.contextValue, 'cluster.openshift');

  const nodes = await t.children(byLabel(kids, 'Windows nodes'));
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
  const details = await t.children(nodes[2]);
  assert.ok(details.some((d) => d.label === 'Ready: True'));
  assert.ok(details.some((d) => d.label === 'os=Windows:NoSchedule'));
  const pods = await t.children(byLabel(details, 'Pods'));
  assert.deepEqual(pods.map((p) => [p.id, p.contextValue]), [['ctx/mixed/pod/win-apps/iis-7c9d5f8b6-abcde', 'pod']]);
  assert.ok(emu.requests.some((r) => r.path === '/api/v1/pods' && r.query.includes('fieldSelector=spec.nodeName%3Dwinworker-2022-b')));
  assert.ok(emu.requests.every((r) => r.path !== '/api/v1/pods' || r.query.includes('fieldSelector=')), 'never a cluster-wide pod list');
  assert.ok(!details.some((d) => d.label === 'Services'), 'no Services group without a services source (the CLI, plain trees)');

  const byoh = await t.children(byLabel(kids, 'BYOH instances'));
  assert.deepEqual(byoh.map((b) => [b.label, b.description, b.contextValue]), [
    ['10.0.140.12', 'joined as byoh-win2022-1', 'byohInstance'],
    ['10.0.140.25', 'not joined', 'byohInstance'],
  ]);
  const mirrors = await t.children(byLabel(kids, 'Mirror sets'));
  assert.deepEqual(mirrors.map((m) => [m.label, m.description, m.contextValue]), [['windows-mirrors', 'ImageDigestMirrorSet', 'mirrorSet']]);
  const rcs = await t.children(byLabel(kids, 'Windows RuntimeClasses'));
  assert.deepEqual(rcs.map((r) => r.label), ['windows2019', 'windows2022']);
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
  const [root] = await t.children();
  const kids = await t.children(root);
  const group = byLabel(kids, 'Windows nodes');
  const nodes = await t.children(group);
  const item = byLabel(nodes, 'winworker-2022-b');
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  const lists = windowsNodeLists();

  emu.patch('Node', 'winworker-2022-b', undefined, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' }] } });
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
  const after = await t.children(group);
  assert.ok(after.some((n) => n.label === 'winworker-2025-c' && n.description === 'Windows Server 2025 · Ready'));
  assert.equal(windowsNodeLists(), lists, 'still no re-list');

  emu.remove('Node', 'winworker-2025-c');
  emu.patch('Node', 'winworker-2022-b', undefined, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } });
});

test('403 on the windows-instances ConfigMap: an error item naming the permission, the rest works', async () => {
  const t = tree(emu.kubeconfig({ context: 'limited', token: 'limited-token', file: join(tmp, 'limited') }));
  const [root] = await t.children();
  const kids = await t.children(root);
  const nodes = await t.children(byLabel(kids, 'Windows nodes'));
  assert.ok(nodes.filter((n) => n.contextValue === 'windowsNode').length >= 3);
  const byoh = await t.children(byLabel(kids, 'BYOH instances'));
  assert.equal(byoh.length, 1);
  const [err] = byoh;
  assert.equal(err.contextValue, 'error');
  assert.match(err.label, /permission denied/);
  assert.match(err.description ?? '', /not allowed to get configmaps in namespace "openshift-windows-machine-config-operator"/);
  assert.ok(!JSON.stringify(err).includes('limited-token'));
  assert.deepEqual(err.command && [err.command.id, err.command.args], ['kubeWindows.retry', [err.id]]);
  // Retry asks the group again.
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  t.retry(err.id);
  assert.deepEqual(changes, ['ctx/limited/group/byoh']);
});

test('a cluster that does not answer: one error item, quickly', async () => {
  const t = tree(emu.kubeconfig({ context: 'silent', file: join(tmp, 'silent') }), { session: { timeoutMs: 300 } });
  emu.setFault({ hangMs: 1500, path: /^\/version$/ });
  try {
    const [root] = await t.children();
    const t0 = Date.now();
    const kids = await t.children(root);
    assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
    assert.equal(kids.length, 1);
    assert.equal(kids[0].contextValue, 'error');
    assert.equal(kids[0].id, 'ctx/silent/error');
    assert.match(kids[0].description ?? '', /does not answer/);
    assert.equal(kids[0].icon.color, 'problemsErrorIcon.foreground');
  } finally {
    emu.setFault(undefined);
  }
});

test('no kubeconfig: the welcome state (no roots)', async () => {
  const t = new ClusterTree({ locate: { explicit: join(tmp, 'does-not-exist') }, watchKubeconfig: false });
  trees.push(t);
  assert.deepEqual(await t.children(), []);
  assert.equal(t.noKubeconfig, true);
  const env = new ClusterTree({ locate: { env: {}, home: join(tmp, 'empty-home') }, watchKubeconfig: false });
  trees.push(env);
  assert.deepEqual(await env.children(), []);
  assert.equal(env.noKubeconfig, true);
});

test('with a services source each Windows node gets a Services group fed by it (context and node view), connect and error items', async () => {
  const asked: [string, string, string[]][] = [];
  let answer: NodeServicesAnswer = { services: [{ name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' }, { name: 'csi-proxy', exists: false, status: null, startType: null }] };
  const t = tree(emu.kubeconfig({ context: 'mixed', file: join(tmp, 'mixed-services') }), {
    services: async (context, node) => {
      asked.push([context, node.name, node.addresses.map((a) => a.type)]);
      return answer;
    },
  });
  const [root] = await t.children();
  const nodes = await t.children(byLabel(await t.children(root), 'Windows nodes'));
  const details = await t.children(nodes[2]);
  const group = byLabel(details, 'Services');
  assert.equal(group.id, 'ctx/mixed/node/winworker-2022-b/services');
  assert.equal(asked.length, 0, 'nothing is read until the group is expanded');
  const rows = await t.children(group);
  assert.equal(asked[0]?.[0], 'mixed');
  assert.equal(asked[0]?.[1], 'winworker-2022-b');
  assert.deepEqual(rows.map((r) => [r.id, r.label, r.description, r.contextValue]), [
    ['ctx/mixed/node/winworker-2022-b/services/kubelet', 'kubelet', 'Running · Automatic', 'windowsService'],
    ['ctx/mixed/node/winworker-2022-b/services/csi-proxy', 'csi-proxy', 'not installed', 'info'],
  ]);
  answer = { connect: 'No SSH key is known for mixed yet.' };
  const connect = await t.children(group);
  assert.equal(connect[0]?.label, 'Connect to show services…');
  assert.deepEqual(connect[0]?.command, { id: 'kubeWindows.connectServices', title: 'Connect', args: ['ctx/mixed/node/winworker-2022-b'] });
  answer = { error: 'Could not connect: connection refused.' };
  const failed = await t.children(group);
  assert.equal(failed[0]?.contextValue, 'error');
  // The error item's retry asks the group again (what the extension fires after a connect or restart).
  let fired: string | undefined;
  const sub = t.onDidChange((id) => (fired = id));
  t.retry(failed[0]!.id);
  sub.dispose();
  assert.equal(fired, group.id);
});
