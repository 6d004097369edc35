// Documented Windows limits that got rules late: volume types Windows nodes cannot mount and CSI's
// need for CSI Proxy (WIN059), CPU/memory requests and limits (WIN062), CPU architectures other than
// amd64 (WIN075), and the OpenShift features Windows nodes do not support that OCP002 now also
// covers (Pipelines, user-defined monitoring). Each with examples that must and must not report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { covered, fixAndRecheck, only } from '../support/check';
import { deployment } from '../support/manifests';
import type { ClusterSnapshot } from '../../src/core/rules/facts';

const windows = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
`;
const linux = `nodeSelector:
  kubernetes.io/os: linux
`;
const RESOURCES = `    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {cpu: "1", memory: 1Gi}
`;
const container = (extra = RESOURCES) => `containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2022
${extra}`;

test('WIN059: an in-tree volume plugin Windows nodes do not have is a warning at the volume source; the supported ones are not', () => {
  const text = deployment(`${windows}${container()}volumes:
  - name: data
    rbd: {monitors: ["10.0.0.1:6789"], image: data}
  - name: share
    glusterfs: {endpoints: gluster, path: vol}
  - name: disk
    azureDisk: {diskName: d, diskURI: /subscriptions/x/d}
  - name: files
    azureFile: {secretName: s, shareName: share}
  - name: claim
    persistentVolumeClaim: {claimName: c}
`);
  const found = only(text, 'WIN059');
  assert.deepEqual(
    found.map((f) => [f.severity, covered(text, f)]),
    [
      ['warning', 'rbd'],
      ['warning', 'glusterfs'],
    ],
  );
  assert.match(
    found[0].message,
    /^spec\.template\.spec\.volumes\[0\]\.rbd: Windows nodes have no rbd volume plugin .*Use a CSI driver with a Windows node plugin\.$/,
  );
  // The same volumes on a Linux pod: nothing.
  assert.deepEqual(
    only(text.replace(windows.replace(/^/gm, '      ').trimEnd(), linux.replace(/^/gm, '      ').trimEnd()), 'WIN059'),
    [],
  );
  assert.deepEqual(
    only(deployment(`${linux}${container()}volumes:\n  - name: data\n    rbd: {image: data}\n`), 'WIN059'),
    [],
  );
});

test('WIN059: an inline CSI volume needs CSI Proxy (info), unless the cluster runs WMCO, which installs it', () => {
  const text = deployment(`${windows}${container()}volumes:
  - name: secrets
    csi: {driver: secrets-store.csi.k8s.io, readOnly: true}
`);
  const [csi] = only(text, 'WIN059');
  assert.equal(csi.severity, 'info');
  assert.equal(covered(text, csi), 'csi');
  assert.match(csi.message, /CSI Proxy/);
  const wmco: ClusterSnapshot = {
    name: 'ocp',
    flavour: 'openshift',
    windowsNodes: [],
    runtimeClasses: [],
    openshift: { wmcoInstalled: true },
  };
  assert.deepEqual(only(text, 'WIN059', { cluster: wmco }), []);
  const noWmco: ClusterSnapshot = { ...wmco, openshift: { wmcoInstalled: false } };
  assert.equal(only(text, 'WIN059', { cluster: noWmco }).length, 1);
});

test('WIN062: a Windows container without CPU/memory requests and limits (info), listing what is missing; limits alone are enough', () => {
  const none = deployment(`${windows}${container('')}`);
  const [f] = only(none, 'WIN062');
  assert.equal(f.severity, 'info');
  assert.equal(covered(none, f), 'name: app');
  assert.match(
    f.message,
    /^spec\.template\.spec\.containers\[0\]\.resources: no requests\.cpu, requests\.memory, limits\.cpu, limits\.memory\. Windows nodes neither OOM-kill/,
  );

  const requestsOnly = deployment(
    `${windows}${container('    resources:\n      requests: {cpu: 100m, memory: 256Mi}\n')}`,
  );
  const [r] = only(requestsOnly, 'WIN062');
  assert.equal(covered(requestsOnly, r), 'resources');
  assert.match(r.message, /: no limits\.cpu, limits\.memory\./);

  // The API server defaults requests to limits: limits alone leave nothing missing.
  assert.deepEqual(
    only(deployment(`${windows}${container('    resources:\n      limits: {cpu: "1", memory: 1Gi}\n')}`), 'WIN062'),
    [],
  );
  assert.deepEqual(only(deployment(`${windows}${container()}`), 'WIN062'), []);
  // Init containers count; a Linux pod and HostProcess node agents do not.
  const init = deployment(
    `${windows}initContainers:\n  - name: init\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n${container()}`,
  );
  assert.deepEqual(
    only(init, 'WIN062').map((x) => x.message.split(':')[0]),
    ['spec.template.spec.initContainers[0].resources'],
  );
  assert.deepEqual(only(deployment(`${linux}containers:\n  - name: app\n    image: nginx\n`), 'WIN062'), []);
  const hostProcess = deployment(`${windows}securityContext:
  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
hostNetwork: true
${container('')}`);
  assert.deepEqual(only(hostProcess, 'WIN062'), []);
});

test('WIN075: a Windows pod pinned to another CPU architecture than amd64 (selector or required affinity); the fix sets amd64', () => {
  const arm = deployment(
    `${windows.replace('  kubernetes.io/os: windows\n', '  kubernetes.io/os: windows\n  kubernetes.io/arch: arm64\n')}${container()}`,
  );
  const [f] = only(arm, 'WIN075');
  assert.equal(f.severity, 'warning');
  assert.equal(covered(arm, f), 'arm64');
  assert.match(f.message, /Windows nodes run on amd64 only/);
  const { fixed } = fixAndRecheck(arm, 'WIN075');
  assert.match(fixed, /kubernetes\.io\/arch: amd64/);
  assert.deepEqual(only(fixed, 'WIN075'), []);
  // amd64, and arm64 on a Linux pod: nothing.
  assert.deepEqual(only(arm.replace('arm64', 'amd64'), 'WIN075'), []);
  assert.deepEqual(
    only(deployment(`${linux}  kubernetes.io/arch: arm64\ncontainers:\n  - {name: a, image: nginx}\n`), 'WIN075'),
    [],
  );

  const affinity = (operator: string, values: string) =>
    deployment(`${windows}affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/arch, operator: ${operator}, values: [${values}]}
${container()}`);
  assert.deepEqual(
    only(affinity('In', 'arm64'), 'WIN075').map((x) => x.message),
    [
      'Required node affinity kubernetes.io/arch In [arm64] on a Windows pod excludes amd64, the only architecture of Windows nodes: no node matches this term and the pod stays Pending. Allow amd64.',
    ],
  );
  assert.equal(only(affinity('NotIn', 'amd64'), 'WIN075').length, 1);
  assert.deepEqual(only(affinity('In', 'amd64, arm64'), 'WIN075'), []);
  assert.deepEqual(only(affinity('NotIn', 'arm64'), 'WIN075'), []);
});

const taskRun = (apiVersion: string, spec: string) => `apiVersion: ${apiVersion}
kind: TaskRun
metadata: {name: build-win, namespace: ci}
spec:
  taskRef: {name: build}
${spec}`;

test('OCP002: OpenShift Pipelines runs whose pod template selects Windows nodes (TaskRun, PipelineRun v1 and v1beta1, per-task specs)', () => {
  const openshift = { flavour: 'openshift' as const };
  const tr = taskRun('tekton.dev/v1', '  podTemplate:\n    nodeSelector: {kubernetes.io/os: windows}\n');
  const [f] = only(tr, 'OCP002', openshift);
  assert.equal(f.severity, 'warning');
  assert.equal(covered(tr, f), 'kubernetes.io/os');
  assert.match(
    f.message,
    /^OpenShift Pipelines is not supported on Windows nodes, yet this pod template of TaskRun "build-win" selects them/,
  );
  // Plain Kubernetes (Tekton runs Windows tasks there), a Linux selector, another API group: nothing.
  assert.deepEqual(only(tr, 'OCP002', { flavour: 'kubernetes' }), []);
  assert.deepEqual(only(tr.replace('windows', 'linux'), 'OCP002', openshift), []);
  assert.deepEqual(only(tr.replace('tekton.dev/v1', 'example.com/v1'), 'OCP002', openshift), []);

  const pr = `apiVersion: tekton.dev/v1
kind: PipelineRun
metadata: {name: release}
spec:
  pipelineRef: {name: release}
  taskRunTemplate:
    podTemplate:
      nodeSelector: {node.kubernetes.io/windows-build: "10.0.20348"}
  taskRunSpecs:
    - pipelineTaskName: test
      podTemplate:
        nodeSelector: {kubernetes.io/os: windows}
`;
  assert.deepEqual(
    only(pr, 'OCP002', openshift).map((x) => covered(pr, x)),
    ['node.kubernetes.io/windows-build', 'kubernetes.io/os'],
  );
  const beta = `apiVersion: tekton.dev/v1beta1
kind: PipelineRun
metadata: {name: old}
spec:
  podTemplate:
    nodeSelector: {kubernetes.io/os: windows}
  taskRunSpecs:
    - pipelineTaskName: t
      taskPodTemplate:
        nodeSelector: {kubernetes.io/os: windows}
`;
  assert.equal(only(beta, 'OCP002', openshift).length, 2);
});

const podMonitor = (namespace: string, selector: string, nsSelector = '') => `---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: web-metrics, namespace: ${namespace}}
spec:
  selector: ${selector}
${nsSelector}  podMetricsEndpoints:
    - port: metrics
`;

test('OCP002: a PodMonitor (user-defined monitoring) that selects the pods of a Windows workload on OpenShift', () => {
  const openshift = { flavour: 'openshift' as const };
  const web = deployment(`${windows}${container()}`).replace('  name: web\n', '  name: web\n  namespace: shop\n');
  const selecting = `${web}${podMonitor('shop', '{matchLabels: {app: web}}')}`;
  const [f] = only(selecting, 'OCP002', openshift);
  assert.ok(f, 'the PodMonitor selects the Windows pods');
  assert.equal(covered(selecting, f), 'web');
  assert.match(
    f.message,
    /^Monitoring for user-defined projects is not supported on Windows nodes, but PodMonitor "web-metrics" selects the pods of this Windows Deployment/,
  );
  // Other labels, another namespace, platform monitoring, plain Kubernetes: nothing.
  assert.deepEqual(only(`${web}${podMonitor('shop', '{matchLabels: {app: api}}')}`, 'OCP002', openshift), []);
  assert.deepEqual(only(`${web}${podMonitor('other', '{matchLabels: {app: web}}')}`, 'OCP002', openshift), []);
  assert.deepEqual(
    only(
      `${web}${podMonitor('openshift-monitoring', '{}', '  namespaceSelector: {any: true}\n')}`,
      'OCP002',
      openshift,
    ),
    [],
  );
  assert.deepEqual(only(selecting, 'OCP002', { flavour: 'kubernetes' }), []);
  // namespaceSelector any / matchNames reach other namespaces; matchExpressions are evaluated.
  assert.equal(
    only(`${web}${podMonitor('monitoring', '{}', '  namespaceSelector: {any: true}\n')}`, 'OCP002', openshift).length,
    1,
  );
  assert.equal(
    only(
      `${web}${podMonitor('monitoring', '{matchExpressions: [{key: app, operator: In, values: [web]}]}', '  namespaceSelector: {matchNames: [shop]}\n')}`,
      'OCP002',
      openshift,
    ).length,
    1,
  );
  assert.deepEqual(
    only(
      `${web}${podMonitor('monitoring', '{matchExpressions: [{key: app, operator: NotIn, values: [web]}]}', '  namespaceSelector: {matchNames: [shop]}\n')}`,
      'OCP002',
      openshift,
    ),
    [],
  );
});
