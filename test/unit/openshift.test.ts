import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { only, covered, fixAndRecheck } from '../support/check';

const OCP = { flavour: 'openshift' as const };
const K8S = { flavour: 'kubernetes' as const };

const winPod = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
  node.kubernetes.io/windows-build: 10.0.20348
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
containers:
  - name: web
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
`;

const linuxPod = `containers:
  - name: web
    image: nginx
`;

const indent = (s: string, n: number) => s.replace(/^(?=.)/gm, ' '.repeat(n));

const dc = (specHead: string, podSpec = winPod) => `apiVersion: apps.openshift.io/v1
kind: DeploymentConfig
metadata:
  name: web
spec:
${indent(specHead, 2)}  template:
    metadata:
      labels:
        app: web
    spec:
${indent(podSpec, 6)}`;

const deploy = (podSpec: string, meta = '', kind = 'Deployment') => `apiVersion: apps/v1
kind: ${kind}
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
${indent(meta, 6)}    spec:
${indent(podSpec, 6)}`;

// ---------------------------------------------------------------------------------------------
// OCP001

interface Converted {
  apiVersion: string;
  kind: string;
  status?: unknown;
  spec: {
    replicas?: number;
    selector: unknown;
    strategy: unknown;
    triggers?: unknown;
    test?: unknown;
    template: { spec: { os: unknown } };
  };
}

test('OCP001 flags a Windows DeploymentConfig and converts it to an equivalent Deployment', () => {
  const text = `${dc(`replicas: 2
selector:
  app: web
strategy:
  type: Rolling
  rollingParams:
    timeoutSeconds: 600
    maxSurge: 50%
triggers:
  - type: ConfigChange
test: false
`)}status: {}
`;
  const f = only(text, 'OCP001', OCP);
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'DeploymentConfig');
  assert.match(f[0].message, /^Windows nodes do not support workloads created by using deployment configs/);
  const { fixed } = fixAndRecheck(text, 'OCP001', OCP);
  const obj = load(fixed) as Converted;
  assert.equal(obj.apiVersion, 'apps/v1');
  assert.equal(obj.kind, 'Deployment');
  assert.deepEqual(obj.spec.selector, { matchLabels: { app: 'web' } });
  assert.deepEqual(obj.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%' } });
  assert.equal(obj.spec.replicas, 2);
  assert.ok(!('triggers' in obj.spec) && !('test' in obj.spec) && !('status' in obj));
  assert.deepEqual(obj.spec.template.spec.os, { name: 'windows' });
});

test('OCP001 builds the selector from the template labels and maps Recreate', () => {
  const text = dc(`strategy:
  type: Recreate
  recreateParams:
    timeoutSeconds: 300
`);
  const { fixed } = fixAndRecheck(text, 'OCP001', OCP);
  const obj = load(fixed) as Converted;
  assert.deepEqual(obj.spec.selector, { matchLabels: { app: 'web' } });
  assert.deepEqual(obj.spec.strategy, { type: 'Recreate' });
  assert.match(fixed, /^spec:\n  selector:\n    matchLabels:\n      app: web\n  strategy:/m);
});

test('OCP001 offers no conversion when a Deployment cannot do the same', () => {
  const cases = [
    [
      `triggers:\n  - type: ImageChange\n    imageChangeParams:\n      automatic: true\n      containerNames: [web]\n      from: {kind: ImageStreamTag, name: 'web:latest'}\n`,
      /ImageChange trigger/,
    ],
    [
      `strategy:\n  type: Rolling\n  rollingParams:\n    pre:\n      failurePolicy: Abort\n      execNewPod: {containerName: web, command: [migrate]}\n`,
      /lifecycle hooks/,
    ],
    [
      `strategy:\n  type: Custom\n  customParams: {image: x}\n`,
      /has settings a Deployment lacks|no Deployment equivalent/,
    ],
    [`test: true\n`, /spec\.test: true/],
  ] as const;
  for (const [head, why] of cases) {
    const f = only(dc(head), 'OCP001', OCP);
    assert.equal(f.length, 1, head);
    assert.deepEqual(f[0].fixes, [], head);
    assert.match(f[0].message, why, head);
  }
});

test('OCP001 ignores Linux DeploymentConfigs and Windows Deployments', () => {
  assert.deepEqual(only(dc('replicas: 1\n', linuxPod), 'OCP001', OCP), []);
  assert.deepEqual(only(deploy(winPod), 'OCP001', OCP), []);
});

// ---------------------------------------------------------------------------------------------
// OCP002

test('OCP002 flags a BuildConfig pinned to Windows nodes', () => {
  const text = `apiVersion: build.openshift.io/v1
kind: BuildConfig
metadata:
  name: app
spec:
  nodeSelector:
    kubernetes.io/os: windows
  strategy:
    type: Docker
`;
  const f = only(text, 'OCP002');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'kubernetes.io/os');
  assert.match(f[0].message, /image builds are not supported on Windows nodes/);
  assert.deepEqual(only(text.replace('windows', 'linux'), 'OCP002'), []);
  assert.equal(only(text.replace('kind: BuildConfig', 'kind: Build'), 'OCP002').length, 1);
});

test('OCP002 flags a Knative Service whose pod template targets Windows, not a core Service', () => {
  const ksvc = (podSpec: string) => `apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: hello
spec:
  template:
    spec:
${indent(podSpec, 6)}`;
  const text = ksvc(winPod);
  const f = only(text, 'OCP002');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /OpenShift Serverless is not supported on Windows nodes/);
  assert.deepEqual(only(ksvc(linuxPod), 'OCP002'), []);
  const core = `apiVersion: v1\nkind: Service\nmetadata:\n  name: hello\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n`;
  assert.deepEqual(only(core, 'OCP002'), []);
});

test('OCP002 flags sidecar.istio.io/inject "true" on a Windows pod and sets it to "false"', () => {
  const text = deploy(winPod, `annotations:\n  sidecar.istio.io/inject: "true"\n`);
  const f = only(text, 'OCP002');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'sidecar.istio.io/inject');
  const { fixed } = fixAndRecheck(text, 'OCP002');
  assert.match(fixed, /sidecar\.istio\.io\/inject: 'false'/);
  // As a label too; an opt-out or a Linux pod is fine.
  assert.equal(
    only(
      deploy(winPod).replace('labels: {app: web}\n', 'labels: {app: web, sidecar.istio.io/inject: "true"}\n'),
      'OCP002',
    ).length,
    1,
  );
  assert.deepEqual(only(deploy(linuxPod, `annotations:\n  sidecar.istio.io/inject: "true"\n`), 'OCP002'), []);
});

test('OCP002 flags Windows pods in a namespace with istio-injection=enabled unless they opt out', () => {
  const ns = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    istio-injection: enabled\n---\n`;
  const text = ns + deploy(winPod);
  const f = only(text, 'OCP002');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /istio-injection=enabled/);
  const { fixed } = fixAndRecheck(text, 'OCP002');
  assert.match(fixed, /annotations:\n\s+sidecar\.istio\.io\/inject: 'false'/);
  assert.deepEqual(only(ns + deploy(winPod, `annotations:\n  sidecar.istio.io/inject: "false"\n`), 'OCP002'), []);
});

test('OCP002 flags a VPA on a Windows workload (warning) and an HPA (info) on OpenShift', () => {
  const vpa = `---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata:
  name: web-vpa
  namespace: shop
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
`;
  const text = deploy(winPod) + vpa;
  const f = only(text, 'OCP002', OCP);
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'web');
  assert.match(f[0].message, /VerticalPodAutoscaler "web-vpa"/);
  assert.deepEqual(only(text, 'OCP002', K8S), []);
  assert.deepEqual(only(deploy(linuxPod) + vpa, 'OCP002', OCP), []);

  const hpa = `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web-hpa
  namespace: shop
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
`;
  const h = only(deploy(winPod) + hpa, 'OCP002', OCP);
  assert.equal(h.length, 1);
  assert.equal(h[0].severity, 'info');
  assert.match(h[0].message, /HorizontalPodAutoscaler "web-hpa"/);
  // A VPA for another workload does not count.
  assert.deepEqual(only(deploy(winPod) + vpa.replace('name: web}', 'name: other}'), 'OCP002', OCP), []);
});

// ---------------------------------------------------------------------------------------------
// OCP003

const inferredWin = `nodeSelector:
  kubernetes.io/os: windows
  node.kubernetes.io/windows-build: 10.0.20348
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
containers:
  - name: web
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
`;

test('OCP003 asks for spec.os.name on OpenShift and adds it', () => {
  const text = deploy(inferredWin);
  const f = only(text, 'OCP003', OCP);
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(f[0].message, /SCC admission/);
  assert.match(f[0].message, /inferred from nodeSelector kubernetes\.io\/os: windows/);
  const { fixed } = fixAndRecheck(text, 'OCP003', OCP);
  assert.match(fixed, /    spec:\n      os:\n        name: windows\n      nodeSelector:/);
});

test('OCP003 is quiet off OpenShift, with spec.os set, or for Linux pods', () => {
  assert.deepEqual(only(deploy(inferredWin), 'OCP003', K8S), []);
  assert.deepEqual(only(deploy(inferredWin), 'OCP003'), []);
  assert.deepEqual(only(deploy(winPod), 'OCP003', OCP), []);
  assert.deepEqual(only(deploy(linuxPod), 'OCP003', OCP), []);
});

test('OCP003 in flavour auto: the file itself must hold OpenShift objects', () => {
  const idms = `---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: m\nspec:\n  imageDigestMirrors: []\n`;
  const f = only(deploy(inferredWin) + idms, 'OCP003');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(only(dc('replicas: 1\n', inferredWin), 'OCP003').length, 1);
  assert.deepEqual(only(deploy(inferredWin), 'OCP003'), []);
});

// ---------------------------------------------------------------------------------------------
// OCP004

const onRelease = (version: string) => ({
  flavour: 'openshift' as const,
  cluster: {
    name: 'prod',
    flavour: 'openshift' as const,
    windowsNodes: [],
    runtimeClasses: [],
    openshift: { version },
  },
});

test("OCP004: private registries before 4.16 and CSI volumes on 4.6, by the cluster's release; nothing without one", () => {
  const pulling = deploy(`${winPod}imagePullSecrets:\n  - name: registry-creds\n`);
  const [f] = only(pulling, 'OCP004', onRelease('4.14.7'));
  assert.ok(f, 'reported on 4.14');
  assert.equal(covered(pulling, f), 'imagePullSecrets');
  assert.match(f.message, /not supported on OpenShift 4\.14 \(supported from 4\.16/);
  assert.deepEqual(only(pulling, 'OCP004', onRelease('4.16.0')), []);
  assert.deepEqual(only(pulling, 'OCP004', OCP), [], 'no release known: no finding');
  assert.deepEqual(only(pulling, 'OCP004', K8S), []);
  // A Linux pod pulling from a private registry is not this rule's business.
  assert.deepEqual(
    only(deploy(`${linuxPod}imagePullSecrets:\n  - name: registry-creds\n`), 'OCP004', onRelease('4.14.7')),
    [],
  );
  // An empty list pulls nothing privately.
  assert.deepEqual(only(deploy(`${winPod}imagePullSecrets: []\n`), 'OCP004', onRelease('4.14.7')), []);

  const csi = deploy(
    `${winPod}volumes:\n  - name: data\n    csi: {driver: smb.csi.k8s.io}\n  - name: tmp\n    emptyDir: {}\n`,
  );
  const [v] = only(csi, 'OCP004', onRelease('4.6.12'));
  assert.ok(v, 'reported on 4.6');
  assert.equal(covered(csi, v), 'csi');
  assert.match(v.message, /^volumes\[0\]\.csi: OpenShift 4\.6 supports only in-tree storage drivers/);
  assert.deepEqual(only(csi, 'OCP004', onRelease('4.7.0')), []);
});
