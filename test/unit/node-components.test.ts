// Where a Windows node's components run (src/core/windows/node-components.ts): what "not installed" means
// on OpenShift and on kubeadm, and kube-proxy as a HostProcess pod, as the API server decides HostProcess.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { needsNodePods, shownServices } from '../../src/core/windows/node-components';

const absent = (name: string) => ({ name, exists: false });
const running = (name: string) => ({ name, exists: true });
const SERVICES = [
  running('kubelet'),
  running('containerd'),
  absent('kube-proxy'),
  absent('hybrid-overlay-node'),
  absent('windows_exporter'),
  absent('csi-proxy'),
  absent('windows-instance-config-daemon'),
];

function proxyPod(
  securityContext: object,
  container: object = {},
  image = 'sigwindowstools/kube-proxy:v1.31.3-calico-hostprocess',
) {
  return {
    metadata: {
      name: 'kube-proxy-windows-abcde',
      namespace: 'kube-system',
      ownerReferences: [{ kind: 'DaemonSet', name: 'kube-proxy-windows' }],
    },
    spec: { securityContext, containers: [{ name: 'proxy', image, ...container }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
const names = (rows: { name: string; pod?: unknown }[]) => rows.map((r) => (r.pod ? `${r.name} (pod)` : r.name));

test('kubeadm: WMCO services and an absent CSI Proxy are not shown; kube-proxy is its HostProcess pod', () => {
  const pods = [proxyPod({ windowsOptions: { hostProcess: true } })];
  assert.ok(needsNodePods(SERVICES));
  const rows = shownServices(SERVICES, { distribution: 'kubernetes', pods });
  assert.deepEqual(names(rows), ['kubelet', 'containerd', 'kube-proxy (pod)']);
  assert.deepEqual(rows[2], {
    name: 'kube-proxy',
    pod: {
      namespace: 'kube-system',
      name: 'kube-proxy-windows-abcde',
      phase: 'Running',
      ready: true,
      daemonSet: 'kube-proxy-windows',
    },
  });
});

test('OpenShift: every service WMCO installs that is absent stays "not installed"', () => {
  assert.deepEqual(
    names(shownServices(SERVICES, { distribution: 'openshift', pods: [] })),
    SERVICES.map((s) => s.name),
  );
});

test('HostProcess as the API server decides it: the container value wins over the pod value; a plain pod is no stand-in', () => {
  const overridden = proxyPod(
    { windowsOptions: { hostProcess: true } },
    {
      securityContext: { windowsOptions: { hostProcess: false } },
    },
  );
  const plain = proxyPod({});
  const otherImage = proxyPod(
    { windowsOptions: { hostProcess: true } },
    {},
    'mcr.microsoft.com/oss/kubernetes/pause:3.9',
  );
  for (const pod of [overridden, plain, otherImage])
    assert.deepEqual(names(shownServices(SERVICES, { distribution: 'kubernetes', pods: [pod] })), [
      'kubelet',
      'containerd',
      'kube-proxy',
    ]);
  // By container name, whatever the image.
  const named = proxyPod({ windowsOptions: { hostProcess: true } }, { name: 'kube-proxy' }, 'registry.example/kp:1');
  assert.deepEqual(
    names(shownServices(SERVICES, { distribution: 'kubernetes', pods: [named] })).at(-1),
    'kube-proxy (pod)',
  );
  // kube-proxy running as a service: nothing to look for.
  assert.ok(!needsNodePods([running('kube-proxy')]));
});
