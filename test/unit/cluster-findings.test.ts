// Findings that come from a cluster's facts say so: the editor with a snapshot and `check --context`
// report what the files alone report, unmarked, plus what the cluster adds, marked "— from cluster".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkObject, checkText } from '../../src/core/rules/checker';
import type { ClusterSnapshot } from '../../src/core/rules/facts';
import { withOpenShiftRelease } from '../../src/core/openshift/windows-support';
import { deployment } from '../support/manifests';

const CLUSTER: ClusterSnapshot = {
  name: 'prod',
  flavour: 'openshift',
  windowsNodes: [
    { name: 'win-1', build: '10.0.17763', taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
  ],
  runtimeClasses: [
    {
      name: 'win-2019',
      handler: 'runhcs-wcow-process',
      nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' },
      tolerations: [],
    },
  ],
};

// A Windows pod with an image of 2022 (the cluster runs 2019), no toleration of the WMCO taint, no
// spec.os.name (which matters on OpenShift) and a privileged container (wrong whatever the cluster).
const TEXT = deployment(`nodeSelector: {kubernetes.io/os: windows}
containers:
- name: app
  image: mcr.microsoft.com/windows/servercore:ltsc2022
  securityContext: {privileged: true}
  resources: {limits: {cpu: 500m, memory: 512Mi}, requests: {cpu: 500m, memory: 512Mi}}
`);

const summary = (fs: { ruleId: string; message: string; cluster?: string }[]) =>
  fs.map((f) => `${f.ruleId}${f.cluster ? ` [${f.cluster}]` : ''}`).sort();

test('with a cluster, the findings the files alone make are unmarked and the others say "— from cluster"', () => {
  const alone = checkText(TEXT).findings;
  const withCluster = checkText(TEXT, { cluster: CLUSTER }).findings;
  assert.ok(alone.length > 0);
  assert.ok(withCluster.length > alone.length, `${summary(alone)} vs ${summary(withCluster)}`);
  // Every finding of the files alone is there, word for word and unmarked.
  for (const f of alone) {
    const same = withCluster.find((g) => g.ruleId === f.ruleId && g.message === f.message);
    assert.ok(same, `${f.ruleId} lost or reworded`);
    assert.equal(same.cluster, undefined);
  }
  // Every other one names the cluster, in its message (text, JSON and SARIF all carry it) and as a field.
  const extra = withCluster.filter((g) => !alone.some((f) => f.ruleId === g.ruleId && f.message === g.message));
  assert.deepEqual(summary(extra), ['OCP003 [prod]', 'WIN073 [prod]', 'WIN080 [prod]']);
  for (const f of extra) assert.match(f.message, / — from cluster prod$/);
});

test('a RuntimeClass known only from the cluster makes its findings the cluster’s; one in the files does not', () => {
  // Nothing but the RuntimeClass says this pod is a Windows pod.
  const pod = deployment(`runtimeClassName: win-2019
containers:
- name: app
  image: contoso/app:1.0
  securityContext: {privileged: true}
  resources: {limits: {cpu: 500m, memory: 512Mi}, requests: {cpu: 500m, memory: 512Mi}}
`);
  const kubernetes = { ...CLUSTER, flavour: 'kubernetes' as const, windowsNodes: [] };
  const fromCluster = checkText(pod, { cluster: kubernetes }).findings;
  assert.deepEqual(checkText(pod).findings, []);
  assert.deepEqual(summary(fromCluster), ['WIN041 [prod]']);
  const rc = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: win-2019}
handler: runhcs-wcow-process
scheduling:
  nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: '10.0.17763'}
  tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
---
`;
  const fromFiles = checkText(rc + pod, { cluster: kubernetes }).findings.find((f) => f.ruleId === 'WIN041');
  assert.ok(fromFiles);
  assert.equal(fromFiles.cluster, undefined, fromFiles.message);
  assert.doesNotMatch(fromFiles.message, /from cluster/);
});

test('the live check (objects read from the cluster) is not marked: everything there comes from it', () => {
  const value = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      template: {
        spec: {
          os: { name: 'windows' },
          nodeSelector: { 'kubernetes.io/os': 'windows' },
          containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }],
        },
      },
    },
  };
  const { findings } = checkObject(value, { cluster: CLUSTER });
  assert.ok(findings.some((f) => f.ruleId === 'WIN080'));
  for (const f of findings) assert.doesNotMatch(f.message, /from cluster/);
});

test('what --openshift-version states is asked for, not read from a cluster: not marked', () => {
  const stated = withOpenShiftRelease(undefined, { major: 4, minor: 6 });
  const text = deployment(`nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
containers:
- name: app
  image: mcr.microsoft.com/windows/servercore:ltsc2022
  resources: {limits: {cpu: 500m, memory: 512Mi}, requests: {cpu: 500m, memory: 512Mi}}
`);
  const findings = checkText(text, { cluster: stated }).findings;
  assert.ok(
    findings.some((f) => f.ruleId === 'OCP003'),
    summary(findings).join(', '),
  );
  for (const f of findings) {
    assert.equal(f.cluster, undefined);
    assert.doesNotMatch(f.message, /from cluster/);
  }
});
