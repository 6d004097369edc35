// What the Clusters view shows depends on the kind of cluster: a plain kubeadm cluster has no OpenShift
// furniture (no BYOH instances, no Mirror sets, no MachineSets, no WMCO services "not installed"), and
// kube-proxy running as a HostProcess pod (sig-windows-tools' DaemonSet, the kubeadm path) is shown as
// such, not as a missing service. Against the API emulator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { linuxNode, mixedCluster, namespace, pod, runtimeClass, windowsNode } from '../support/kube-seed';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { NodeServicesAnswer } from '../../src/cluster/windows-nodes';
import { ask, byLabel } from '../support/tree-view';

let kubeadm: Emulator;
let ocp: Emulator;
let tmp: string;
const trees: ClusterTree[] = [];

/** What a node answers over SSH when it was joined with kubeadm: kubelet and containerd are services, nothing else. */
const KUBEADM_NODE: NodeServicesAnswer = {
  services: [
    { name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' },
    { name: 'containerd', exists: true, status: 'Running', startType: 'Automatic' },
    ...['kube-proxy', 'hybrid-overlay-node', 'windows_exporter', 'csi-proxy', 'windows-instance-config-daemon'].map(
      (name) => ({ name, exists: false, status: null, startType: null }),
    ),
  ],
};

/** The pod sig-windows-tools' kube-proxy DaemonSet runs on a Windows node: HostProcess, owned by the DaemonSet. */
function kubeProxyPod(node: string, opts: { ready: boolean }): KubeObject {
  const p = pod(`kube-proxy-windows-x7k2p`, 'kube-system', node, {
    windows: true,
    image: 'sigwindowstools/kube-proxy:v1.31.3-calico-hostprocess',
  }) as KubeObject & { spec: Record<string, unknown>; status: Record<string, unknown> };
  p.metadata.ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy-windows', uid: 'ds-uid', controller: true },
  ];
  p.spec.containers = [{ name: 'kube-proxy', image: 'sigwindowstools/kube-proxy:v1.31.3-calico-hostprocess' }];
  p.spec.hostNetwork = true;
  p.spec.securityContext = { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\system' } };
  p.status.conditions = [{ type: 'Ready', status: opts.ready ? 'True' : 'False' }];
  return p;
}

before(async () => {
  kubeadm = await startEmulator({
    objects: [
      namespace('default'),
      namespace('kube-system'),
      linuxNode('control-plane', { role: 'master', address: '10.0.0.10' }),
      windowsNode('win-kadm1', { build: '10.0.20348', address: '10.0.0.21', unmanaged: true }),
      windowsNode('win-kadm2', { build: '10.0.20348', address: '10.0.0.22', unmanaged: true }),
      kubeProxyPod('win-kadm1', { ready: true }),
      runtimeClass('windows-2022', '10.0.20348'),
    ],
    openshift: false,
  });
  ocp = await startEmulator({ objects: mixedCluster(), openshift: true });
  tmp = mkdtempSync(join(tmpdir(), 'kw-tree-dist-'));
});

after(async () => {
  for (const t of trees) t.dispose();
  await kubeadm.stop();
  await ocp.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function tree(kubeconfig: string, answer: NodeServicesAnswer): ClusterTree {
  const t = new ClusterTree({
    locate: { explicit: kubeconfig },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
    services: () => Promise.resolve(answer),
  });
  trees.push(t);
  return t;
}

const rowsOf = (rows: { label: string; description?: string; contextValue: string }[]) =>
  rows.map((r) => [r.label, r.description, r.contextValue]);

test('kubeadm: only the Windows nodes and RuntimeClasses groups, and no request for OpenShift objects', async () => {
  const t = tree(kubeadm.kubeconfig({ context: 'kadm', file: join(tmp, 'kadm') }), KUBEADM_NODE);
  const [root] = await ask(t);
  const kids = await ask(t, root);
  assert.match(kids[0].label, / · Kubernetes · no WMCO · 1 Linux \/ 2 Windows nodes$/);
  assert.deepEqual(
    kids.slice(1).map((k) => k.label),
    ['Windows nodes', 'Windows RuntimeClasses', 'Admission policies'],
  );
  assert.deepEqual(
    (await ask(t, byLabel(kids, 'Windows RuntimeClasses'))).map((r) => r.label),
    ['windows-2022'],
  );
  assert.deepEqual(
    kubeadm.requests.filter(
      (r) => r.path.includes('windows-instances') || r.path.includes('config.openshift.io/v1/image'),
    ),
    [],
    'no read of the windows-instances ConfigMap or of mirror sets',
  );
});

test('kubeadm: a node\'s services are kubelet, containerd and kube-proxy as its HostProcess pod; no WMCO service "not installed"', async () => {
  const t = tree(kubeadm.kubeconfig({ context: 'kadm-svc', file: join(tmp, 'kadm-svc') }), KUBEADM_NODE);
  const [root] = await ask(t);
  const nodes = await ask(t, byLabel(await ask(t, root), 'Windows nodes'));
  const services = await ask(t, byLabel(await ask(t, byLabel(nodes, 'win-kadm1')), 'Services'));
  assert.deepEqual(rowsOf(services), [
    ['kubelet', 'Running · Automatic', 'windowsService'],
    ['containerd', 'Running · Automatic', 'windowsService'],
    ['kube-proxy', 'Running · HostProcess pod', 'info'],
  ]);
  const proxy = byLabel(services, 'kube-proxy');
  assert.match(
    proxy.tooltip.replace(/\\/g, ''),
    /HostProcess pod kube-system\/kube-proxy-windows-x7k2p of DaemonSet kube-proxy-windows/,
  );
  assert.equal(proxy.icon.id, 'pass');
  assert.deepEqual(proxy.ref, { kind: 'detail', context: 'kadm-svc', node: 'win-kadm1' });

  // A node without the pod (yet): kube-proxy is missing indeed, and says so.
  const other = await ask(t, byLabel(await ask(t, byLabel(nodes, 'win-kadm2')), 'Services'));
  assert.deepEqual(rowsOf(other), [
    ['kubelet', 'Running · Automatic', 'windowsService'],
    ['containerd', 'Running · Automatic', 'windowsService'],
    ['kube-proxy', 'not installed', 'info'],
  ]);
});

test('OpenShift: the WMCO services a node lacks are "not installed" (WMCO installs them there)', async () => {
  const t = tree(ocp.kubeconfig({ context: 'ocp', file: join(tmp, 'ocp') }), KUBEADM_NODE);
  const [root] = await ask(t);
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
  const nodes = await ask(t, byLabel(kids, 'Windows nodes'));
  const services = await ask(t, byLabel(await ask(t, byLabel(nodes, 'winworker-2022-b')), 'Services'));
  assert.deepEqual(
    services.filter((s) => s.description === 'not installed').map((s) => s.label),
    ['kube-proxy', 'hybrid-overlay-node', 'windows_exporter', 'csi-proxy', 'windows-instance-config-daemon'],
  );
});
