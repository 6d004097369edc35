// The kubeadm join's preflight reads the kube-proxy configuration Windows kube-proxy mounts: WinDSR and
// WinOverlay are locked on from 1.34, and kube-proxy refuses to start with either set to false.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateCluster, type ClusterFacts } from '../../src/core/windows/kubeadm-cluster';
import { gatesTurnedOff, kubeProxyGatesFinding } from '../../src/core/windows/kube-proxy-gates';

/** kubeadm's kube-proxy ConfigMap, key config.conf, as `kubeadm init` writes it (trimmed). */
const config = (gates: string) => `apiVersion: kubeproxy.config.k8s.io/v1alpha1
bindAddress: 0.0.0.0
clusterCIDR: 10.244.0.0/16
featureGates:${gates}
kind: KubeProxyConfiguration
mode: ""
`;

const facts = (serverVersion: string, kubeProxyConfig?: string): ClusterFacts => ({
  serverVersion,
  controlPlane: [{ name: 'cp-1', labels: { 'node-role.kubernetes.io/control-plane': '' } }],
  calicoInstallations: [],
  daemonSets: [{ namespace: 'kube-flannel', name: 'kube-flannel-ds', images: ['docker.io/flannel/flannel:v0.25.6'] }],
  flannelNetConf: [],
  ...(kubeProxyConfig !== undefined ? { kubeProxyConfig } : {}),
});
const choices = { cni: 'auto' as const, containerdArchive: 'containerd-1.7.27-windows-amd64.tar.gz' };
const gatesOf = (f: ClusterFacts) => evaluateCluster(f, choices).findings.filter((x) => x.id === 'kube-proxy-gates');

test('from 1.34 a kube-proxy configuration that turns WinDSR or WinOverlay off blocks the join', () => {
  const off = config('\n  WinDSR: false\n  WinOverlay: "false"');
  assert.deepEqual(gatesTurnedOff(off), ['WinDSR', 'WinOverlay']);
  const [f] = gatesOf(facts('v1.34.2', off));
  assert.equal(f?.severity, 'error');
  assert.match(f?.title ?? '', /sets WinDSR: false and WinOverlay: false \(the ConfigMap kube-system\/kube-proxy/);
  assert.match(
    f?.title ?? '',
    /locked on from Kubernetes 1\.34 \(the cluster runs 1\.34\), and kube-proxy refuses to start/,
  );
  assert.match(f?.fix ?? '', /^Remove WinDSR and WinOverlay from featureGates in config\.conf/);
});

test('before 1.34, WinOverlay off is a warning and WinDSR off is allowed; gates left alone pass', () => {
  const [overlay] = gatesOf(facts('v1.33.5', config('\n  WinOverlay: false')));
  assert.equal(overlay?.severity, 'warning');
  const [dsr] = gatesOf(facts('v1.32.1', config('\n  WinDSR: false')));
  assert.equal(dsr?.severity, 'info');
  const [clean] = gatesOf(facts('v1.35.0', config(' {}')));
  assert.deepEqual(clean, {
    id: 'kube-proxy-gates',
    severity: 'info',
    title: "kube-proxy's configuration leaves WinDSR and WinOverlay on",
  });
  assert.equal(gatesOf(facts('v1.35.0', config('\n  WinDSR: true'))).at(0)?.severity, 'info');
});

test('no kube-proxy configuration (a managed cluster, or unreadable): nothing to say', () => {
  assert.deepEqual(gatesOf(facts('v1.35.0')), []);
  assert.equal(kubeProxyGatesFinding(undefined, 'v1.35.0'), undefined);
  assert.deepEqual(gatesTurnedOff(': not yaml ['), []);
});
