// The cluster part of the kubeadm join's preflight, pure: CNI detection, flannel's backend, the
// control plane, the version skew policy, containerd's HostProcess support, builds per version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  binaryVersionProblem,
  checkBuildForKubernetes,
  checkContainerdForHostProcess,
  checkControlPlane,
  checkFlannelNetConf,
  checkVersionSkew,
  detectCni,
  evaluateCluster,
  kubernetesVersionProblem,
  parseKubeVersion,
  type ClusterFacts,
} from '../../src/core/windows/kubeadm-cluster';
import { reservationProblem } from '../../src/core/windows/join-input';
import { kubeletServiceCommand, nodeIpOf } from '../../src/core/windows/kubeadm';

const BASE: ClusterFacts = {
  serverVersion: 'v1.31.3',
  controlPlane: [
    { name: 'cp-1', labels: { 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/control-plane': '' } },
  ],
  calicoInstallations: [],
  daemonSets: [{ namespace: 'kube-system', name: 'kube-proxy', images: ['registry.k8s.io/kube-proxy:v1.31.3'] }],
  flannelNetConf: [],
};
const CALICO = {
  namespace: 'kube-system',
  name: 'calico-node',
  images: ['docker.io/calico/cni:v3.28.2', 'docker.io/calico/node:v3.28.2'],
};
const FLANNEL = {
  namespace: 'kube-flannel',
  name: 'kube-flannel-ds',
  images: ['docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2', 'docker.io/flannel/flannel:v0.25.6'],
};
const errors = (fs: { severity: string; id: string }[]) => fs.filter((f) => f.severity === 'error').map((f) => f.id);
const choices = { cni: 'auto' as const, containerdArchive: 'containerd-1.7.27-windows-amd64.tar.gz' };

test('versions: release versions parse (with build suffixes); --kubernetes-version takes vX.Y.Z only', () => {
  assert.deepEqual(parseKubeVersion('v1.31.3'), { major: 1, minor: 31, patch: 3 });
  assert.deepEqual(parseKubeVersion('v1.31.3-dirty'), { major: 1, minor: 31, patch: 3 });
  assert.deepEqual(parseKubeVersion('1.30.0+k3s1'), { major: 1, minor: 30, patch: 0 });
  assert.equal(parseKubeVersion('1.31'), undefined);
  assert.equal(kubernetesVersionProblem('v1.31.3'), undefined);
  for (const bad of ['1.31.3', 'v1.31', 'latest', 'v1.31.3-rc.1'])
    assert.match(kubernetesVersionProblem(bad) ?? '', /vX\.Y\.Z/, bad);
});

test('version skew: kubelet not newer than the API server, at most 3 minors older (2 before 1.25); kubeadm of the same minor', () => {
  assert.deepEqual(errors(checkVersionSkew('v1.31.3', 'v1.31.3')), []);
  assert.deepEqual(errors(checkVersionSkew('v1.31.0', 'v1.31.3')), [], 'an older patch is fine');
  assert.deepEqual(errors(checkVersionSkew('v1.31.4', 'v1.31.3')), ['kubelet-skew'], 'a newer patch is newer');
  const newer = checkVersionSkew('v1.32.0', 'v1.31.3');
  assert.deepEqual(errors(newer), ['kubelet-skew']);
  assert.match(newer[0]!.title, /newer than the API server \(v1\.31\.3\)/);
  assert.match(newer[0]!.fix ?? '', /--kubernetes-version v1\.31\.3/);
  assert.deepEqual(errors(checkVersionSkew('v1.27.9', 'v1.31.3')), ['kubelet-skew'], '4 minors older');
  assert.match(checkVersionSkew('v1.27.9', 'v1.31.3')[0]!.title, /4 minor versions older .* at most 3/);
  assert.deepEqual(
    errors(checkVersionSkew('v1.28.0', 'v1.31.3')),
    ['kubeadm-skew'],
    'the kubelet may be 3 older, but kubeadm cannot join a newer control plane',
  );
  assert.match(checkVersionSkew('v1.21.0', 'v1.24.0')[0]!.title, /at most 2/);
});

test('binaries: the version they report must be the planned one', () => {
  assert.equal(binaryVersionProblem('kubelet.exe', 'Kubernetes v1.31.3\r\n', 'v1.31.3'), undefined);
  assert.equal(binaryVersionProblem('kubeadm.exe', 'v1.31.3\r\n', 'v1.31.3'), undefined);
  assert.match(
    binaryVersionProblem('kubelet.exe', 'Kubernetes v1.30.6\r\n', 'v1.31.3') ?? '',
    /kubelet\.exe reports v1\.30\.6, but the join is for v1\.31\.3/,
  );
  assert.match(
    binaryVersionProblem('kubeadm.exe', 'not a valid application', 'v1.31.3') ?? '',
    /does not report a version/,
  );
});

test('containerd: < 1.6 cannot run HostProcess containers (refused), 1.6 warns (1.7 recommended), 1.7 and 2.x pass', () => {
  assert.equal(checkContainerdForHostProcess('containerd-1.5.18-windows-amd64.tar.gz').severity, 'error');
  assert.match(
    checkContainerdForHostProcess('containerd-1.5.18-windows-amd64.tar.gz').title,
    /cannot run HostProcess containers/,
  );
  assert.equal(checkContainerdForHostProcess('containerd-1.6.36-windows-amd64.tar.gz').severity, 'warning');
  assert.equal(checkContainerdForHostProcess('containerd-1.7.27-windows-amd64.tar.gz').severity, 'info');
  assert.equal(checkContainerdForHostProcess('containerd-2.0.4-windows-amd64.tar.gz').severity, 'info');
  assert.equal(checkContainerdForHostProcess('containerd.tar.gz').severity, 'warning');
});

test('Windows builds per Kubernetes version', () => {
  assert.equal(checkBuildForKubernetes(20348, 'v1.31.3').severity, 'info');
  assert.equal(checkBuildForKubernetes(17763, 'v1.31.3').severity, 'info');
  assert.equal(checkBuildForKubernetes(26100, 'v1.31.3').severity, 'error');
  assert.equal(checkBuildForKubernetes(26100, 'v1.32.0').severity, 'info');
  assert.equal(checkBuildForKubernetes(19041, 'v1.31.3').severity, 'error');
});

test('control plane: Linux passes, a Windows control-plane node is refused, none visible is a managed control plane', () => {
  assert.equal(checkControlPlane(BASE.controlPlane).severity, 'info');
  assert.equal(checkControlPlane([]).severity, 'info');
  const f = checkControlPlane([{ name: 'cp-w', labels: { 'kubernetes.io/os': 'windows' } }]);
  assert.equal(f.severity, 'error');
  assert.match(f.title, /cp-w \(windows\) is not Linux/);
});

test('CNI: Calico by DaemonSet (manifest) or Installation (operator), Flannel by DaemonSet, by what runs; Windows DaemonSets and others are not mistaken', () => {
  assert.deepEqual(detectCni({ ...BASE, daemonSets: [...BASE.daemonSets, CALICO] }), [
    {
      kind: 'calico',
      via: 'DaemonSet kube-system/calico-node',
      namespace: 'kube-system',
      daemonSet: 'calico-node',
      version: 'v3.28.2',
    },
  ]);
  const op = detectCni({
    ...BASE,
    calicoInstallations: [{ name: 'default', windowsDataplane: 'HNS' }],
    daemonSets: [
      { ...CALICO, namespace: 'calico-system' },
      { namespace: 'calico-system', name: 'calico-node-windows', images: ['docker.io/calico/node-windows:v3.28.2'] },
    ],
  });
  assert.equal(op.length, 1);
  assert.equal(op[0]!.operator, true);
  assert.equal(op[0]!.version, 'v3.28.2');
  assert.deepEqual(
    detectCni({ ...BASE, daemonSets: [{ ...FLANNEL, name: 'renamed' }] }).map((d) => [d.kind, d.version]),
    [['flannel', 'v0.25.6']],
    'found by its image, whatever its name',
  );
  assert.deepEqual(
    detectCni({
      ...BASE,
      daemonSets: [{ namespace: 'kube-system', name: 'cilium', images: ['quay.io/cilium/cilium:v1.16.3'] }],
    }),
    [],
  );
  assert.deepEqual(
    detectCni({
      ...BASE,
      daemonSets: [
        {
          namespace: 'kube-flannel',
          name: 'kube-flannel-ds-windows-amd64',
          images: ['sigwindowstools/flannel:v0.21.5-hostprocess'],
        },
      ],
    }),
    [],
  );
});

test("flannel's net-conf.json: vxlan with VNI 4096 and port 4789, else exactly what to change", () => {
  assert.equal(
    checkFlannelNetConf(
      'kube-flannel',
      JSON.stringify({ Network: '10.244.0.0/16', Backend: { Type: 'vxlan', VNI: 4096, Port: 4789 } }),
    ).severity,
    'info',
  );
  const dflt = checkFlannelNetConf(
    'kube-flannel',
    JSON.stringify({ Network: '10.244.0.0/16', Backend: { Type: 'vxlan' } }),
  );
  assert.equal(dflt.severity, 'error');
  assert.match(
    dflt.title,
    /VNI is unset \(flannel defaults to 1\) \(must be 4096\), Port is unset \(flannel defaults to 8472\) \(must be 4789\) in kube-flannel\/kube-flannel-cfg net-conf\.json/,
  );
  assert.match(dflt.fix ?? '', /"Backend": \{"Type": "vxlan", "VNI": 4096, "Port": 4789\}/);
  const hostgw = checkFlannelNetConf('kube-flannel', JSON.stringify({ Backend: { Type: 'host-gw' } }));
  assert.match(hostgw.title, /Type is "host-gw" \(must be "vxlan"\)/);
  assert.equal(checkFlannelNetConf('kube-flannel', '{not json').severity, 'error');
  assert.equal(checkFlannelNetConf('kube-flannel', undefined).severity, 'error');
});

test('evaluateCluster: the decisions (CNI, version: the API server’s by default) and every refusal', () => {
  const calico = evaluateCluster({ ...BASE, daemonSets: [...BASE.daemonSets, CALICO] }, choices);
  assert.deepEqual(errors(calico.findings), []);
  assert.equal(calico.cni?.kind, 'calico');
  assert.equal(calico.kubernetesVersion, 'v1.31.3');
  assert.equal(evaluateCluster({ ...BASE, serverVersion: 'v1.31.3-eks-1234' }, choices).kubernetesVersion, 'v1.31.3');

  const none = evaluateCluster(
    {
      ...BASE,
      daemonSets: [
        ...BASE.daemonSets,
        { namespace: 'kube-system', name: 'cilium', images: ['quay.io/cilium/cilium:v1.16.3'] },
      ],
    },
    choices,
  );
  assert.deepEqual(errors(none.findings), ['cni']);
  assert.match(
    none.findings.find((f) => f.id === 'cni')!.title,
    /kube-system\/cilium\): this network plugin is not supported for Windows/,
  );

  const wrongChoice = evaluateCluster({ ...BASE, daemonSets: [CALICO] }, { ...choices, cni: 'flannel' });
  assert.match(
    wrongChoice.findings.find((f) => f.id === 'cni')!.title,
    /--cni flannel was asked, but the cluster runs calico/,
  );
  const both = evaluateCluster(
    {
      ...BASE,
      daemonSets: [CALICO, FLANNEL],
      flannelNetConf: [{ namespace: 'kube-flannel', text: '{"Backend":{"Type":"vxlan","VNI":4096,"Port":4789}}' }],
    },
    choices,
  );
  assert.deepEqual(errors(both.findings), ['cni']);
  assert.equal(
    evaluateCluster(
      {
        ...BASE,
        daemonSets: [CALICO, FLANNEL],
        flannelNetConf: [{ namespace: 'kube-flannel', text: '{"Backend":{"Type":"vxlan","VNI":4096,"Port":4789}}' }],
      },
      { ...choices, cni: 'flannel' },
    ).cni?.kind,
    'flannel',
  );

  const badFlannel = evaluateCluster(
    {
      ...BASE,
      daemonSets: [FLANNEL],
      flannelNetConf: [{ namespace: 'kube-flannel', text: '{"Backend":{"Type":"vxlan"}}' }],
    },
    choices,
  );
  assert.deepEqual(errors(badFlannel.findings), ['flannel-backend']);

  const operatorOff = evaluateCluster(
    { ...BASE, calicoInstallations: [{ name: 'default' }], daemonSets: [{ ...CALICO, namespace: 'calico-system' }] },
    choices,
  );
  assert.deepEqual(errors(operatorOff.findings), ['calico-windows']);
  assert.match(operatorOff.findings.find((f) => f.id === 'calico-windows')!.fix ?? '', /windowsDataplane":"HNS"/);

  const skew = evaluateCluster({ ...BASE, daemonSets: [CALICO] }, { ...choices, kubernetesVersion: 'v1.32.0' });
  assert.deepEqual(errors(skew.findings), ['kubelet-skew']);
  const digest = evaluateCluster(
    { ...BASE, daemonSets: [{ ...CALICO, images: ['docker.io/calico/node@sha256:' + 'a'.repeat(64)] }] },
    choices,
  );
  assert.deepEqual(errors(digest.findings), []);
  assert.match(
    digest.findings.find((f) => f.id === 'cni-version')?.title ?? '',
    /cannot be read from its image \(no tag\): its Windows part will use calico v3\.28\.2/,
  );
  const old = evaluateCluster(
    { ...BASE, daemonSets: [CALICO] },
    { ...choices, containerdArchive: 'containerd-1.5.18-windows-amd64.tar.gz' },
  );
  assert.deepEqual(errors(old.findings), ['containerd-version']);
});

test('kubelet flags: reservations validated like cpu=500m,memory=1Gi; taints at registration, node IP, defaults for system-reserved and eviction', () => {
  for (const good of [
    'cpu=500m,memory=1Gi',
    'memory=2Gi',
    'cpu=1,memory=512Mi,ephemeral-storage=10Gi,pid=1000',
    'cpu=0.5',
  ])
    assert.equal(reservationProblem(good), undefined, good);
  assert.match(reservationProblem('cpu') ?? '', /resource=quantity pairs/);
  assert.match(reservationProblem('gpu=1') ?? '', /cannot reserve "gpu"/);
  assert.match(reservationProblem('cpu=1,cpu=2') ?? '', /names cpu twice/);
  assert.match(reservationProblem('memory=1GB') ?? '', /"1GB" is not a quantity/);
  assert.match(reservationProblem('memory=1Gi;rm') ?? '', /not a quantity/);
  const cmd = kubeletServiceCommand('win-a', {
    nodeIp: '10.0.0.5',
    registerTaint: true,
    kubeReserved: 'cpu=500m,memory=1Gi',
  });
  for (const flag of [
    '--node-ip=10.0.0.5',
    '--register-with-taints=os=windows:NoSchedule',
    '--kube-reserved=cpu=500m,memory=1Gi',
    '--system-reserved=memory=2Gi',
    '--eviction-hard=memory.available<500Mi,nodefs.available<10%',
  ])
    assert.ok(cmd.includes(` ${flag} `), flag);
  assert.ok(!kubeletServiceCommand('win-a').includes('--register-with-taints'), 'no taint unless chosen');
  assert.throws(() => kubeletServiceCommand('win-a', { kubeReserved: 'cpu=1 --evil' }), /invalid reservation/);
  assert.throws(() => kubeletServiceCommand('win-a', { nodeIp: '1.2.3.4 --x' }), /invalid node IP/);
  assert.equal(
    nodeIpOf({ adapters: [{ name: 'e', ipv4: ['10.0.0.5'] }], defaultRouteIPv4: '10.0.0.9' }, '10.0.0.5'),
    '10.0.0.5',
  );
  assert.equal(
    nodeIpOf({ adapters: [{ name: 'e', ipv4: ['10.0.0.5'] }], defaultRouteIPv4: '10.0.0.9' }, 'win-a.example.com'),
    '10.0.0.9',
  );
});
