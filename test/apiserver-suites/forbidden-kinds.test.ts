// `kube-windows check --context` as a user who may read the workloads of one namespace and nothing
// else (no events, no nodes, no RuntimeClasses, not the Namespace object), against a real
// kube-apiserver with real RBAC: the workloads are still checked, and stderr names each kind that
// could not be read, one line each; nothing fails as a whole.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_RESTRICTED,
  ensureNamespace,
  expectStatus,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
} from '../support/real-apiserver';

const NS = uniqueName('kw-forbid');
let api: RealApiServer;

before(async () => {
  api = await useApiServer();
  await ensureNamespace(api, NS);
  const role = await api.request(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
    method: 'POST',
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'workloads-only' },
      rules: [
        {
          apiGroups: ['', 'apps', 'batch', 'apps.openshift.io'],
          resources: [
            'pods',
            'deployments',
            'daemonsets',
            'statefulsets',
            'replicasets',
            'jobs',
            'cronjobs',
            'deploymentconfigs',
          ],
          verbs: ['get', 'list'],
        },
      ],
    },
  });
  expectStatus(role, [201], 'create the Role');
  const binding = await api.request(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    method: 'POST',
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'workloads-only' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'workloads-only' },
      subjects: [{ kind: 'User', name: 'kube-windows-restricted', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  });
  expectStatus(binding, [201], 'create the RoleBinding');
  await seed(api, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'iis', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'iis' } },
        template: {
          metadata: { labels: { app: 'iis' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            containers: [
              {
                name: 'iis',
                image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
                securityContext: { privileged: true },
              },
            ],
          },
        },
      },
    },
  ]);
});

test('a user who may read only the workloads still gets their findings, with one line per kind not read', async () => {
  const r = await runCli([
    'check',
    '--context',
    CONTEXT_RESTRICTED,
    '--kubeconfig',
    api.kubeconfigPath,
    '-n',
    NS,
    '--format',
    'json',
  ]);
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as { objects: { kind: string; name: string; findings: { ruleId: string }[] }[] };
  const iis = report.objects.find((o) => o.kind === 'Deployment' && o.name === 'iis');
  assert.ok(iis && iis.findings.length > 0, r.stdout);
  const lines = r.stderr.trim().split('\n');
  const refused = [
    'Warning events',
    'Windows nodes',
    'RuntimeClasses',
    'Namespaces',
    'PersistentVolumeClaims',
    'PersistentVolumes',
    'StorageClasses',
    'CSINodes',
    'CSIDrivers',
  ];
  for (const what of refused) {
    assert.ok(
      lines.some(
        (l) => l.startsWith(`kube-windows: ${what} not read: You are not allowed to `) && l.includes('(403 Forbidden)'),
      ),
      `no line for ${what}:\n${r.stderr}`,
    );
  }
  assert.equal(lines.length, refused.length, r.stderr);
  assert.ok(
    lines.every((l) => l.startsWith('kube-windows: ')),
    r.stderr,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
