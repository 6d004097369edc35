import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, findings } from '../support/check';
import type { ClusterSnapshot } from '../../src/core/rules/facts';
import { deployment } from '../support/manifests';

const MINE = ['WIN070', 'WIN071', 'WIN072', 'WIN073', 'WIN074'];
const mine = (text: string, options = {}) => findings(text, options).filter((f) => MINE.includes(f.ruleId));

const deploy = deployment;

const IMAGE = `containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2022
`;

const runtimeClass = (name: string, scheduling: string) => `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: ${name}
handler: runhcs-wcow-process
${scheduling}---
`;

const cluster = (nodes: ClusterSnapshot['windowsNodes']): ClusterSnapshot => ({
  name: 'prod',
  windowsNodes: nodes,
  runtimeClasses: [],
});

test('a Linux pod gets nothing from the scheduling rules', () => {
  const text = deploy(`nodeSelector:
  beta.kubernetes.io/os: linux
tolerations:
  - {key: os, operator: Equal, value: windows, Effect: NoSchedule}
containers:
  - name: app
    image: nginx:1.27
`);
  assert.deepEqual(mine(text), []);
  assert.deepEqual(mine(text, { flavour: 'openshift' }), []);
  assert.deepEqual(
    mine(text, {
      cluster: cluster([
        { name: 'w1', build: '10.0.17763', taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] },
      ]),
    }),
    [],
  );
});

test('an unknown-OS pod gets nothing either', () => {
  assert.deepEqual(
    mine(deploy(`tolerations:\n  - {Key: os}\ncontainers:\n  - {name: a, image: example.com/app:1.0}\n`), {
      flavour: 'openshift',
    }),
    [],
  );
});

test('WIN070 flags a declared Windows pod without OS selection and adds the nodeSelector', () => {
  const text = deploy(`os:
  name: windows
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
${IMAGE}`);
  const f = only(text, 'WIN070');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'os');
  assert.match(f[0].message, /scheduler ignores spec\.os\.name/);
  assert.equal(f[0].related, undefined, 'declared: no inference to explain');
  assert.match(f[0].message, /spec\.template\.spec\.nodeSelector/);
  const { fixed } = fixAndRecheck(text, 'WIN070');
  assert.match(fixed, /nodeSelector:\n\s+kubernetes\.io\/os: windows\n/);
});

test('WIN070 fires for a pod inferred from its image, and says so', () => {
  const text = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: a
      image: mcr.microsoft.com/oss/kubernetes/pause:3.9-windows-ltsc2022-amd64
`;
  const f = only(text, 'WIN070');
  assert.equal(f.length, 1);
  assert.equal(f[0].related?.length, 1);
  assert.match(f[0].related![0].message, /^Windows inferred from tag 3\.9-windows-ltsc2022-amd64/);
  assert.equal(covered(text, { ...f[0], range: f[0].related![0].range }), 'image');
  const { fixed } = fixAndRecheck(text, 'WIN070');
  assert.match(fixed, /nodeSelector:\n\s+kubernetes\.io\/os: windows/);
});

test('WIN070 stays quiet when something keeps the pod on Windows nodes', () => {
  const base = 'os: {name: windows}\n';
  assert.deepEqual(only(deploy(`${base}nodeSelector: {kubernetes.io/os: windows}\n${IMAGE}`), 'WIN070'), []);
  assert.deepEqual(
    only(deploy(`${base}nodeSelector: {node.kubernetes.io/windows-build: 10.0.20348}\n${IMAGE}`), 'WIN070'),
    [],
  );
  assert.deepEqual(only(deploy(`${base}nodeName: win-1\n${IMAGE}`), 'WIN070'), []);
  const affinity = `${base}affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/os, operator: In, values: [windows]}
${IMAGE}`;
  assert.deepEqual(only(deploy(affinity), 'WIN070'), []);
  // A RuntimeClass in the same text that schedules onto Windows nodes.
  const rc = runtimeClass('win2022', 'scheduling:\n  nodeSelector:\n    kubernetes.io/os: windows\n');
  assert.deepEqual(only(rc + deploy(`${base}runtimeClassName: win2022\n${IMAGE}`), 'WIN070'), []);
  // A RuntimeClass defined elsewhere: unknown, so no guess.
  assert.deepEqual(only(deploy(`${base}runtimeClassName: somewhere-else\n${IMAGE}`), 'WIN070'), []);
});

// microsoft/SDN Kubernetes/windows/debug/enablewinflags/winserver2022.yaml: an AKS HostProcess DaemonSet pinned by OS SKU.
test('WIN070 stays quiet when an AKS Windows OS SKU label selects the nodes, and not for a Linux SKU', () => {
  const pod = (selector: string) =>
    deploy(`securityContext:
  windowsOptions:
    hostProcess: true
    runAsUserName: 'NT AUTHORITY\\SYSTEM'
hostNetwork: true
containers:
- name: enable-win-flags
  image: mcr.microsoft.com/dotnet/framework/samples:aspnetapp
  command: [powershell.exe, -command, Write-Host ready]
${selector}`);
  // Without any selector the same pod is flagged, so the quiet cases below are the selector's doing.
  assert.equal(only(pod(''), 'WIN070').length, 1);
  assert.deepEqual(
    only(
      pod('nodeSelector:\n  kubernetes.azure.com/os-sku: Windows2022\n  kubernetes.io/hostname: aksnpwin000000\n'),
      'WIN070',
    ),
    [],
  );
  const affinity = `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.azure.com/os-sku, operator: In, values: [Windows2019, Windows2022]}
`;
  assert.deepEqual(only(pod(affinity), 'WIN070'), []);
  // A hostname alone says nothing about the OS; a Linux SKU (or a mixed list) does not keep the pod off Linux.
  assert.equal(only(pod('nodeSelector:\n  kubernetes.io/hostname: aksnpwin000000\n'), 'WIN070').length, 1);
  assert.equal(only(pod(affinity.replace('Windows2019', 'Ubuntu')), 'WIN070').length, 1);
});

test('WIN070 fires when the affinity leaves one term open, or the RuntimeClass does not schedule', () => {
  const twoTerms = deploy(`os: {name: windows}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/os, operator: In, values: [windows]}
        - matchExpressions:
            - {key: topology.kubernetes.io/zone, operator: In, values: [a]}
${IMAGE}`);
  assert.equal(only(twoTerms, 'WIN070').length, 1);
  const rc = runtimeClass('wcow', '');
  assert.equal(only(rc + deploy(`os: {name: windows}\nruntimeClassName: wcow\n${IMAGE}`), 'WIN070').length, 1);
});

test('WIN071 wrong-case value is an error and is lowercased', () => {
  const text = deploy(`nodeSelector:
  kubernetes.io/os: Windows
${IMAGE}`);
  const f = only(text, 'WIN071');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'Windows');
  assert.match(f[0].message, /never matches a node/);
  const { fixed } = fixAndRecheck(text, 'WIN071');
  assert.match(fixed, /kubernetes\.io\/os: windows\n/);
});

test('WIN071 beta label is a warning and the key is renamed', () => {
  const text = deploy(`nodeSelector:
  beta.kubernetes.io/os: windows   # old docs
${IMAGE}`);
  const f = only(text, 'WIN071');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'beta.kubernetes.io/os');
  const { fixed } = fixAndRecheck(text, 'WIN071');
  assert.ok(fixed.includes('  kubernetes.io/os: windows   # old docs'), fixed);
  assert.ok(!fixed.includes('beta.'));
});

test('WIN071 beta label next to the new one: remove it', () => {
  const text = deploy(`nodeSelector:
  kubernetes.io/os: windows
  beta.kubernetes.io/os: windows
${IMAGE}`);
  const { fixed } = fixAndRecheck(text, 'WIN071');
  assert.ok(!fixed.includes('beta.'), fixed);
  assert.ok(fixed.includes('kubernetes.io/os: windows'));
});

test('WIN071 in required affinity: In [Windows] never matches (error), fix lowercases the value', () => {
  const text = deploy(`affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - key: kubernetes.io/os
              operator: In
              values: [Windows]
${IMAGE}`);
  const f = only(text, 'WIN071');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'Windows');
  const { fixed } = fixAndRecheck(text, 'WIN071');
  assert.match(fixed, /values: \[windows\]/);
});

test('WIN071 stays quiet for correct selectors', () => {
  assert.deepEqual(only(deploy(`nodeSelector: {kubernetes.io/os: windows}\n${IMAGE}`), 'WIN071'), []);
});

test('WIN072 os.name against nodeSelector: error with both places, fix aligns the selector', () => {
  const text = deploy(`os:
  name: windows
nodeSelector:
  kubernetes.io/os: linux
${IMAGE}`);
  const f = only(text, 'WIN072');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'linux');
  assert.match(f[0].message, /PodOSNotSupported|PodOSSelectorNodeLabelDoesNotMatch/);
  assert.equal(f[0].related?.length, 1);
  const { fixed } = fixAndRecheck(text, 'WIN072');
  assert.match(fixed, /kubernetes\.io\/os: windows/);
});

test('WIN072 with required affinity NotIn [windows], and the other way round', () => {
  const text = deploy(`os: {name: windows}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/os, operator: NotIn, values: [windows]}
${IMAGE}`);
  assert.equal(only(text, 'WIN072').length, 1);
  const linux = deploy(
    `os: {name: linux}\nnodeSelector: {kubernetes.io/os: windows}\ncontainers:\n  - {name: a, image: nginx}\n`,
  );
  assert.equal(only(linux, 'WIN072').length, 1);
});

test('WIN072 stays quiet when they agree or one is missing', () => {
  assert.deepEqual(
    only(deploy(`os: {name: windows}\nnodeSelector: {kubernetes.io/os: windows}\n${IMAGE}`), 'WIN072'),
    [],
  );
  assert.deepEqual(
    only(deploy(`nodeSelector: {kubernetes.io/os: linux}\ncontainers:\n  - {name: a, image: nginx}\n`), 'WIN072'),
    [],
  );
});

const SELECTED = 'os: {name: windows}\nnodeSelector: {kubernetes.io/os: windows}\n';

test('WIN073 with a cluster snapshot names the untolerated taint and adds a toleration', () => {
  const snap = cluster([
    { name: 'w1', build: '10.0.20348', taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] },
    { name: 'w2', build: '10.0.20348', taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] },
  ]);
  const text = deploy(`${SELECTED}${IMAGE}`);
  const f = only(text, 'WIN073', { cluster: snap });
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(f[0].message, /cluster "prod"/);
  assert.match(f[0].message, /os=windows:NoSchedule/);
  const { fixed } = fixAndRecheck(text, 'WIN073', { cluster: snap });
  assert.match(fixed, /tolerations:\n\s+- key: os\n\s+operator: Exists\n\s+effect: NoSchedule/);
  // Without the snapshot and outside OpenShift: nothing to say.
  assert.deepEqual(only(text, 'WIN073'), []);
});

test('WIN073 with a snapshot: quiet when tolerated, or when one node is untainted', () => {
  const tainted = { name: 'w1', build: '10.0.20348', taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] };
  const tolerating = deploy(`${SELECTED}tolerations:\n  - {key: os, operator: Exists}\n${IMAGE}`);
  assert.deepEqual(only(tolerating, 'WIN073', { cluster: cluster([tainted]) }), []);
  const plain = deploy(`${SELECTED}${IMAGE}`);
  assert.deepEqual(
    only(plain, 'WIN073', { cluster: cluster([tainted, { name: 'w2', build: '10.0.20348', taints: [] }]) }),
    [],
  );
  // An Equal toleration with the other casing does not tolerate it.
  const wrongCase = deploy(
    `${SELECTED}tolerations:\n  - key: os\n    operator: Equal\n    value: windows\n    effect: NoSchedule\n${IMAGE}`,
  );
  const f = only(wrongCase, 'WIN073', { cluster: cluster([tainted]) });
  assert.equal(f.length, 1);
  assert.match(f[0].message, /os=Windows:NoSchedule/);
  const { fixed } = fixAndRecheck(wrongCase, 'WIN073', { cluster: cluster([tainted]) });
  assert.match(fixed, /effect: NoSchedule\n\s+- key: os\n\s+operator: Exists\n\s+effect: NoSchedule\n/);
});

test('WIN073 on OpenShift: value windows does not tolerate WMCO os=Windows', () => {
  const text = deploy(`${SELECTED}tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
${IMAGE}`);
  const f = only(text, 'WIN073', { flavour: 'openshift' });
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(f[0].message, /os=Windows:NoSchedule/);
  assert.match(f[0].message, /case-sensitive/);
  const { fixed } = fixAndRecheck(text, 'WIN073', { flavour: 'openshift' });
  assert.match(
    fixed,
    /tolerations: \[\{key: os, operator: Equal, value: windows, effect: NoSchedule\}, \{key: os, operator: Exists, effect: NoSchedule\}\]/,
  );
});

test('WIN073 on OpenShift: no tolerations at all gets a new list; Windows or Exists is fine', () => {
  const none = deploy(`${SELECTED}${IMAGE}`);
  const { fixed } = fixAndRecheck(none, 'WIN073', { flavour: 'openshift' });
  assert.match(fixed, /tolerations:\n\s+- key: os/);
  for (const tol of [
    '{key: os, value: Windows, effect: NoSchedule}',
    '{operator: Exists}',
    '{key: os, operator: Exists}',
  ]) {
    assert.deepEqual(
      only(deploy(`${SELECTED}tolerations: [${tol}]\n${IMAGE}`), 'WIN073', { flavour: 'openshift' }),
      [],
      tol,
    );
  }
  // RuntimeClass tolerations defined in the same text count (they are merged at admission).
  const rc = runtimeClass(
    'win',
    'scheduling:\n  nodeSelector: {kubernetes.io/os: windows}\n  tolerations:\n    - {key: os, operator: Equal, value: Windows, effect: NoSchedule}\n',
  );
  assert.deepEqual(
    only(rc + deploy(`os: {name: windows}\nruntimeClassName: win\n${IMAGE}`), 'WIN073', { flavour: 'openshift' }),
    [],
  );
});

test('WIN073 elsewhere: info when only one casing is tolerated with Equal', () => {
  const text = deploy(`${SELECTED}tolerations:
  - key: os
    operator: Equal
    value: windows
    effect: NoSchedule
${IMAGE}`);
  const f = only(text, 'WIN073', { flavour: 'kubernetes' });
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'info');
  fixAndRecheck(text, 'WIN073', { flavour: 'kubernetes' });
  const both = deploy(`${SELECTED}tolerations:
  - {key: os, operator: Equal, value: windows, effect: NoSchedule}
  - {key: os, operator: Equal, value: Windows, effect: NoSchedule}
${IMAGE}`);
  assert.deepEqual(only(both, 'WIN073'), []);
});

test('WIN074 wrongly-cased toleration fields are renamed', () => {
  const text = deploy(`${SELECTED}tolerations:
  - key: "os"
    value: "Windows"
    Effect: "NoSchedule"
${IMAGE}`);
  const f = only(text, 'WIN074');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'Effect');
  // The API server's words, warning or strict-validation error alike (checked against a real one in test/apiserver-suites).
  assert.match(
    f[0].message,
    /^unknown field "spec\.template\.spec\.tolerations\[0\]\.Effect": field names are case-sensitive/,
  );
  const { fixed } = fixAndRecheck(text, 'WIN074');
  assert.match(fixed, /\n\s+effect: "NoSchedule"/);
});

test('WIN074 duplicate wrong-case field is removed; unknown fields get no fix; correct ones nothing', () => {
  const dup = deploy(
    `${SELECTED}tolerations:\n  - {key: os, operator: Exists, effect: NoSchedule, Effect: NoSchedule}\n${IMAGE}`,
  );
  const { fixed } = fixAndRecheck(dup, 'WIN074');
  assert.ok(!fixed.includes('Effect'), fixed);
  const unknown = deploy(`${SELECTED}tolerations:\n  - {key: os, operator: Exists, effekt: NoSchedule}\n${IMAGE}`);
  const f = only(unknown, 'WIN074');
  assert.equal(f.length, 1);
  assert.deepEqual(f[0].fixes, []);
  assert.deepEqual(
    only(
      deploy(
        `${SELECTED}tolerations:\n  - {key: os, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}\n${IMAGE}`,
      ),
      'WIN074',
    ),
    [],
  );
});

test('WIN071 beta label in affinity: the key is changed; WIN072 In [linux] against os windows: the value', () => {
  const text = deploy(`os: {name: windows}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - key: beta.kubernetes.io/os
              operator: In
              values: [windows]
${IMAGE}`);
  const f = only(text, 'WIN071');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'beta.kubernetes.io/os');
  assert.match(fixAndRecheck(text, 'WIN071').fixed, /- key: kubernetes\.io\/os\n/);
  const conflict = deploy(`os: {name: windows}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/os, operator: In, values: [linux]}
${IMAGE}`);
  const g = only(conflict, 'WIN072');
  assert.equal(g.length, 1);
  assert.match(fixAndRecheck(conflict, 'WIN072').fixed, /values: \[windows\]/);
});
