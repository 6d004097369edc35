// The cluster model (src/cluster: KubeClient, ClusterSession, WindowsNodeModel) against the real
// kube-apiserver: Nodes created through the API with the labels, taints and status (nodeInfo,
// conditions, addresses through the status subresource) that real Windows and Linux nodes carry,
// WMCO's objects under the real OLM and OpenShift CRD schemas, label and field selectors,
// pagination, watches and a real 410 Gone after etcd compaction, and RBAC denials for a user with
// few rights.
//
// This file runs a server of its own: it asserts cluster-wide views (node counts, the Windows node
// list, watch events), which other files creating nodes on the shared server would disturb, and it
// needs etcd compacted every second without the watch cache so that an old resourceVersion really
// is gone (with the watch cache, the server answers old versions from memory for a while).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1NodeList } from '@kubernetes/client-node';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession } from '../../src/cluster/session';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { KubeClient } from '../../src/cluster/kube-client';
import { ApiError } from '../../src/cluster/errors';
import { isErrorItem } from '../../src/cluster/extras';
import { WMCO_NAMESPACE } from '../../src/core/well-known';
import { snapshotOf } from '../../src/cluster/snapshot';
import { configForContext } from '../../src/cluster/kubeconfig';
import type { NodeChange, WindowsNodeModel } from '../../src/cluster/windows-nodes';
import { mixedCluster, windowsNode, linuxNode, runtimeClass, windowsInstancesConfigMap } from '../support/kube-seed';
import { assertSummariesMatchRows, ShownTree, type ShownRow } from '../support/shown-tree';
import {
  CONTEXT_ADMIN,
  CONTEXT_RESTRICTED,
  expectStatus,
  fromEmulatorSeed,
  patchStatus,
  seed,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

let api: RealApiServer;
const sessions: ClusterSession[] = [];

before(async () => {
  api = await useApiServer({ own: true, compactionInterval: '1s', extraArgs: ['--watch-cache=false'] });
  await seed(api, fromEmulatorSeed(mixedCluster() as SeedObject[]));
});

after(async () => {
  for (const s of sessions) s.dispose();
  await api?.stop();
});

function session(context = CONTEXT_ADMIN, opts: { watchTimeoutSeconds?: number } = {}): ClusterSession {
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok, !load.ok ? load.message : '');
  const s = new ClusterSession(context, load.config, { timeoutMs: 10_000, retryMs: 100, ...opts });
  sessions.push(s);
  return s;
}

function client(context = CONTEXT_ADMIN): KubeClient {
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  return new KubeClient(configForContext(load.config, context), { timeoutMs: 10_000 });
}

function nextChange(
  model: WindowsNodeModel,
  pred: (c: NodeChange) => boolean,
  timeoutMs = 10_000,
): Promise<NodeChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      model.off('change', on);
      reject(new Error('no matching change event in time'));
    }, timeoutMs);
    const on = (c: NodeChange) => {
      if (!pred(c)) return;
      clearTimeout(timer);
      model.off('change', on);
      resolve(c);
    };
    model.on('change', on);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a mixed OpenShift cluster on the real API server: version, flavour, counts, WMCO, nodes, BYOH, mirrors, pods, snapshot', async () => {
  const s = session();
  const state = await s.connect();
  assert.equal(state.status, 'connected');
  if (state.status !== 'connected') return;
  assert.equal(state.info.version, 'v1.35.4');
  assert.equal(state.info.flavour, 'openshift', 'config.openshift.io is served (the CRDs from openshift/api)');
  assert.deepEqual(state.info.nodes, { linux: 3, windows: 3 });
  assert.deepEqual(state.info.wmco, {
    present: true,
    csv: 'windows-machine-config-operator.v10.18.0',
    phase: 'Succeeded',
    version: '10.18.0',
  });
  assert.deepEqual(state.info.errors, []);

  const model = await s.windowsNodes();
  assert.deepEqual(
    model
      .nodes()
      .map((n) => [
        n.name,
        n.windowsVersion,
        n.provisioning,
        n.ready,
        n.kubeletVersion,
        n.containerRuntimeVersion,
        n.osImage,
      ]),
    [
      [
        'byoh-win2022-1',
        'Windows Server 2022',
        'byoh',
        true,
        'v1.31.3-dirty',
        'containerd://1.7.22',
        'Windows Server 2022 Datacenter',
      ],
      [
        'winworker-2019-a',
        'Windows Server 2019',
        'machine',
        true,
        'v1.31.3-dirty',
        'containerd://1.7.22',
        'Windows Server 2019 Datacenter',
      ],
      [
        'winworker-2022-b',
        'Windows Server 2022',
        'machine',
        true,
        'v1.31.3-dirty',
        'containerd://1.7.22',
        'Windows Server 2022 Datacenter',
      ],
    ],
  );
  // The real server's TaintNodesByCondition admission adds node.kubernetes.io/not-ready to every new
  // Node; with no node lifecycle controller here, it stays (the emulator never adds it).
  assert.deepEqual(model.get('winworker-2022-b')?.taints, [
    { key: 'os', value: 'Windows', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  ]);
  assert.deepEqual(model.get('winworker-2022-b')?.addresses[0], { type: 'InternalIP', address: '10.0.131.44' });

  const byoh = await s.byohInstances();
  assert.ok(!isErrorItem(byoh), JSON.stringify(byoh));
  assert.deepEqual(
    byoh.instances.map((i) => [i.address, i.status, i.node]),
    [
      ['10.0.140.12', 'joined', 'byoh-win2022-1'],
      ['10.0.140.25', 'not joined', undefined],
    ],
  );
  const mirrors = await s.mirrorSets();
  assert.ok(!isErrorItem(mirrors));
  assert.deepEqual(
    mirrors.sets.map((m) => [m.kind, m.name, m.mirrors[0].source]),
    [['ImageDigestMirrorSet', 'windows-mirrors', 'mcr.microsoft.com/windows/servercore']],
  );

  // The real field selector: only the pods bound to that node, from every namespace.
  const pods = await s.podsOfNode('winworker-2022-b');
  assert.ok(!isErrorItem(pods));
  assert.deepEqual(
    pods.map((p) => [`${p.namespace}/${p.name}`, p.phase]),
    [['win-apps/iis-7c9d5f8b6-abcde', 'Running']],
  );

  const snap = await snapshotOf(s);
  assert.deepEqual(
    snap?.windowsNodes.map((n) => [n.name, n.build]),
    [
      ['byoh-win2022-1', '10.0.20348'],
      ['winworker-2019-a', '10.0.17763'],
      ['winworker-2022-b', '10.0.20348'],
    ],
  );
  assert.deepEqual(
    snap?.runtimeClasses.map((r) => [r.name, r.build]),
    [
      ['windows2019', '10.0.17763'],
      ['windows2022', '10.0.20348'],
    ],
  );
});

/** Children as the view ends up showing them (no loading rows: answers are waited for in full). */
async function children(t: ClusterTree, parent?: TreeNode): Promise<TreeNode[]> {
  return t.children(parent);
}
const byLabel = (nodes: TreeNode[], label: string): TreeNode => {
  const n = nodes.find((x) => x.label === label);
  assert.ok(n, `no item "${label}" in ${nodes.map((x) => x.label).join(', ')}`);
  return n;
};

test('the cluster tree on the real API server: info line, Windows nodes, node details, pods, BYOH, mirrors, RuntimeClasses; error items for the restricted user', async () => {
  const t = new ClusterTree({
    locate: { explicit: api.kubeconfigPath },
    watchKubeconfig: false,
    session: { timeoutMs: 10_000, retryMs: 100 },
    loadingAfterMs: 60_000,
  });
  try {
    const roots = await children(t);
    assert.deepEqual(
      roots.map((r) => r.id),
      [`ctx/${CONTEXT_ADMIN}`, `ctx/${CONTEXT_RESTRICTED}`],
    );
    const kids = await children(t, roots[0]);
    assert.equal(kids[0].label, 'v1.35.4 · OpenShift · WMCO 10.18.0 Succeeded · 3 Linux / 3 Windows nodes');
    const nodes = await children(t, byLabel(kids, 'Windows nodes'));
    assert.deepEqual(
      nodes.map((n) => [n.label, n.description]),
      [
        ['byoh-win2022-1', 'Windows Server 2022 · Ready · BYOH'],
        ['winworker-2019-a', 'Windows Server 2019 · Ready'],
        ['winworker-2022-b', 'Windows Server 2022 · Ready'],
      ],
    );
    const yaml = (await nodes[2].yaml?.()) as { kind?: string; metadata?: { name?: string; managedFields?: unknown } };
    assert.equal(yaml.kind, 'Node');
    assert.equal(yaml.metadata?.managedFields, undefined);
    const details = await children(t, nodes[2]);
    assert.ok(details.some((d) => d.label === 'Ready: True'));
    assert.ok(details.some((d) => d.label === 'os=Windows:NoSchedule'));
    const pods = await children(t, byLabel(details, 'Pods'));
    assert.deepEqual(
      pods.map((p) => p.id),
      [`ctx/${CONTEXT_ADMIN}/node/winworker-2022-b/pods/win-apps/iis-7c9d5f8b6-abcde`],
    );
    const byoh = await children(t, byLabel(kids, 'BYOH instances'));
    assert.deepEqual(
      byoh.map((b) => [b.label, b.description]),
      [
        ['10.0.140.12', 'joined as byoh-win2022-1'],
        ['10.0.140.25', 'not joined'],
      ],
    );
    const mirrors = await children(t, byLabel(kids, 'Mirror sets'));
    assert.deepEqual(
      mirrors.map((m) => [m.label, m.description]),
      [['windows-mirrors', 'ImageDigestMirrorSet']],
    );
    const rcs = await children(t, byLabel(kids, 'Windows RuntimeClasses'));
    assert.deepEqual(
      rcs.map((r) => r.label),
      ['windows2019', 'windows2022'],
    );

    // The user with no rights: the cluster answers, the parts it may not read are error items.
    const limited = await children(t, roots[1]);
    const errors = limited.filter((k) => k.contextValue === 'error');
    assert.ok(errors.length > 0, limited.map((k) => `${k.label}: ${k.description ?? ''}`).join(' | '));
    assert.ok(
      errors.some((e) =>
        /not allowed to list nodes cluster-wide/.test(`${e.label} ${e.description ?? ''} ${e.tooltip}`),
      ),
      errors.map((e) => `${e.label} ${e.description ?? ''}`).join(' | '),
    );
  } finally {
    t.dispose();
  }
});

test('label and field selectors, and pagination with limit and continue, as the model relies on them', async () => {
  const kube = client();
  const windows = await kube.get<V1NodeList>('/api/v1/nodes', {
    labelSelector: 'kubernetes.io/os=windows,node.kubernetes.io/windows-build=10.0.20348',
  });
  assert.deepEqual(windows.items.map((n) => n.metadata?.name).sort(), ['byoh-win2022-1', 'winworker-2022-b']);
  const byoh = await kube.get<V1NodeList>('/api/v1/nodes', {
    labelSelector: 'windowsmachineconfig.openshift.io/byoh=true',
  });
  assert.deepEqual(
    byoh.items.map((n) => n.metadata?.name),
    ['byoh-win2022-1'],
  );
  const unschedulable = await kube.get<V1NodeList>('/api/v1/nodes', {
    fieldSelector: 'spec.unschedulable=false',
    labelSelector: 'kubernetes.io/os=linux',
  });
  assert.equal(unschedulable.items.length, 3);
  const pending = await kube.get<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces/win-apps/pods', {
    fieldSelector: 'spec.nodeName=',
  });
  assert.deepEqual(
    pending.items.map((p) => p.metadata.name),
    ['iis-7c9d5f8b6-uvwxy'],
  );

  // Unselected: remainingItemCount says how many are left (ClusterSession counts nodes this way).
  const first = await kube.get<V1NodeList>('/api/v1/nodes', { limit: 1 });
  assert.equal(first.items.length, 1);
  assert.equal(first.metadata?.remainingItemCount, 5);
  // Selected: the server gives a continue token but no count, so the session lists the selection.
  const selected = await kube.get<V1NodeList & { metadata: { continue?: string } }>('/api/v1/nodes', {
    limit: 1,
    labelSelector: 'kubernetes.io/os=linux',
  });
  assert.equal(selected.metadata?.remainingItemCount, undefined);
  assert.ok(selected.metadata.continue);
  // Walking the pages returns every node once.
  const names: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page: V1NodeList & { metadata: { continue?: string } } = await kube.get('/api/v1/nodes', {
      limit: 2,
      continue: token,
    });
    names.push(...page.items.map((n) => n.metadata?.name ?? ''));
    token = page.metadata.continue || undefined;
    pages++;
  } while (token);
  assert.equal(pages, 3);
  assert.deepEqual(names, [...new Set(names)].sort());
  assert.equal(names.length, 6);
});

test('watched changes: NotReady, a new Windows node (a Linux one never reaches the model), a node deleted, without a re-list', async () => {
  const s = session();
  const model = await s.windowsNodes();
  assert.equal(model.lists, 1);

  const notReady = nextChange(model, (c) => c.type === 'modified' && c.name === 'winworker-2019-a');
  await patchStatus(api, '/api/v1/nodes', 'winworker-2019-a', {
    conditions: [
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastHeartbeatTime: '2026-11-21T09:00:00Z',
      },
    ],
  });
  const change = await notReady;
  assert.equal(change.type === 'modified' && change.node.ready, undefined);
  assert.ok(model.get('winworker-2019-a')?.problems.includes('Not ready (NodeStatusUnknown)'));

  const added = nextChange(model, (c) => c.type === 'added');
  await seed(api, [
    linuxNode('ip-10-0-23-9.us-east-2.compute.internal', { address: '10.0.23.9' }),
    windowsNode('winworker-2025-c', { build: '10.0.26100', address: '10.0.132.7' }),
  ] as SeedObject[]);
  const a = await added;
  assert.equal(a.type === 'added' && a.name, 'winworker-2025-c', 'the Linux node never reaches the Windows model');
  // Created first, its status comes in a second write: wait for it.
  if (!model.get('winworker-2025-c')?.kubeletVersion)
    await nextChange(model, (c) => c.type === 'modified' && c.name === 'winworker-2025-c');
  assert.equal(model.get('winworker-2025-c')?.windowsVersion, 'Windows Server 2025');

  const removed = nextChange(model, (c) => c.type === 'removed');
  expectStatus(await api.request('/api/v1/nodes/winworker-2025-c', { method: 'DELETE' }), [200], 'deleting the node');
  assert.deepEqual(await removed, { type: 'removed', name: 'winworker-2025-c' });
  expectStatus(
    await api.request('/api/v1/nodes/ip-10-0-23-9.us-east-2.compute.internal', { method: 'DELETE' }),
    [200],
    'deleting the node',
  );
  assert.equal(model.lists, 1, 'no re-list');
  assert.equal(model.error, undefined);
  await patchStatus(api, '/api/v1/nodes', 'winworker-2019-a', {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
  });
});

/** Writes to etcd (a ConfigMap updated) so that revisions move on and compaction passes `rv`. */
async function churnPast(rv: number, ms: number): Promise<void> {
  const cm = '/api/v1/namespaces/default/configmaps';
  const name = 'kw-churn';
  await api.request(cm, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: '0' } } });
  const end = Date.now() + ms;
  for (let i = 1; Date.now() < end; i++) {
    await api.request(`${cm}/${name}`, {
      method: 'PATCH',
      body: { data: { n: String(i) } },
      contentType: 'application/merge-patch+json',
    });
    await sleep(100);
  }
  assert.ok(rv > 0);
}

test('a real 410 Gone: a watch from a compacted resourceVersion, and the model lists again', async (t) => {
  const kube = client();
  const list = await kube.get<V1NodeList>('/api/v1/nodes', { labelSelector: 'kubernetes.io/os=windows' });
  const oldRv = Number(list.metadata?.resourceVersion);
  // The API server compacts etcd every second to the revision it saw a second before.
  await churnPast(oldRv, 3500);

  const outcome = await new Promise<{
    error?: unknown;
    event?: { type: string; object: { code?: number; reason?: string } };
  }>((resolve) => {
    const h = kube.watch<{ code?: number; reason?: string }>(
      '/api/v1/nodes',
      { labelSelector: 'kubernetes.io/os=windows', resourceVersion: String(oldRv) },
      (event) => {
        if (event.type === 'ERROR') {
          h.stop();
          resolve({ event });
        }
      },
      (error) => resolve({ error }),
    );
  });
  // The server says so either as the HTTP status or as an ERROR event in the stream; here, which one is recorded.
  const code = outcome.error instanceof ApiError ? outcome.error.status : outcome.event?.object.code;
  assert.equal(code, 410, `expected 410 Gone, got ${JSON.stringify(outcome.event ?? String(outcome.error))}`);
  t.diagnostic(
    outcome.event
      ? `410 as an ERROR event: ${outcome.event.object.reason ?? ''}`
      : `410 as the HTTP status: ${String(outcome.error)}`,
  );

  // The model: watches that end every second resume from their last resourceVersion; once that
  // is compacted, the 410 makes it list again and catch up with what changed meanwhile.
  const s = session(CONTEXT_ADMIN, { watchTimeoutSeconds: 1 });
  const model = await s.windowsNodes();
  assert.equal(model.lists, 1);
  await churnPast(1, 3500);
  expectStatus(
    await api.request('/api/v1/nodes/byoh-win2022-1', {
      method: 'PATCH',
      body: { spec: { unschedulable: true } },
      contentType: 'application/merge-patch+json',
    }),
    [200],
    'cordon',
  );
  const deadline = Date.now() + 15_000;
  while ((model.lists < 2 || !model.get('byoh-win2022-1')?.cordoned) && Date.now() < deadline) await sleep(100);
  assert.ok(model.lists >= 2, `the model never listed again (lists: ${model.lists})`);
  assert.equal(model.get('byoh-win2022-1')?.cordoned, true);
  assert.equal(model.error, undefined);
  expectStatus(
    await api.request('/api/v1/nodes/byoh-win2022-1', {
      method: 'PATCH',
      body: { spec: { unschedulable: null } },
      contentType: 'application/merge-patch+json',
    }),
    [200],
    'uncordon',
  );
});

test('the pods of a Windows node by watch: created with spec.nodeName, changed, deleted, without a re-list; a real 410 lists them again', async () => {
  const NODE = 'winworker-2019-a';
  const s = session(CONTEXT_ADMIN, { watchTimeoutSeconds: 1 });
  const w = s.podWatch(NODE);
  await w.start();
  assert.equal(w.error, undefined);
  const names = () => w.pods().map((e) => `${e.view.namespace}/${e.view.name}`);
  assert.deepEqual(names(), ['win-apps/legacy-app-5b8c7d9f4-klmno'], 'the real field selector: that node only');
  const until = async (what: string, cond: () => boolean, ms = 15_000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      assert.ok(Date.now() < end, `timed out waiting for ${what} (pods: ${names().join(', ')}; lists ${w.lists})`);
      await sleep(50);
    }
  };
  const pods = '/api/v1/namespaces/win-apps/pods';
  const body = (name: string, nodeName: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'win-apps' },
    spec: {
      nodeName,
      nodeSelector: { 'kubernetes.io/os': 'windows' },
      tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
      containers: [{ name: 'web', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019' }],
    },
  });
  expectStatus(await api.request(pods, { body: body('live-web', NODE) }), [201], 'creating a pod on the node');
  expectStatus(
    await api.request(pods, { body: body('elsewhere', 'winworker-2022-b') }),
    [201],
    'creating a pod on another node',
  );
  await until('the new pod', () => names().includes('win-apps/live-web'));
  assert.equal(w.pods().find((e) => e.view.name === 'live-web')?.view.phase, 'Pending');

  await patchStatus(api, pods, 'live-web', {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'web',
        ready: true,
        restartCount: 2,
        image: 'iis',
        imageID: '',
        state: { running: { startedAt: '2026-11-25T08:00:00Z' } },
      },
    ],
  });
  await until('the status change', () => w.pods().find((e) => e.view.name === 'live-web')?.view.restarts === 2);
  assert.equal(w.pods().find((e) => e.view.name === 'live-web')?.view.readyCount, 1);

  // Bound to a node, a pod is first marked for deletion (the kubelet would confirm): Terminating.
  expectStatus(await api.request(`${pods}/live-web`, { method: 'DELETE' }), [200], 'deleting the pod');
  await until('Terminating', () => w.pods().find((e) => e.view.name === 'live-web')?.view.phase === 'Terminating');
  expectStatus(
    await api.request(`${pods}/live-web`, {
      method: 'DELETE',
      body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
    }),
    [200],
    'force-deleting the pod',
  );
  await until('the removal', () => !names().includes('win-apps/live-web'));
  assert.ok(!names().includes('win-apps/elsewhere'), 'a pod of another node never arrives');
  assert.equal(w.lists, 1, 'every change by watch: no re-list');

  // Watches end every second and resume from the last pod's version; etcd moves on and compacts it
  // away: the resumed watch gets 410 Gone and the pods are listed again, with what changed meanwhile.
  await churnPast(1, 3500);
  expectStatus(await api.request(pods, { body: body('after-gone', NODE) }), [201], 'creating a pod');
  await until('a re-list after 410', () => w.lists >= 2 && names().includes('win-apps/after-gone'), 20_000);
  assert.equal(w.error, undefined);
  for (const name of ['after-gone', 'elsewhere'])
    await api.request(`${pods}/${name}`, {
      method: 'DELETE',
      body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
    });
});

test('RBAC: a user with no rights gets error items naming the permission, never a crash', async () => {
  const s = session(CONTEXT_RESTRICTED);
  const state = await s.connect();
  // /version and discovery answer every authenticated user; nodes do not.
  assert.equal(state.status, 'connected');
  if (state.status !== 'connected') return;
  assert.equal(state.info.version, 'v1.35.4');
  assert.equal(state.info.flavour, 'openshift');
  const nodesError = state.info.nodes.error;
  assert.ok(nodesError, JSON.stringify(state.info.nodes));
  assert.equal(nodesError.reason, 'forbidden');
  assert.equal(nodesError.status, 403);
  assert.deepEqual(nodesError.permission, { verb: 'list', resource: 'nodes' });
  assert.match(
    nodesError.message,
    /You are not allowed to list nodes cluster-wide on cluster "kube-windows-apiserver-restricted" \(403 Forbidden\)/,
  );
  assert.ok(!nodesError.message.includes(api.restrictedToken), 'no token in messages');
  assert.ok(state.info.wmco.error?.reason === 'forbidden', JSON.stringify(state.info.wmco));
  const model = await s.windowsNodes();
  assert.equal(model.error?.reason, 'forbidden');
  assert.deepEqual(model.nodes(), []);
  const pods = await s.podsOfNode('winworker-2022-b');
  assert.ok(isErrorItem(pods) && pods.reason === 'forbidden');
  assert.deepEqual(isErrorItem(pods) && pods.permission, { verb: 'list', resource: 'pods' });
  const mirrors = await s.mirrorSets();
  assert.ok(isErrorItem(mirrors) && mirrors.reason === 'forbidden', JSON.stringify(mirrors));
  assert.deepEqual(isErrorItem(mirrors) && mirrors.permission, {
    verb: 'list',
    resource: 'imagedigestmirrorsets',
    group: 'config.openshift.io',
  });
});

test('RBAC: nodes allowed but not the windows-instances ConfigMap: the BYOH part is an error item, the rest works', async () => {
  const user = 'kube-windows-restricted';
  const rules = [{ apiGroups: [''], resources: ['nodes', 'namespaces'], verbs: ['get', 'list', 'watch'] }];
  expectStatus(
    await api.request('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'kw-node-reader' },
        rules,
      },
    }),
    [201],
    'ClusterRole',
  );
  expectStatus(
    await api.request('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'kw-node-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kw-node-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    }),
    [201],
    'ClusterRoleBinding',
  );
  try {
    // RBAC answers from an informer: give it a moment to see the binding.
    const s = session(CONTEXT_RESTRICTED);
    let state = await s.connect();
    for (let i = 0; i < 50 && state.status === 'connected' && state.info.nodes.error; i++) {
      await sleep(100);
      state = await s.reconnect();
    }
    assert.equal(state.status, 'connected');
    if (state.status !== 'connected') return;
    assert.deepEqual(state.info.nodes, { linux: 3, windows: 3 });
    const model = await s.windowsNodes();
    assert.equal(model.nodes().length, 3);
    const byoh = await s.byohInstances();
    assert.ok(isErrorItem(byoh));
    assert.equal(byoh.reason, 'forbidden');
    // The explorer lists and watches the ConfigMap by name (fieldSelector metadata.name).
    assert.deepEqual(byoh.permission, { verb: 'list', resource: 'configmaps', namespace: WMCO_NAMESPACE });
    assert.match(
      byoh.message,
      /not allowed to list configmaps in namespace "openshift-windows-machine-config-operator"/,
    );
  } finally {
    await api.request('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kw-node-reader', { method: 'DELETE' });
    await api.request('/apis/rbac.authorization.k8s.io/v1/clusterroles/kw-node-reader', { method: 'DELETE' });
  }
});

test('the tree follows the real server by watches: a node joined, a RuntimeClass, a BYOH entry; every summary equals its rows', async () => {
  const t = new ClusterTree({
    locate: { explicit: api.kubeconfigPath },
    watchKubeconfig: false,
    session: { timeoutMs: 10_000, retryMs: 100 },
  });
  const view = new ShownTree(t);
  const labels = (row: ShownRow) => (row.children ?? []).map((r) => r.label);
  const info = () => view.find([CONTEXT_ADMIN]).children?.[0]?.label ?? '';
  try {
    await view.open();
    for (const group of ['BYOH instances', 'Windows RuntimeClasses']) await view.expand(CONTEXT_ADMIN, group);
    await view.settle();
    const before = Number(/(\d+) Windows nodes$/.exec(info())?.[1]);
    assertSummariesMatchRows(view.roots);

    await seed(api, [
      windowsNode('win-joined-1', { build: '10.0.20348', byoh: true, address: '10.0.140.77' }),
      runtimeClass('windows2022-joined', '10.0.20348'),
    ] as SeedObject[]);
    await api.request(`/api/v1/namespaces/${WMCO_NAMESPACE}/configmaps/windows-instances`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { data: windowsInstancesConfigMap({ '10.0.140.77': 'Administrator' }).data },
    });
    await view.until(
      'the joined node everywhere',
      () =>
        info().endsWith(`${before + 1} Windows nodes`) &&
        labels(view.find([CONTEXT_ADMIN, 'Windows RuntimeClasses'])).includes('windows2022-joined') &&
        view.find([CONTEXT_ADMIN, 'BYOH instances', '10.0.140.77']).description === 'joined as win-joined-1',
    );
    await view.settle();
    assertSummariesMatchRows(view.roots);

    // Removed again (what Remove node… and a RuntimeClass deletion do).
    await api.request('/api/v1/nodes/win-joined-1', { method: 'DELETE' });
    await api.request('/apis/node.k8s.io/v1/runtimeclasses/windows2022-joined', { method: 'DELETE' });
    await view.until(
      'the node gone everywhere',
      () =>
        info().endsWith(`${before} Windows nodes`) &&
        !labels(view.find([CONTEXT_ADMIN, 'Windows RuntimeClasses'])).includes('windows2022-joined') &&
        view.find([CONTEXT_ADMIN, 'BYOH instances', '10.0.140.77']).description === 'not joined',
    );
    await view.settle();
    assertSummariesMatchRows(view.roots);
  } finally {
    view.dispose();
    t.dispose();
  }
});
