// The cluster model (src/cluster) against the Kubernetes API emulator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { loadKubeconfig, watchKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession, SessionManager } from '../../src/cluster/session';
import { isErrorItem } from '../../src/cluster/extras';
import { WMCO_NAMESPACE } from '../../src/core/well-known';
import { snapshotOf } from '../../src/cluster/snapshot';
import type { NodeChange, WindowsNodeModel } from '../../src/cluster/windows-nodes';

// Small local fixtures (the shared seed helpers may replace them).
function node(
  name: string,
  os: 'linux' | 'windows',
  opts: { build?: string; byoh?: boolean; ip?: string; version?: string; desired?: string } = {},
): KubeObject {
  const labels: Record<string, string> = { 'kubernetes.io/os': os };
  if (opts.build) labels['node.kubernetes.io/windows-build'] = opts.build;
  if (opts.byoh) labels['windowsmachineconfig.openshift.io/byoh'] = 'true';
  const annotations: Record<string, string> = {};
  if (opts.version) annotations['windowsmachineconfig.openshift.io/version'] = opts.version;
  if (opts.desired) annotations['windowsmachineconfig.openshift.io/desired-version'] = opts.desired;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, annotations },
    spec: os === 'windows' ? { taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] } : {},
    status: {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-01-01T00:00:00Z' },
      ],
      addresses: [{ type: 'InternalIP', address: opts.ip ?? '10.0.0.1' }],
      nodeInfo: {
        osImage: os === 'windows' ? 'Windows Server Datacenter' : 'Red Hat Enterprise Linux CoreOS',
        kernelVersion: '10.0',
        kubeletVersion: 'v1.31.1',
        containerRuntimeVersion: 'containerd://1.7.22',
        operatingSystem: os,
        architecture: 'amd64',
      },
    },
  };
}

function mixedCluster(): KubeObject[] {
  return [
    node('master-0', 'linux', { ip: '10.0.1.1' }),
    node('worker-0', 'linux', { ip: '10.0.1.2' }),
    node('worker-1', 'linux', { ip: '10.0.1.3' }),
    node('win-2022', 'windows', { build: '10.0.20348', ip: '10.0.2.1', version: '10.17.0', desired: '10.17.0' }),
    node('win-byoh', 'windows', {
      build: '10.0.17763',
      byoh: true,
      ip: '10.0.2.2',
      version: '10.16.0',
      desired: '10.17.0',
    }),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: WMCO_NAMESPACE } },
    {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'windows-machine-config-operator.v10.17.0', namespace: WMCO_NAMESPACE },
      spec: { version: '10.17.0', displayName: 'Windows Machine Config Operator' },
      status: { phase: 'Succeeded' },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'windows-instances', namespace: WMCO_NAMESPACE },
      data: { '10.0.2.2': 'username=Administrator', '10.0.2.9': 'username=Administrator' },
    },
    {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'windows-2022' },
      handler: 'runhcs-wcow-process',
      scheduling: {
        nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
        tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
      },
    },
    { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'kata' }, handler: 'kata' },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageDigestMirrorSet',
      metadata: { name: 'mirrors' },
      spec: { imageDigestMirrors: [{ source: 'mcr.microsoft.com', mirrors: ['mirror.local/mcr'] }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'iis', namespace: 'web' },
      spec: {
        nodeName: 'win-2022',
        containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }],
      },
      status: { phase: 'Running' },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'nginx', namespace: 'web' },
      spec: { nodeName: 'worker-0', containers: [{ name: 'nginx', image: 'nginx' }] },
      status: { phase: 'Running' },
    },
  ];
}

let emu: Emulator;
let tmp: string;
const sessions: ClusterSession[] = [];

function session(kubeconfigFile: string, opts: { timeoutMs?: number } = {}): ClusterSession {
  const load = loadKubeconfig({ explicit: kubeconfigFile });
  assert.ok(load.ok, !load.ok ? load.message : '');
  const s = new ClusterSession(load.currentContext ?? '', load.config, {
    timeoutMs: opts.timeoutMs ?? 5000,
    retryMs: 100,
  });
  sessions.push(s);
  return s;
}

function nextChange(model: WindowsNodeModel, pred: (c: NodeChange) => boolean, timeoutMs = 3000): Promise<NodeChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      model.off('change', on);
      reject(new Error('no change event in time'));
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

const nodeLists = () =>
  emu.requests.filter(
    (r) =>
      r.path === '/api/v1/nodes' &&
      r.query.includes('kubernetes.io%2Fos%3Dwindows') &&
      !r.query.includes('watch=true') &&
      !r.query.includes('limit='),
  );

before(async () => {
  emu = await startEmulator({
    objects: mixedCluster(),
    openshift: true,
    tokens: {
      'limited-token': { user: 'limited', deny: [{ verb: 'list', resource: 'configmaps', namespace: WMCO_NAMESPACE }] },
    },
  });
  tmp = mkdtempSync(join(tmpdir(), 'kw-cluster-'));
});

after(async () => {
  for (const s of sessions) s.dispose();
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test('initial load of a mixed cluster: counts, builds, WMCO state, BYOH not joined, snapshot', async () => {
  const s = session(emu.kubeconfig({ context: 'mixed' }));
  const state = await s.connect();
  assert.equal(state.status, 'connected');
  if (state.status !== 'connected') return;
  assert.equal(state.info.flavour, 'openshift');
  assert.ok(state.info.version);
  assert.deepEqual(state.info.nodes, { linux: 3, windows: 2 });
  assert.deepEqual(state.info.wmco, {
    present: true,
    csv: 'windows-machine-config-operator.v10.17.0',
    phase: 'Succeeded',
    version: '10.17.0',
  });
  assert.deepEqual(state.info.errors, []);

  const model = await s.windowsNodes();
  const nodes = model.nodes();
  assert.deepEqual(
    nodes.map((n) => [n.name, n.windowsVersion, n.provisioning, n.ready, n.wmco.upgrading]),
    [
      ['win-2022', 'Windows Server 2022', 'machine', true, false],
      ['win-byoh', 'Windows Server 2019', 'byoh', true, true],
    ],
  );
  assert.ok(
    !emu.requests.some(
      (r) => r.path === '/api/v1/nodes' && !r.query.includes('labelSelector') && !r.query.includes('limit=1'),
    ),
    'never a full unselected node list',
  );

  const byoh = await s.byohInstances();
  assert.ok(!isErrorItem(byoh));
  assert.deepEqual(
    byoh.instances.map((i) => [i.address, i.status, i.node]),
    [
      ['10.0.2.2', 'joined', 'win-byoh'],
      ['10.0.2.9', 'not joined', undefined],
    ],
  );
  const mirrors = await s.mirrorSets();
  assert.ok(!isErrorItem(mirrors));
  assert.deepEqual(
    mirrors.sets.map((m) => [m.kind, m.name, m.mirrors[0].source]),
    [['ImageDigestMirrorSet', 'mirrors', 'mcr.microsoft.com']],
  );

  const pods = await s.podsOfNode('win-2022');
  assert.ok(!isErrorItem(pods));
  assert.deepEqual(
    pods.map((p) => `${p.namespace}/${p.name}`),
    ['web/iis'],
  );
  assert.ok(
    emu.requests.every((r) => r.path !== '/api/v1/pods' || r.query.includes('fieldSelector=spec.nodeName%3Dwin-2022')),
    'pods asked per node',
  );

  const snap = await snapshotOf(s);
  assert.deepEqual(
    snap?.windowsNodes.map((n) => [n.name, n.build, n.taints.length]),
    [
      ['win-2022', '10.0.20348', 1],
      ['win-byoh', '10.0.17763', 1],
    ],
  );
  assert.deepEqual(
    snap?.runtimeClasses.map((r) => [r.name, r.build]),
    [['windows-2022', '10.0.20348']],
  );
  assert.equal(snap?.flavour, 'openshift');
});

test('a node going NotReady and a new Windows node arrive by watch, without a re-list', async () => {
  const s = session(emu.kubeconfig({ context: 'watch' }));
  const model = await s.windowsNodes();
  const listsBefore = nodeLists().length;

  const notReady = nextChange(model, (c) => c.type === 'modified' && c.name === 'win-2022');
  emu.patch('Node', 'win-2022', undefined, {
    status: {
      conditions: [
        { type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastHeartbeatTime: '2026-01-01T00:01:00Z' },
      ],
    },
  });
  const change = await notReady;
  assert.equal(change.type === 'modified' && change.node.ready, false);
  assert.deepEqual(model.get('win-2022')?.problems, ['Not ready (KubeletNotReady)']);

  const added = nextChange(model, (c) => c.type === 'added');
  emu.apply(node('linux-new', 'linux'));
  emu.apply(node('win-new', 'windows', { build: '10.0.26100', ip: '10.0.2.9' }));
  const a = await added;
  assert.equal(a.type === 'added' && a.name, 'win-new', 'Linux nodes never reach the model');
  assert.equal(model.get('win-new')?.windowsVersion, 'Windows Server 2025');
  assert.equal(nodeLists().length, listsBefore, 'no re-list');
  assert.equal(model.lists, 1);

  const byoh = await s.byohInstances();
  assert.ok(!isErrorItem(byoh));
  assert.equal(byoh.instances.find((i) => i.address === '10.0.2.9')?.node, 'win-new');

  emu.remove('Node', 'win-new');
  emu.remove('Node', 'linux-new');
  emu.patch('Node', 'win-2022', undefined, {
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
  });
});

test('a watch that resumes after compaction gets 410 Gone and lists again', async () => {
  const load = loadKubeconfig({ explicit: emu.kubeconfig({ context: 'gone' }) });
  assert.ok(load.ok);
  const s = new ClusterSession('gone', load.config, { timeoutMs: 5000, retryMs: 50, watchTimeoutSeconds: 1 });
  sessions.push(s);
  const model = await s.windowsNodes();
  emu.setFault({ path: /watch=true/, dropConnection: true });
  await nextChange(model, (c) => c.type === 'error');
  emu.patch('Node', 'win-byoh', undefined, { spec: { unschedulable: true } });
  emu.compact();
  emu.setFault(undefined);
  const change = await nextChange(model, (c) => c.type === 'modified' && c.name === 'win-byoh');
  assert.equal(change.type === 'modified' && change.node.cordoned, true);
  assert.equal(model.lists, 2);
  assert.equal(model.error, undefined);
  emu.patch('Node', 'win-byoh', undefined, { spec: { unschedulable: null } });
});

test('403 on one resource: that part is an error item naming the permission, the rest works', async () => {
  const s = session(emu.kubeconfig({ context: 'limited', token: 'limited-token' }));
  const state = await s.connect();
  assert.equal(state.status, 'connected');
  const model = await s.windowsNodes();
  assert.ok(model.nodes().length >= 2);
  const byoh = await s.byohInstances();
  assert.ok(isErrorItem(byoh));
  assert.equal(byoh.reason, 'forbidden');
  assert.deepEqual(byoh.permission, { verb: 'list', resource: 'configmaps', namespace: WMCO_NAMESPACE });
  assert.match(byoh.message, /not allowed to list configmaps in namespace "openshift-windows-machine-config-operator"/);
  assert.ok(!byoh.message.includes('limited-token'));
});

test('a cluster that does not answer: an error item, quickly', async () => {
  const s = session(emu.kubeconfig({ context: 'silent' }), { timeoutMs: 300 });
  emu.setFault({ hangMs: 1200, path: /^\/version$/ });
  const t0 = Date.now();
  try {
    const state = await s.connect();
    assert.equal(state.status, 'error');
    if (state.status === 'error') {
      assert.equal(state.error.reason, 'timeout');
      assert.match(state.error.message, new RegExp(`does not answer at ${emu.url.replace(/[.]/g, '\\.')}`));
    }
    assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
  } finally {
    emu.setFault(undefined);
  }
  // Nothing listening at all: unreachable, named with the URL.
  const closed = join(tmp, 'closed-config');
  writeFileSync(
    closed,
    readFileSync(emu.kubeconfig({ context: 'closed' }), 'utf8').replace(emu.url, 'https://127.0.0.1:1'),
  );
  const refused = await session(closed).connect();
  assert.equal(refused.status === 'error' && refused.error.reason, 'unreachable');
  assert.match(
    refused.status === 'error' ? refused.error.message : '',
    /^Cluster "closed" does not answer at https:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)/,
  );
});

test('the kubeconfig edited while running: the watcher fires and sessions follow', async () => {
  const file = join(tmp, 'config');
  emu.kubeconfig({ context: 'first', file });
  const load = loadKubeconfig({ explicit: file });
  assert.ok(load.ok);
  const manager = new SessionManager(load.config, { timeoutMs: 5000 });
  const first = manager.session('first');
  assert.equal((await first?.connect())?.status, 'connected');
  let fired = 0;
  const changed = new Promise<void>((resolve) => {
    const watcher = watchKubeconfig(load.location.files, () => {
      fired++;
      watcher.close();
      resolve();
    });
  });
  emu.kubeconfig({ context: 'second', file });
  await changed;
  assert.equal(fired, 1);
  const reload = loadKubeconfig({ explicit: file });
  assert.ok(reload.ok);
  assert.deepEqual(
    reload.contexts.map((c) => c.name),
    ['second'],
  );
  assert.deepEqual(manager.update(reload.config), ['first']);
  assert.equal((await manager.session('second')?.connect())?.status, 'connected');
  manager.dispose();
});

test('an exec credential plugin that fails: its stderr, or the PATH hint when it is not found', async () => {
  const file = join(tmp, 'exec-config');
  const base = emu.kubeconfig({ context: 'exec' });
  const write = (command: string, args: string[]) => {
    const text = readFileSync(base, 'utf8').replace(
      /    token: .*\n/,
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${JSON.stringify(command)}\n      args: ${JSON.stringify(args)}\n      interactiveMode: Never\n`,
    );
    writeFileSync(file, text);
  };
  write('kw-no-such-credential-plugin', []);
  const missing = await session(file).connect();
  assert.equal(missing.status, 'error');
  if (missing.status === 'error') {
    assert.equal(missing.error.reason, 'exec');
    assert.match(
      missing.error.message,
      /"kw-no-such-credential-plugin" for cluster "exec" was not found\. VS Code may not have your shell's PATH/,
    );
  }
  write(process.execPath, [
    '-e',
    "process.stderr.write('error: you must be logged in (run kw-login)'); process.exit(1)",
  ]);
  const failing = await session(file).connect();
  assert.equal(failing.status, 'error');
  if (failing.status === 'error')
    assert.match(failing.error.message, /failed: error: you must be logged in \(run kw-login\)/);
});

test('WMCO is read from its own ClusterServiceVersion only, in the namespace the settings name', async () => {
  // OLM copies the CSV of an operator installed for all namespaces into every namespace: the first
  // CSV of the WMCO namespace used to be taken for WMCO's when WMCO's own was missing.
  const ns = 'windows-operators';
  const local = await startEmulator({
    openshift: true,
    objects: [
      node('win-a', 'windows', { build: '10.0.20348' }),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name: 'cert-manager.v1.15.0', namespace: ns },
        spec: { version: '1.15.0' },
        status: { phase: 'Succeeded' },
      },
    ],
  });
  try {
    const s = new ClusterSession('local', loadKubeconfigOrThrow(local.kubeconfig({ context: 'local' })), {
      timeoutMs: 5000,
      wmcoNamespace: ns,
    });
    const state = await s.connect();
    assert.equal(state.status, 'connected');
    if (state.status === 'connected') assert.deepEqual(state.info.wmco, { present: true });
    s.dispose();
    // The default namespace does not exist here: WMCO is not installed.
    const d = new ClusterSession('local', loadKubeconfigOrThrow(local.kubeconfig({ context: 'local' })), {
      timeoutMs: 5000,
    });
    const dState = await d.connect();
    if (dState.status === 'connected') assert.deepEqual(dState.info.wmco, { present: false });
    d.dispose();
  } finally {
    await local.stop();
  }
});

test('OpenShift is recognised by config.openshift.io only: a cluster serving route.openshift.io alone (MicroShift) is Kubernetes', async () => {
  const { isOpenShiftGroups } = await import('../../src/core/well-known');
  assert.equal(isOpenShiftGroups(['apps', 'route.openshift.io']), false);
  assert.equal(isOpenShiftGroups(['apps', 'config.openshift.io', 'route.openshift.io']), true);
});

function loadKubeconfigOrThrow(path: string) {
  const load = loadKubeconfig({ explicit: path });
  if (!load.ok) throw new Error(load.message);
  return load.config;
}

test("the editor's snapshot carries storage facts: StorageClasses and the CSI drivers each Windows node registered, read once per session", async () => {
  emu.apply({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'smb', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'smb.csi.k8s.io',
  } as KubeObject);
  emu.apply({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: 'win-2022' },
    spec: { drivers: [{ name: 'disk.csi.azure.com', nodeID: 'win-2022' }] },
  } as KubeObject);
  const s = session(emu.kubeconfig({ context: 'storage' }));
  const reads = () => emu.requests.filter((r) => r.path === '/apis/storage.k8s.io/v1/csinodes').length;
  const before = reads();
  const snap = await snapshotOf(s);
  assert.deepEqual(snap?.storage?.storageClasses, [{ name: 'smb', provisioner: 'smb.csi.k8s.io', isDefault: true }]);
  const win = snap?.storage?.windowsNodes.find((n) => n.name === 'win-2022');
  assert.deepEqual(win?.drivers, ['disk.csi.azure.com']);
  assert.equal(win?.build, '10.0.20348');
  assert.ok(snap?.storage?.csiDrivers.includes('disk.csi.azure.com'));
  await snapshotOf(s);
  assert.equal(reads() - before, 1, 'read once per session');
  emu.remove('StorageClass', 'smb');
  emu.remove('CSINode', 'win-2022');
});
