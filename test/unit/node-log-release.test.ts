// What node operations say by the node's Kubernetes release: the log query's feature gate (GA in
// 1.36) and what a restart does to the pods the drain leaves (Windows graceful node shutdown, 1.34).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enableNodeLogs, nodeLogRefusal, queryOffRefusal } from '../../src/core/node-log-query';
import { shutdownNote } from '../../src/core/windows/reboot';
import { buildRebootPlan, type RebootNode } from '../../src/bootstrap/reboot';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { WindowsHost } from '../../src/remote/windows-host';

test('NodeLogQuery: kubelets from 1.36 need only enableSystemLogQuery; older ones the gate too; unknown says both', () => {
  const ga = enableNodeLogs('v1.36.1');
  assert.match(
    ga,
    /`enableSystemLogQuery: true` \(its kubelet, 1\.36, has NodeLogQuery on: GA since 1\.36, no feature gate\)/,
  );
  assert.doesNotMatch(ga, /NodeLogQuery=true/);
  assert.match(
    enableNodeLogs('v1.35.4'),
    /with the feature gate `NodeLogQuery=true` .* \(its kubelet is 1\.35; from 1\.36 the gate is on\)/,
  );
  assert.match(enableNodeLogs(undefined), /and, on kubelets before 1\.36, the feature gate `NodeLogQuery=true`/);
  assert.match(
    queryOffRefusal('win-a', 'v1.37.0').message,
    /^The kubelet of win-a ignored the log query.*no feature gate/,
  );
  assert.match(
    nodeLogRefusal('win-a', 'kubelet/kubelet.log', 405, 'logs endpoint is disabled.\n', 'v1.30.2').message,
    /does not serve its logs.*NodeLogQuery=true.*its kubelet is 1\.30/,
  );
});

test('reboot: the restart step says what happens to the pods the drain leaves, by the kubelet version', () => {
  assert.match(shutdownNote('v1.34.0'), /stops the pods the drain leaves .* with their terminationGracePeriodSeconds/);
  assert.match(shutdownNote('v1.34.0'), /shutdownGracePeriod 0 \(the kubelet's default\)/);
  assert.match(shutdownNote('v1.33.9'), /^The kubelet \(1\.33\) does not stop pods before Windows shuts down/);
  assert.match(shutdownNote(undefined), /^The kubelet stops the pods/);
  const node = (kubeletVersion: string): RebootNode =>
    ({ metadata: { name: 'win-1' }, status: { nodeInfo: { kubeletVersion } } }) as RebootNode;
  const restart = (n: RebootNode) =>
    buildRebootPlan({ kube: {} as KubeClient, host: {} as WindowsHost, node: n }).steps.find((s) => s.id === 'restart');
  assert.match(restart(node('v1.32.1'))?.description ?? '', /killed with the host/);
  assert.match(restart(node('v1.35.2'))?.description ?? '', /Windows graceful node shutdown, on by default from 1\.34/);
});
