// The cluster objects of the kubeadm join, pure: the Windows networking DaemonSets per CNI (and what
// already exists is reused), the RuntimeClass per build, the probe pod; every generated manifest
// passes kube-windows' own check with no error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dump } from 'js-yaml';
import { checkText } from '../../src/core/rules/checker';
import {
  existingDaemonSet,
  kubeProxyWindows,
  nthAddress,
  probePod,
  runtimeClassFor,
  runtimeClassMatches,
  windowsNetworkingObjects,
  type NetworkingInput,
} from '../../src/core/windows/kubeadm-networking';

const CALICO: NetworkingInput = {
  cni: {
    kind: 'calico',
    via: 'DaemonSet kube-system/calico-node',
    namespace: 'kube-system',
    daemonSet: 'calico-node',
    version: 'v3.28.2',
  },
  serverVersion: 'v1.31.3',
  endpoint: '10.0.0.10:6443',
  serviceSubnet: '10.96.0.0/12',
};
const OPERATOR: NetworkingInput = {
  ...CALICO,
  cni: { kind: 'calico', via: 'Installation default', namespace: 'calico-system', operator: true, version: 'v3.28.2' },
};
const FLANNEL: NetworkingInput = {
  ...CALICO,
  cni: {
    kind: 'flannel',
    via: 'DaemonSet kube-flannel/kube-flannel-ds',
    namespace: 'kube-flannel',
    daemonSet: 'kube-flannel-ds',
    version: 'v0.25.6',
  },
};

const yaml = (objects: object[]) => objects.map((o) => dump(o, { noRefs: true, lineWidth: -1 })).join('---\n');

test('the generated Windows networking objects, the RuntimeClass and the probe pod pass kube-windows check with no error (no finding at all)', () => {
  for (const [name, input] of [
    ['calico', CALICO],
    ['calico operator', OPERATOR],
    ['flannel', FLANNEL],
  ] as const) {
    const text = yaml([...windowsNetworkingObjects(input), runtimeClassFor(20348)!, probePod('win-1', 20348)]);
    const r = checkText(text);
    assert.deepEqual(r.ruleErrors, [], name);
    assert.deepEqual(
      r.findings.map((f) => `${f.severity} ${f.ruleId}: ${f.message}`),
      [],
      name,
    );
  }
});

test('per CNI: kube-proxy pinned to the API server version; Calico manifest → calico-node-windows + config; operator → kube-proxy only; Flannel → its Windows DaemonSet and CNI config', () => {
  const names = (i: NetworkingInput) =>
    windowsNetworkingObjects(i).map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
  assert.deepEqual(names(CALICO), [
    'ConfigMap kube-system/calico-windows-config',
    'DaemonSet kube-system/calico-node-windows',
    'DaemonSet kube-system/kube-proxy-windows',
  ]);
  assert.deepEqual(names(OPERATOR), ['DaemonSet kube-system/kube-proxy-windows']);
  assert.deepEqual(names(FLANNEL), [
    'ConfigMap kube-flannel/kube-flannel-windows-cfg',
    'DaemonSet kube-flannel/kube-flannel-ds-windows-amd64',
    'DaemonSet kube-system/kube-proxy-windows',
  ]);
  const kp = JSON.stringify(kubeProxyWindows('flannel', 'v1.31.3-eks-1'));
  assert.match(kp, /"image":"sigwindowstools\/kube-proxy:v1\.31\.3-flannel-hostprocess"/);
  assert.match(kp, /"hostProcess":true,"runAsUserName":"NT AUTHORITY\\\\system"/);
  const calico = JSON.stringify(windowsNetworkingObjects(CALICO));
  assert.match(calico, /calico\/node-windows:v3\.28\.2/);
  assert.match(calico, /"DNS_NAME_SERVERS":"10\.96\.0\.10"/);
  assert.match(calico, /"KUBERNETES_SERVICE_HOST":"10\.0\.0\.10","KUBERNETES_SERVICE_PORT":"6443"/);
  const flannel = JSON.stringify(windowsNetworkingObjects(FLANNEL));
  assert.match(flannel, /sigwindowstools\/flannel:v0\.25\.6-hostprocess/);
  assert.match(flannel, /flannel\.4096/);
  assert.equal(nthAddress('10.96.0.0/12', 10), '10.96.0.10');
});

test('reuse: by name, or a DaemonSet that runs the same thing on Windows nodes; never a Linux one', () => {
  const kp = kubeProxyWindows('calico', 'v1.31.3');
  assert.equal(
    existingDaemonSet(kp, [
      {
        namespace: 'kube-system',
        name: 'kube-proxy',
        images: ['registry.k8s.io/kube-proxy:v1.31.3'],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
      },
    ]),
    undefined,
  );
  assert.equal(
    existingDaemonSet(kp, [{ namespace: 'kube-system', name: 'kube-proxy-windows', images: ['x'] }])?.why,
    'same name',
  );
  assert.match(
    existingDaemonSet(kp, [
      { namespace: 'kube-system', name: 'kp-win', images: ['sigwindowstools/kube-proxy:v1.31.3-calico-hostprocess'] },
    ])?.why ?? '',
    /runs sigwindowstools\/kube-proxy/,
  );
  const calicoWin = windowsNetworkingObjects(CALICO)[1]!;
  assert.ok(
    existingDaemonSet(calicoWin, [
      { namespace: 'calico-system', name: 'calico-node-windows', images: ['docker.io/calico/node-windows:v3.28.2'] },
    ]),
  );
});

test('RuntimeClass per build (windows-2019/2022/2025, runhcs-wcow-process, build selector, os=windows toleration); probe pod per build', () => {
  const rc = runtimeClassFor(17763) as unknown as {
    metadata: { name: string };
    handler: string;
    scheduling: { nodeSelector: Record<string, string>; tolerations: unknown[] };
  };
  assert.equal(rc.metadata.name, 'windows-2019');
  assert.equal(rc.handler, 'runhcs-wcow-process');
  assert.deepEqual(rc.scheduling.nodeSelector, {
    'kubernetes.io/os': 'windows',
    'node.kubernetes.io/windows-build': '10.0.17763',
  });
  assert.deepEqual(rc.scheduling.tolerations, [
    { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
    { key: 'os', operator: 'Equal', value: 'Windows', effect: 'NoSchedule' },
  ]);
  assert.equal(runtimeClassFor(26100)?.metadata.name, 'windows-2025');
  assert.equal(runtimeClassFor(19041), undefined);
  assert.ok(
    runtimeClassMatches(
      {
        handler: 'runhcs-wcow-process',
        scheduling: { nodeSelector: { 'node.kubernetes.io/windows-build': '10.0.17763' } },
      },
      runtimeClassFor(17763)!,
    ),
  );
  assert.ok(
    !runtimeClassMatches(
      {
        handler: 'runhcs-wcow-hypervisor',
        scheduling: { nodeSelector: { 'node.kubernetes.io/windows-build': '10.0.17763' } },
      },
      runtimeClassFor(17763)!,
    ),
  );
  assert.match(JSON.stringify(probePod('win-1', 17763)), /nanoserver:1809".*"command":\["cmd","\/c","echo ok"\]/);
  assert.match(JSON.stringify(probePod('win-1', 20348)), /nanoserver:ltsc2022/);
  assert.equal((probePod('win-1', 20348) as unknown as { spec: { nodeName: string } }).spec.nodeName, 'win-1');
});

test('the waits say why: no pod yet, CrashLoopBackOff with the last words, ImagePullBackOff, Pending; the probe: succeeded, failed, waiting', async () => {
  const { daemonSetPodState, probeState } = await import('../../src/core/windows/kubeadm-networking');
  const owned = (status: object) => ({
    metadata: { name: 'calico-node-windows-x1', ownerReferences: [{ kind: 'DaemonSet', name: 'calico-node-windows' }] },
    status,
  });
  assert.match(
    daemonSetPodState('calico-node-windows', 'win-1', []) as string,
    /calico-node-windows has no pod on win-1 yet/,
  );
  assert.equal(
    daemonSetPodState('calico-node-windows', 'win-1', [
      owned({ phase: 'Running', containerStatuses: [{ name: 'node', ready: true }] }),
    ]),
    true,
  );
  const crash = owned({
    phase: 'Running',
    containerStatuses: [
      { name: 'node', ready: true },
      {
        name: 'felix',
        ready: false,
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
        lastState: { terminated: { exitCode: 1, message: 'HNS network "Calico" not found' } },
      },
    ],
  });
  assert.equal(
    daemonSetPodState('calico-node-windows', 'win-1', [crash]),
    'calico-node-windows on win-1 is in CrashLoopBackOff: felix: HNS network "Calico" not found',
  );
  assert.equal(
    daemonSetPodState('calico-node-windows', 'win-1', [
      owned({
        phase: 'Pending',
        containerStatuses: [{ name: 'node', state: { waiting: { reason: 'ContainerCreating' } } }],
      }),
    ]),
    'calico-node-windows on win-1 is Pending (ContainerCreating)',
  );
  assert.deepEqual(probeState({ metadata: { name: 'p' }, status: { phase: 'Succeeded' } }, 'win-1'), { done: true });
  assert.match(
    (
      probeState(
        {
          metadata: { name: 'p' },
          status: {
            phase: 'Failed',
            containerStatuses: [{ name: 'probe', state: { terminated: { exitCode: 1, reason: 'Error' } } }],
          },
        },
        'win-1',
      ) as {
        failed: string;
      }
    ).failed,
    /probe pod on win-1 failed: Error: probe exited with 1/,
  );
  assert.match((probeState(undefined, 'win-1') as { waiting: string }).waiting, /not there yet/);
});
