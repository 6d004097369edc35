// `apiRejects` against the REAL kube-apiserver, decided by the server's own release: an object whose
// engine errors say `apiRejects: true` must be refused by a server-side dry run (?dryRun=All), and one
// whose errors all say `false` (accepted, never runs as written) must be accepted. The release-
// dependent rules are asked with the server's version, and read the same as with --kubernetes-version.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { normalizeRelease } from '../../src/core/kubernetes-release';
import { findings } from '../support/check';
import {
  collectionPath,
  ensureNamespace,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type Status,
} from '../support/real-apiserver';

let api: RealApiServer;
let release = '';
const NS = uniqueName('kw-rejects');

before(async () => {
  api = await useApiServer();
  const version = (await api.request<{ gitVersion: string }>('/version')).body.gitVersion;
  release = normalizeRelease(version) ?? '';
  assert.ok(release, `the server reports a release: ${version}`);
  await ensureNamespace(api, NS);
});

after(async () => {
  await api?.stop();
});

const windowsPod = (name: string, spec: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${NS}
spec:
  os:
    name: windows
  nodeSelector:
    kubernetes.io/os: windows
${spec.replace(/^(?=.)/gm, '  ')}`;

const SERVERCORE = 'mcr.microsoft.com/windows/servercore:ltsc2022';

/** Each case: an object, and the error rules the engine must report on it (with their apiRejects). */
const CASES: { name: string; yaml: string; errors: Record<string, boolean> }[] = [
  {
    name: 'runAsUser (WIN001)',
    yaml: windowsPod(
      'rej-runasuser',
      `securityContext:\n  runAsUser: 1000\ncontainers:\n  - {name: a, image: ${SERVERCORE}}\n`,
    ),
    errors: { WIN001: true },
  },
  {
    name: 'privileged: false (WIN002)',
    yaml: windowsPod(
      'rej-privileged',
      `containers:\n  - name: a\n    image: ${SERVERCORE}\n    securityContext: {privileged: false}\n`,
    ),
    errors: { WIN002: true },
  },
  {
    name: 'runAsUserName with two backslashes (WIN022)',
    yaml: windowsPod(
      'rej-username',
      `securityContext:\n  windowsOptions: {runAsUserName: 'a\\\\b\\\\c'}\ncontainers:\n  - {name: a, image: ${SERVERCORE}}\n`,
    ),
    errors: { WIN022: true },
  },
  {
    name: 'pod-level resources (WIN058, rejected from 1.34)',
    yaml: windowsPod(
      'rej-podresources',
      `resources:\n  limits: {cpu: '1', memory: 1Gi}\ncontainers:\n  - {name: a, image: ${SERVERCORE}}\n`,
    ),
    errors: { WIN058: true },
  },
  {
    name: 'huge pages (WIN050: accepted, stays Pending)',
    yaml: windowsPod(
      'ok-hugepages',
      `containers:\n  - name: a\n    image: ${SERVERCORE}\n    resources:\n      limits: {cpu: '1', memory: 1Gi, hugepages-2Mi: 100Mi}\n`,
    ),
    errors: { WIN050: false },
  },
  {
    name: 'spec.os.name windows with a Linux node selector (WIN072: accepted, the kubelet refuses it)',
    yaml: windowsPod(
      'ok-osconflict',
      `affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n        - matchExpressions:\n            - {key: kubernetes.io/os, operator: In, values: [linux]}\ncontainers:\n  - {name: a, image: ${SERVERCORE}}\n`,
    ),
    errors: { WIN072: false },
  },
  {
    name: 'a Windows image beside a Linux-only image (WIN084: accepted, never runs)',
    yaml: windowsPod(
      'ok-mixed',
      `containers:\n  - {name: a, image: ${SERVERCORE}}\n  - {name: b, image: 'docker.io/library/nginx:1.27-alpine'}\n`,
    ),
    errors: { WIN084: false },
  },
];

async function dryRun(yaml: string): Promise<{ status: number; message: string }> {
  const v = load(yaml) as { apiVersion: string; kind: string };
  const path = await collectionPath(api, v.apiVersion, v.kind, NS);
  assert.ok(path, `${v.apiVersion} ${v.kind} is served`);
  const r = await api.request<Status>(path, {
    method: 'POST',
    body: yaml,
    contentType: 'application/yaml',
    query: { dryRun: 'All' },
  });
  return { status: r.status, message: r.body?.message ?? '' };
}

for (const c of CASES) {
  test(`apiRejects on the server's release: ${c.name}`, async () => {
    const errors = findings(c.yaml, { kubernetesVersion: release }).filter((f) => f.severity === 'error');
    // Only the errors the case is about (another rule may add a warning; no other error is expected).
    assert.deepEqual(
      Object.fromEntries(errors.map((f) => [f.ruleId, f.apiRejects])),
      c.errors,
      errors.map((f) => `${f.ruleId} ${f.message}`).join('\n'),
    );
    const rejects = errors.some((f) => f.apiRejects);
    const r = await dryRun(c.yaml);
    if (rejects) assert.equal(r.status, 422, `kube-apiserver ${release} accepts what the engine says it rejects`);
    else assert.equal(r.status, 201, `kube-apiserver ${release} rejects what the engine says it accepts: ${r.message}`);
  });
}

test('the engine asked for an older release than the server says what that release does (WIN058 dropped before 1.34)', () => {
  const yaml = CASES.find((c) => c.errors.WIN058 !== undefined)!.yaml;
  const [old] = findings(yaml, { kubernetesVersion: '1.33' }).filter((f) => f.ruleId === 'WIN058');
  assert.equal(old.severity, 'warning');
  assert.match(old.message, /dropped silently by the API server on Kubernetes 1\.33/);
});

/** The dry-run answer's first container (what the server would store). */
async function storedContainer(yaml: string): Promise<Record<string, unknown>> {
  const v = load(yaml) as { apiVersion: string; kind: string };
  const path = await collectionPath(api, v.apiVersion, v.kind, NS);
  const r = await api.request<{ spec?: { containers?: Record<string, unknown>[] } }>(path ?? '', {
    method: 'POST',
    body: yaml,
    contentType: 'application/yaml',
    query: { dryRun: 'All' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.spec?.containers?.[0] ?? {};
}

test('WIN064: the server drops lifecycle.stopSignal (ContainerStopSignals off by default), as the finding says', async () => {
  const yaml = windowsPod(
    'ok-stopsignal',
    `containers:\n  - name: a\n    image: ${SERVERCORE}\n    lifecycle:\n      stopSignal: SIGUSR1\n`,
  );
  const [f] = findings(yaml, { kubernetesVersion: release }).filter((x) => x.ruleId === 'WIN064');
  assert.equal(f?.severity, 'warning');
  assert.match(f?.message ?? '', new RegExp(`the API server of Kubernetes ${release.replace('.', '\\.')} drops it`));
  const stored = await storedContainer(yaml);
  assert.equal((stored.lifecycle as { stopSignal?: string } | undefined)?.stopSignal, undefined);
});

test('WIN065: the server keeps resizePolicy on a Windows container (1.33 and later) that can never be used', async () => {
  const yaml = windowsPod(
    'ok-resizepolicy',
    `containers:\n  - name: a\n    image: ${SERVERCORE}\n    resizePolicy:\n      - {resourceName: cpu, restartPolicy: NotRequired}\n`,
  );
  const [f] = findings(yaml, { kubernetesVersion: release }).filter((x) => x.ruleId === 'WIN065');
  assert.match(f?.message ?? '', /does nothing: the API server refuses every in-place resize of a Windows pod/);
  const stored = await storedContainer(yaml);
  assert.deepEqual(stored.resizePolicy, [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }]);
});

test('WIN065: the server refuses an in-place resize of a Windows pod ("windows pods cannot be resized")', async () => {
  const name = uniqueName('resize');
  const yaml = windowsPod(
    name,
    `containers:\n  - name: a\n    image: ${SERVERCORE}\n    resources:\n      requests: {cpu: 100m, memory: 128Mi}\n      limits: {cpu: 200m, memory: 256Mi}\n`,
  );
  const path = await collectionPath(api, 'v1', 'Pod', NS);
  const created = await api.request(path ?? '', { method: 'POST', body: yaml, contentType: 'application/yaml' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  try {
    const r = await api.request<Status>(`${path}/${name}/resize`, {
      method: 'PATCH',
      contentType: 'application/strategic-merge-patch+json',
      body: JSON.stringify({ spec: { containers: [{ name: 'a', resources: { limits: { cpu: '300m' } } }] } }),
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.match(r.body.message ?? '', /windows pods cannot be resized/);
  } finally {
    await api.request(`${path}/${name}`, { method: 'DELETE', query: { gracePeriodSeconds: 0 } });
  }
});
