// The Kubernetes release the rules decide by: parsing, the default, OpenShift's mapping, where the
// release comes from (asked, cluster, default), and the rules whose truth changes with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clusterRelease,
  compareReleases,
  DEFAULT_KUBERNETES_RELEASE,
  effectiveRelease,
  kubernetesOfOpenShift,
  kubernetesReleaseProblem,
  normalizeRelease,
  OLDEST_KUBERNETES_RELEASE,
  parseKubernetesRelease,
  releaseAtLeast,
  releaseText,
} from '../../src/core/kubernetes-release';
import { emptyFacts, factsWithoutCluster } from '../../src/core/rules/facts';
import { checkObject, checkText } from '../../src/core/rules/checker';
import { RULES } from '../../src/core/rules/registry';
import type { ClusterSnapshot } from '../../src/core/rules/facts';
import { Analyzer } from '../../src/server/analysis';
import { covered, fixAndRecheck, only } from '../support/check';
import { deployment } from '../support/manifests';

const SERVERCORE = 'mcr.microsoft.com/windows/servercore:ltsc2022';
const declared = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
`;
const inferred = `nodeSelector:
  kubernetes.io/os: windows
`;
const cluster = (serverVersion?: string, openshift?: string): ClusterSnapshot => ({
  name: 'prod',
  windowsNodes: [],
  runtimeClasses: [],
  ...(serverVersion ? { serverVersion } : {}),
  ...(openshift ? { flavour: 'openshift' as const, openshift: { version: openshift } } : {}),
});

test('releases are read from what users type and what servers report, and compared as minors', () => {
  assert.equal(normalizeRelease('1.35'), '1.35');
  assert.equal(normalizeRelease('v1.35.4'), '1.35');
  assert.equal(normalizeRelease('v1.34.2+k3s1'), '1.34');
  assert.equal(normalizeRelease('v1.33.5-eks-ba74326'), '1.33');
  assert.equal(normalizeRelease('1'), undefined);
  assert.equal(normalizeRelease('latest'), undefined);
  assert.ok(releaseAtLeast('1.34', '1.34'));
  assert.ok(releaseAtLeast('1.40', '1.34'));
  assert.ok(!releaseAtLeast('1.9', '1.34'), '1.9 is older than 1.34 (numbers, not text)');
  assert.equal(DEFAULT_KUBERNETES_RELEASE, '1.37');
  assert.deepEqual(parseKubernetesRelease('v1.9.11'), { major: 1, minor: 9 });
  assert.ok(compareReleases({ major: 1, minor: 9 }, { major: 1, minor: 34 }) < 0);
  assert.equal(compareReleases({ major: 1, minor: 34 }, { major: 1, minor: 34 }), 0);
  assert.equal(releaseText({ major: 1, minor: 35 }), '1.35');
  assert.equal(OLDEST_KUBERNETES_RELEASE, '1.25');
});

test('--kubernetes-version values are refused with what to give', () => {
  assert.equal(kubernetesReleaseProblem('1.30'), undefined);
  assert.equal(kubernetesReleaseProblem('v1.30.2'), undefined);
  assert.match(kubernetesReleaseProblem('4.16') ?? '', /takes a Kubernetes release such as 1\.37 \(got "4\.16"\)/);
  assert.match(kubernetesReleaseProblem('one') ?? '', /got "one"/);
  assert.match(kubernetesReleaseProblem('1.20') ?? '', /1\.20 is older than 1\.25/);
});

test('an OpenShift release maps to the Kubernetes release it ships', () => {
  assert.equal(kubernetesOfOpenShift('4.16'), '1.29');
  assert.equal(kubernetesOfOpenShift('4.21.3'), '1.34');
  assert.equal(kubernetesOfOpenShift('4.12'), '1.25');
  assert.equal(kubernetesOfOpenShift('3.11'), undefined);
  assert.equal(kubernetesOfOpenShift(undefined), undefined);
});

test('the release decided by: asked, else the API server, else the OpenShift release, else the default', () => {
  assert.equal(effectiveRelease('1.30', cluster('v1.35.1')), '1.30');
  assert.equal(effectiveRelease(undefined, cluster('v1.35.1', '4.18')), '1.35');
  assert.equal(effectiveRelease(undefined, cluster(undefined, '4.18')), '1.31');
  assert.equal(effectiveRelease(undefined, undefined), '1.37');
  assert.equal(clusterRelease(cluster()), undefined);
  const facts = emptyFacts('auto', cluster('v1.33.2'));
  assert.equal(facts.kubernetesVersion, '1.33');
  assert.equal(facts.kubernetesVersionFrom, 'cluster');
  assert.equal(emptyFacts('auto', undefined, '1.31').kubernetesVersionFrom, 'asked');
  assert.equal(emptyFacts().kubernetesVersion, '1.37');
  // Without the cluster the release it gave is gone: findings it alone makes are marked as the cluster's.
  assert.equal(factsWithoutCluster(facts, '').kubernetesVersion, '1.37');
  assert.equal(factsWithoutCluster(emptyFacts('auto', cluster('v1.33.2'), '1.33'), '').kubernetesVersionFrom, 'asked');
});

test('docs: every rule whose truth depends on the release says so, with the releases', () => {
  const byId = new Map(RULES.map((r) => [r.id, r]));
  for (const id of ['WIN058', 'WIN064', 'WIN065', 'WIN055'])
    assert.ok(byId.get(id)?.releases, `${id} names the releases it holds for`);
  assert.match(byId.get('WIN058')?.releases ?? '', /^1\.34 and later/);
});

// ---------------------------------------------------------------------------------------------
// WIN058: pod-level resources

const podResources = (base: string) =>
  deployment(`${base}resources:
  limits: {cpu: '2', memory: 4Gi}
containers:
  - {name: app, image: ${SERVERCORE}}
`);

test('WIN058 is an API rejection from 1.34 and a silent drop before, by the release asked or the cluster', () => {
  const text = podResources(declared);
  const [on] = only(text, 'WIN058', { kubernetesVersion: '1.34' });
  assert.equal(on.severity, 'error');
  assert.equal(on.apiRejects, true);
  assert.match(on.message, /Forbidden: may not be set for a windows pod/);
  assert.match(on.message, /Kubernetes 1\.34 rejects/);
  const [before] = only(text, 'WIN058', { kubernetesVersion: '1.33' });
  assert.equal(before.severity, 'warning');
  assert.equal(before.apiRejects, undefined, 'a warning says nothing of rejection');
  assert.match(before.message, /dropped silently by the API server on Kubernetes 1\.33/);
  assert.equal(covered(text, before), 'resources');
  // The default (1.37) rejects; a 1.33 cluster's snapshot drops, and says the finding is the cluster's.
  assert.equal(only(text, 'WIN058')[0].severity, 'error');
  const [fromCluster] = only(text, 'WIN058', { cluster: cluster('v1.33.7') });
  assert.equal(fromCluster.severity, 'warning');
  assert.equal(fromCluster.cluster, 'prod');
  // An OpenShift 4.20 cluster runs 1.33.
  assert.equal(only(text, 'WIN058', { cluster: cluster(undefined, '4.20') })[0].severity, 'warning');
  // --kubernetes-version wins over pre-gathered facts.
  const facts = emptyFacts('auto', cluster('v1.36.0'));
  assert.equal(only(text, 'WIN058', { facts, kubernetesVersion: '1.32' })[0].severity, 'warning');
  const { fixed } = fixAndRecheck(text, 'WIN058', { kubernetesVersion: '1.33' });
  assert.ok(!/^\s+resources:\n\s+limits: \{cpu: '2'/m.test(fixed));
});

test('WIN058 on a pod whose Windows is inferred stays a warning on every release', () => {
  const text = podResources(inferred);
  for (const kubernetesVersion of ['1.30', '1.37']) {
    const [f] = only(text, 'WIN058', { kubernetesVersion });
    assert.equal(f.severity, 'warning', kubernetesVersion);
  }
  assert.match(only(text, 'WIN058', { kubernetesVersion: '1.37' })[0].message, /Windows inferred from/);
});

test('the editor decides by the kubeWindows.kubernetesVersion setting, else the connected cluster, else 1.37', () => {
  const text = podResources(declared);
  const win058 = (analyzer: Analyzer) =>
    analyzer.analyze('file:///pod.yaml', text, 1).findings.find((f) => f.ruleId === 'WIN058')?.severity;
  assert.equal(win058(new Analyzer({ flavour: 'auto', rules: {} })), 'error');
  assert.equal(win058(new Analyzer({ flavour: 'auto', rules: {}, kubernetesVersion: '1.33' })), 'warning');
  const connected = new Analyzer({ flavour: 'auto', rules: {}, kubernetesVersion: '' });
  connected.setCluster(cluster('v1.32.4'));
  assert.equal(win058(connected), 'warning');
});

test('live objects decide by the release too (checkObject)', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { os: { name: 'windows' }, resources: { limits: { cpu: '1' } }, containers: [{ name: 'a', image: 'x' }] },
  };
  const sev = (kubernetesVersion: string) =>
    checkObject(pod, { kubernetesVersion }).findings.find((f) => f.ruleId === 'WIN058')?.severity;
  assert.equal(sev('1.33'), 'warning');
  assert.equal(sev('1.35'), 'error');
});

// ---------------------------------------------------------------------------------------------
// WIN064: lifecycle.stopSignal

const stopSignal = (base: string, signal: string) =>
  deployment(`${base}containers:
  - name: app
    image: ${SERVERCORE}
    lifecycle:
      stopSignal: ${signal}
`);

test('WIN064: a stop signal is dropped (ContainerStopSignals off by default); what a gate-on cluster would say', () => {
  const bad = stopSignal(declared, 'SIGUSR1');
  const [f] = only(bad, 'WIN064', { kubernetesVersion: '1.37' });
  assert.equal(f.severity, 'warning');
  assert.equal(covered(bad, f), 'stopSignal');
  assert.match(
    f.message,
    /^spec\.template\.spec\.containers\[0\]\.lifecycle\.stopSignal: the API server of Kubernetes 1\.37 drops it/,
  );
  assert.match(f.message, /Unsupported value: \\"SIGUSR1\\": supported values: \\"SIGKILL\\", \\"SIGTERM\\"/);
  // A signal Windows takes, on a declared Windows pod: only a field that does nothing yet.
  const [ok] = only(stopSignal(declared, 'SIGTERM'), 'WIN064');
  assert.equal(ok.severity, 'info');
  // The pods this tool exists for: no spec.os.name, which a gate-on API server refuses outright.
  const [inf] = only(stopSignal(inferred, 'SIGTERM'), 'WIN064');
  assert.equal(inf.severity, 'warning');
  assert.match(inf.message, /may not be set for containers with empty `spec\.os\.name`/);
  const { fixed } = fixAndRecheck(bad, 'WIN064');
  assert.ok(!fixed.includes('stopSignal'));
  assert.deepEqual(
    only(
      stopSignal('', 'SIGUSR1').replace('image: mcr.microsoft.com/windows/servercore:ltsc2022', 'image: nginx'),
      'WIN064',
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// WIN065: resizePolicy

const resizePolicy = (base: string) =>
  deployment(`${base}containers:
  - name: app
    image: ${SERVERCORE}
    resizePolicy:
      - {resourceName: cpu, restartPolicy: NotRequired}
`);

test('WIN065: resizePolicy on a Windows container does nothing (resize refused), or is dropped before 1.33', () => {
  const text = resizePolicy(declared);
  const [f] = only(text, 'WIN065', { kubernetesVersion: '1.35' });
  assert.equal(f.severity, 'warning');
  assert.equal(covered(text, f), 'resizePolicy');
  assert.match(f.message, /windows pods cannot be resized/);
  assert.match(f.message, /VerticalPodAutoscaler in Recreate mode/);
  assert.match(
    only(text, 'WIN065', { kubernetesVersion: '1.32' })[0].message,
    /dropped by the API server of Kubernetes 1\.32/,
  );
  fixAndRecheck(text, 'WIN065');
  assert.deepEqual(only(resizePolicy('nodeSelector:\n  kubernetes.io/os: linux\n'), 'WIN065'), []);
});

// ---------------------------------------------------------------------------------------------
// apiRejects on every error finding

test('every error finding says whether the API server rejects the object; warnings do not', () => {
  const text = deployment(`${declared}securityContext:
  runAsUser: 1000
containers:
  - name: app
    image: ${SERVERCORE}
    resources:
      limits:
        hugepages-2Mi: 100Mi
`);
  const result = checkText(text, { kubernetesVersion: '1.35' });
  const win001 = result.findings.find((f) => f.ruleId === 'WIN001');
  const win050 = result.findings.find((f) => f.ruleId === 'WIN050');
  assert.equal(win001?.apiRejects, true, 'runAsUser: Forbidden for a windows pod');
  assert.equal(win050?.apiRejects, false, 'huge pages: accepted, stays Pending');
  for (const f of result.findings) assert.equal(f.apiRejects !== undefined, f.severity === 'error', f.ruleId);
});
