// The pure parts of the reboot and kubeadm plans (src/core/windows/reboot.ts, kubeadm.ts): what each
// step checks and what it says, without SSH or a cluster; and the plans' step lists, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  blockedWaiting,
  cordonedNote,
  drainBlocked,
  durationText,
  emptyDirRefusal,
  isAwsProvider,
  notReadyObserved,
  restartProgress,
  severalBudgets,
} from '../../src/core/windows/reboot';
import {
  caCertHash,
  clusterInfoEndpoint,
  containerdService,
  containersFeatureOn,
  kubeadmJoinFailure,
  kubeletService,
  restartNeed,
  serviceInPlace,
} from '../../src/core/windows/kubeadm';
import { buildRebootPlan, type RebootNode } from '../../src/bootstrap/reboot';
import { buildKubeadmJoinPlan } from '../../src/bootstrap/kubeadm';
import { generateCerts } from '../support/kube-emulator/certs';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { WindowsHost } from '../../src/remote/windows-host';
import type { Payload } from '../../src/bootstrap/payload';

test('reboot: the restart happened only when the boot time changed after it was recorded', () => {
  assert.equal(restartProgress(undefined, '2026-11-25T06:00:00Z'), 'todo');
  assert.deepEqual(restartProgress('2026-11-25T06:00:00Z', '2026-11-25T06:00:00Z'), {
    todo: 'the restart was requested but has not happened yet',
  });
  assert.equal(restartProgress('2026-11-25T06:00:00Z', '2026-11-25T06:05:00Z'), 'done');
});

test('reboot: NotReady was seen when Ready is not True, or turned True after the new boot', () => {
  assert.equal(notReadyObserved(undefined, undefined), true);
  assert.equal(notReadyObserved({ status: 'Unknown' }, undefined), true);
  assert.equal(
    notReadyObserved({ status: 'True', lastTransitionTime: '2026-11-25T05:00:00Z' }, '2026-11-25T06:00:00Z'),
    false,
  );
  assert.equal(
    notReadyObserved({ status: 'True', lastTransitionTime: '2026-11-25T06:02:00Z' }, '2026-11-25T06:00:00Z'),
    true,
  );
  // Within the second of rounding between the host's clock and the condition's.
  assert.equal(
    notReadyObserved({ status: 'True', lastTransitionTime: '2026-11-25T05:59:59.500Z' }, '2026-11-25T06:00:00Z'),
    true,
  );
  assert.equal(notReadyObserved({ status: 'True', lastTransitionTime: '2026-11-25T06:02:00Z' }, undefined), false);
});

test('reboot: the words for each way the drain stops name the node, the pods and the budgets', () => {
  assert.equal(durationText(90_000), '2 min');
  assert.equal(durationText(45_000), '45 s');
  assert.equal(isAwsProvider('aws:///us-east-1a/i-0abc'), true);
  assert.equal(isAwsProvider('azure:///subscriptions/x'), false);
  assert.equal(isAwsProvider(undefined), false);
  assert.match(cordonedNote('win-1'), /win-1 stays cordoned.*kube-windows nodes uncordon win-1/);
  assert.match(
    emptyDirRefusal('win-1', ['web/cache-0']),
    /^Cannot drain win-1: web\/cache-0 use emptyDir volumes.*--delete-emptydir-data/,
  );
  assert.match(severalBudgets('web/iis-0', ['web/a', 'web/b']), /several PodDisruptionBudgets \(web\/a, web\/b\)/);
  assert.match(severalBudgets('web/iis-0', []), /see kubectl get pdb/);
  const blocked = [
    { pod: 'web/iis-0', pdb: 'web/iis', message: "Cannot evict pod as it would violate the pod's disruption budget." },
    { pod: 'web/iis-1', message: 'too many requests' },
  ];
  assert.equal(
    blockedWaiting(blocked),
    'waiting: web/iis-0 is protected by web/iis; web/iis-1 is protected by a PodDisruptionBudget',
  );
  const text = drainBlocked('win-1', blocked);
  assert.match(
    text,
    /^The drain of win-1 is blocked by the PodDisruptionBudgets web\/iis, a PodDisruptionBudget: web\/iis-0 \(Cannot evict/,
  );
  assert.match(text, /disable-eviction path/);
  assert.match(drainBlocked('win-1', [blocked[0]!]), /PodDisruptionBudget web\/iis:/);
});

test('kubeadm: Containers and the restart step decide from the host facts', () => {
  assert.equal(containersFeatureOn({ containersFeature: 'Enabled' }), true);
  assert.equal(containersFeatureOn({ containersFeature: 'EnablePending' }), true);
  assert.equal(containersFeatureOn({ containersFeature: 'Disabled' }), false);
  assert.equal(restartNeed({ containersFeature: 'Enabled', rebootPending: false }), 'done');
  assert.deepEqual(restartNeed({ containersFeature: 'Enabled', rebootPending: true }), {
    todo: 'a restart is pending',
  });
  assert.deepEqual(restartNeed({ containersFeature: 'EnablePending', rebootPending: false }), {
    todo: 'Containers is EnablePending',
  });
});

test('kubeadm: a service is in place only with exactly our command line (and running when asked)', () => {
  const spec = containerdService();
  assert.equal(
    serviceInPlace({ exists: true, binaryPathName: spec.binaryPathName, status: 'Running' }, spec, true),
    true,
  );
  assert.equal(
    serviceInPlace({ exists: true, binaryPathName: spec.binaryPathName, status: 'Stopped' }, spec, true),
    false,
  );
  assert.equal(
    serviceInPlace({ exists: true, binaryPathName: spec.binaryPathName, status: 'Stopped' }, spec, false),
    true,
  );
  assert.equal(
    serviceInPlace({ exists: true, binaryPathName: `${spec.binaryPathName} --debug`, status: 'Running' }, spec, true),
    false,
  );
  assert.equal(serviceInPlace({ exists: false, binaryPathName: null, status: null }, spec, false), false);
  const kubelet = kubeletService('win-1');
  assert.deepEqual(kubelet.dependsOn, ['containerd']);
  assert.match(kubelet.binaryPathName, /--hostname-override=win-1 /);
  assert.throws(() => kubeletService('Win 1; rm'), /invalid node name/);
});

test('kubeadm: discovery reads cluster-info, else falls back to the kubeconfig; port 443 by default', () => {
  const { caPem } = generateCerts();
  const hash = caCertHash(caPem);
  const published = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: ""',
    '  cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    '    server: https://10.0.0.5:6443',
  ].join('\n');
  assert.deepEqual(clusterInfoEndpoint(published, 'https://other:8443', undefined), {
    endpoint: '10.0.0.5:6443',
    caHash: hash,
  });
  assert.deepEqual(clusterInfoEndpoint(undefined, 'https://api.example.com', caPem), {
    endpoint: 'api.example.com:443',
    caHash: hash,
  });
  assert.throws(
    () => clusterInfoEndpoint(undefined, 'https://api.example.com', undefined),
    /The cluster CA is unknown/,
  );
});

test('kubeadm: a failed join shows its last lines with the token blanked, and the hint for a host joined before', () => {
  const token = 'abcdef.0123456789abcdef';
  const output = [
    ...Array.from({ length: 10 }, (_, i) => `line ${i}`),
    `using token ${token}`,
    'error: a Node with name "win-1" and status "Ready" already exists in the cluster',
  ].join('\r\n');
  const text = kubeadmJoinFailure(1, output, token);
  assert.ok(!text.includes(token));
  assert.match(text, /^kubeadm join failed \(exit code 1\):\nline 4\n/);
  assert.match(text, /using token •••/);
  assert.match(text, /has been joined before/);
  assert.doesNotMatch(kubeadmJoinFailure(2, 'preflight failed', token), /joined before/);
});

// The plans themselves: named steps, in order; the pure parts above are what they check.
const host = {} as WindowsHost;
const kube = {} as KubeClient;

test('reboot plan: cordon, drain, restart, NotReady, (AWS route), Ready, uncordon, verify', () => {
  const node = (providerID?: string): RebootNode =>
    ({ metadata: { name: 'win-1' }, spec: providerID ? { providerID } : {} }) as RebootNode;
  const ids = (n: RebootNode) => buildRebootPlan({ kube, host, node: n }).steps.map((s) => s.id);
  assert.deepEqual(ids(node()), ['cordon', 'drain', 'restart', 'wait-not-ready', 'wait-ready', 'uncordon', 'verify']);
  assert.deepEqual(ids(node('aws:///us-east-1a/i-0abc')), [
    'cordon',
    'drain',
    'restart',
    'wait-not-ready',
    'aws-metadata-route',
    'wait-ready',
    'uncordon',
    'verify',
  ]);
});

test('reboot: the NotReady wait ends when Ready turned True after the restart (NotReady came and went between polls)', async () => {
  const bootAfter = '2026-11-25T06:00:00Z';
  let gets = 0;
  const ready = (lastTransitionTime: string) => ({
    metadata: { name: 'win-1' },
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime }] },
  });
  // The first read still shows the Ready of before the restart; the second, Ready again since just after it.
  const nodes = [ready('2026-11-25T05:00:00Z'), ready('2026-11-25T06:00:40Z')];
  const fakeKube = {
    get: async () => nodes[Math.min(gets++, nodes.length - 1)],
  } as unknown as KubeClient;
  const plan = buildRebootPlan({ kube: fakeKube, host, node: ready('2026-11-25T05:00:00Z') as RebootNode, pollMs: 1 });
  const step = plan.steps.find((s) => s.id === 'wait-not-ready')!;
  const ctx = { opts: { kube: fakeKube, host, node: { metadata: { name: 'win-1' } } }, state: { bootAfter } };
  const reports: string[] = [];
  await step.apply(ctx as never, AbortSignal.timeout(60_000), (m) => reports.push(m));
  assert.equal(gets, 2, 'one more read after the one that still showed the old Ready');
  assert.match(reports.join('\n'), /waiting: the node reports Ready=True/);
  assert.equal(reports.at(-1), 'the node went NotReady and is Ready again since the restart');
});

test('kubeadm plan: the named steps in order, the taint check and the RuntimeClass only when asked', () => {
  const source = (name: string) => ({
    kind: 'file' as const,
    name,
    path: `/tmp/${name}`,
    bytes: 1,
    sha256: 'a'.repeat(64),
  });
  const payload: Payload = {
    containerd: source('containerd-2.0.4-windows-amd64.tar.gz'),
    kubelet: source('kubelet.exe'),
    kubeadm: source('kubeadm.exe'),
  };
  const ids = (taint: boolean, runtimeClass = false) =>
    buildKubeadmJoinPlan({
      kube,
      host,
      address: '10.0.0.9',
      user: 'Administrator',
      payload,
      taint,
      runtimeClass,
    }).steps.map((s) => s.id);
  const host_ = [
    'preflight',
    'containers-feature',
    'restart',
    'directories',
    'containerd-archive',
    'containerd-unpack',
    'containerd-config',
    'containerd-service',
    'kube-binaries',
    'kubelet-service',
    'join',
  ];
  const cluster = ['windows-networking', 'node-ready', 'networking-pods'];
  assert.deepEqual(ids(false), [...host_, ...cluster, 'probe']);
  assert.deepEqual(ids(true), [...host_, 'taint', ...cluster, 'probe']);
  assert.deepEqual(ids(true, true), [...host_, 'taint', ...cluster, 'runtime-class', 'probe']);
});
