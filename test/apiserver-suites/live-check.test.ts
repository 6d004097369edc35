// `kube-windows check --context` against a real kube-apiserver: Windows nodes, a Deployment, a
// ReplicaSet it owns, bare pods and the pods of a rollout in a namespace of this file's own; the JSON
// asserted whole. There is no kubelet and no scheduler here, so what they would report is written the
// way they write it: pod status through the status subresource (SIMULATED KUBELET REPORT) and a
// FailedScheduling event (SIMULATED SCHEDULER EVENT). This proves the list paths, the field and
// label selectors (events type=Warning, nodes kubernetes.io/os=windows) and paging (continue tokens,
// --chunk-size 2) on a real server, lists RBAC refuses (named, the rest checked), and the Windows
// workload problems view's model with its live YAML documents.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pod, windowsNode } from '../support/kube-seed';
import { ProblemsTree } from '../../src/views/problems-tree';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  CONTEXT_RESTRICTED,
  ensureNamespace,
  expectStatus,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const NS = uniqueName('kw-live');
const WIN1 = uniqueName('kw-live-win');
const WIN2 = uniqueName('kw-live-win');
let api: RealApiServer;

const template = {
  metadata: { labels: { app: 'iis' } },
  spec: {
    nodeSelector: { 'kubernetes.io/os': 'windows' },
    tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
    containers: [
      {
        name: 'iis',
        image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
        securityContext: { privileged: true },
      },
    ],
  },
};

before(async () => {
  api = await useApiServer();
  await ensureNamespace(api, NS);
  await seed(api, [
    windowsNode(WIN1, { build: '10.0.20348' }) as SeedObject,
    windowsNode(WIN2, { build: '10.0.20348' }) as SeedObject,
  ]);
  const [deploy] = await seed(api, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'iis', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: { app: 'iis' } }, template },
    },
  ]);
  const deployUid = (deploy.metadata as { uid: string }).uid;
  // The ReplicaSet the deployment controller would make (there is none here): owned, so not checked again.
  await seed(api, [
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'iis-7d9c',
        namespace: NS,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'iis', uid: deployUid, controller: true }],
      },
      spec: { replicas: 1, selector: { matchLabels: { app: 'iis' } }, template },
    },
  ]);
  // SIMULATED KUBELET REPORT: the pod is bound to a Windows node of build 20348 and its container
  // cannot be created, as containerd reports an image of the wrong build (the status subresource).
  const failing = pod('api-0', NS, WIN2, {
    windows: true,
    image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
  }) as SeedObject;
  failing.status = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'api',
        ready: false,
        restartCount: 0,
        image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
        imageID: '',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message:
              'failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem api: The container operating system does not match the host operating system.: unknown',
          },
        },
      },
    ],
  };
  // A Windows pod without the toleration, never scheduled, and the event a scheduler would write.
  const pending = pod('report-0', NS, undefined, { windows: true }) as SeedObject;
  delete (pending.spec as { tolerations?: unknown }).tolerations;
  const [, created] = await seed(api, [
    failing,
    pending,
    ...[1, 2, 3].map((i) => pod(`static-${i}`, NS, undefined) as SeedObject),
  ]);
  const uid = (created.metadata as { uid: string }).uid;
  // SIMULATED SCHEDULER EVENT (the default scheduler's FailedScheduling words).
  expectStatus(
    await api.request(`/api/v1/namespaces/${NS}/events`, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'report-0.simulated', namespace: NS },
        type: 'Warning',
        reason: 'FailedScheduling',
        message:
          "0/3 nodes are available: 2 node(s) had untolerated taint {os: Windows}, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: NS, name: 'report-0', uid },
        source: { component: 'default-scheduler' },
        count: 3,
        firstTimestamp: '2026-11-25T07:00:00Z',
        lastTimestamp: '2026-11-25T07:02:00Z',
      },
    }),
    [201],
    'creating the simulated FailedScheduling event',
  );
  // A Normal event: the type=Warning field selector leaves it on the server.
  expectStatus(
    await api.request(`/api/v1/namespaces/${NS}/events`, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'api-0.normal', namespace: NS },
        type: 'Normal',
        reason: 'Pulling',
        message: 'Pulling image',
        involvedObject: { kind: 'Pod', namespace: NS, name: 'api-0' },
      },
    }),
    [201],
    'creating a Normal event',
  );
});

after(async () => {
  for (const n of [WIN1, WIN2]) await api?.request(`/api/v1/nodes/${n}`, { method: 'DELETE' });
  await api?.request(`/api/v1/namespaces/${NS}`, { method: 'DELETE' });
  await api?.stop();
});

const EXPECTED_WINF001 =
  'image mcr.microsoft.com/windows/servercore:ltsc2019 needs Windows Server 2019 (10.0.17763); node NODE runs 10.0.20348 (2022). Fix: Use mcr.microsoft.com/windows/servercore:ltsc2022 or schedule by the node.kubernetes.io/windows-build label (node.kubernetes.io/windows-build: 10.0.17763).';

test('check --context -n NS --format json on a real API server, in pages of 2', async () => {
  const r = await runCli([
    'check',
    '--context',
    CONTEXT_ADMIN,
    '--kubeconfig',
    api.kubeconfigPath,
    '-n',
    NS,
    '--format',
    'json',
    '--chunk-size',
    '2',
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, '');
  const out = JSON.parse(r.stdout) as {
    objects: {
      apiVersion: string;
      kind: string;
      namespace: string;
      name: string;
      findings: { ruleId: string; severity: string; message: string; path: string }[];
    }[];
    summary: Record<string, number>;
  };
  const deploy = out.objects[0];
  assert.deepEqual(
    out.objects.map((o) => `${o.apiVersion} ${o.kind}/${o.namespace}/${o.name}`),
    [`apps/v1 Deployment/${NS}/iis`, `v1 Pod/${NS}/api-0`, `v1 Pod/${NS}/report-0`],
  );
  assert.ok(
    deploy.findings.some(
      (f) => f.path === 'spec.template.spec.containers[0].securityContext.privileged' && f.severity === 'error',
    ),
    JSON.stringify(deploy.findings),
  );
  // api-0 is a bare pod here (no controller made it): the rules run on it too. The server's defaults
  // (the projected token volume's defaultMode 0644 on every pod) are not reported.
  const api0 = out.objects[1].findings;
  assert.deepEqual(
    api0.filter((f) => f.ruleId.startsWith('WINF')),
    [
      {
        ruleId: 'WINF001',
        severity: 'error',
        message: EXPECTED_WINF001.replace('NODE', WIN2),
        path: 'spec.containers[0].image',
      },
    ],
  );
  assert.ok(!api0.some((f) => f.path.includes('defaultMode')), JSON.stringify(api0));
  const taint = out.objects[2].findings.filter((f) => f.ruleId.startsWith('WINF'));
  assert.deepEqual(
    taint.map((f) => [f.ruleId, f.path]),
    [['WINF004', 'spec.tolerations']],
  );
  assert.match(
    taint[0].message,
    /^2 Windows nodes carry the taint os=Windows:NoSchedule and the pod does not tolerate it\./,
  );
  // Every object of the namespace was read across the pages: the Deployment, the 5 pods (bare or not: api-0 is bare here, on a Windows node).
  assert.equal(out.summary.objects, 6);
  assert.equal(out.summary.errors, out.objects.flatMap((o) => o.findings).filter((f) => f.severity === 'error').length);
});

test('check --context -A finds the same objects among everything the server holds; --format sarif names them by logical location', async () => {
  const r = await runCli([
    'check',
    '--context',
    CONTEXT_ADMIN,
    '--kubeconfig',
    api.kubeconfigPath,
    '-A',
    '--format',
    'json',
    '--chunk-size',
    '50',
  ]);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as {
    objects: { kind: string; namespace?: string; name: string; findings: { ruleId: string; message: string }[] }[];
  };
  const mine = out.objects.filter((o) => o.namespace === NS).map((o) => `${o.kind}/${o.name}`);
  assert.deepEqual(mine, ['Deployment/iis', 'Pod/api-0', 'Pod/report-0']);
  const sarif = await runCli([
    'check',
    '--context',
    CONTEXT_ADMIN,
    '--kubeconfig',
    api.kubeconfigPath,
    '-n',
    NS,
    '--format',
    'sarif',
  ]);
  const results = (
    JSON.parse(sarif.stdout) as {
      runs: { results: { ruleId: string; locations: { logicalLocations: { fullyQualifiedName: string }[] }[] }[] }[];
    }
  ).runs[0].results;
  const winf = results.find((x) => x.ruleId === 'WINF001');
  assert.equal(winf?.locations[0].logicalLocations[0].fullyQualifiedName, `Pod/${NS}/api-0`);
});

test('snapshot --context reads the Windows nodes by label selector from the real server', async () => {
  const r = await runCli(['snapshot', '--context', CONTEXT_ADMIN, '--kubeconfig', api.kubeconfigPath]);
  assert.equal(r.code, 0, r.stderr);
  const facts = JSON.parse(r.stdout) as {
    name: string;
    windowsNodes: { name: string; build: string; taints: { key: string; value?: string; effect: string }[] }[];
  };
  assert.equal(facts.name, CONTEXT_ADMIN);
  for (const name of [WIN1, WIN2]) {
    const n = facts.windowsNodes.find((x) => x.name === name);
    assert.ok(n, `${name} in ${JSON.stringify(facts.windowsNodes.map((x) => x.name))}`);
    assert.equal(n.build, '10.0.20348');
    assert.deepEqual(n.taints[0], { key: 'os', value: 'Windows', effect: 'NoSchedule' });
  }
});

test('a user who may read some kinds of one namespace: the refused lists are named (403 from RBAC), the rest is checked', async () => {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const rules = [
    { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list'] },
    { apiGroups: ['apps'], resources: ['deployments', 'replicasets', 'statefulsets'], verbs: ['get', 'list'] },
    { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: ['get', 'list'] },
  ];
  expectStatus(
    await api.request(`${rbac}/namespaces/${NS}/roles`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'kw-workload-reader', namespace: NS },
        rules,
      },
    }),
    [201],
    'Role',
  );
  expectStatus(
    await api.request(`${rbac}/namespaces/${NS}/rolebindings`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'kw-workload-reader', namespace: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kw-workload-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'kube-windows-restricted' }],
      },
    }),
    [201],
    'RoleBinding',
  );
  // RBAC answers from an informer: give it a moment to see the binding.
  let r = await runCli([
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
  for (let i = 0; i < 50 && /Deployments not read/.test(r.stderr); i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await runCli([
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
  }
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as {
    objects: { kind: string; name: string }[];
    unread: { what: string; message: string }[];
  };
  assert.deepEqual(out.unread.map((u) => u.what).sort(), [
    'CSIDrivers',
    'CSINodes',
    'DaemonSets',
    'Namespaces',
    'PersistentVolumeClaims',
    'PersistentVolumes',
    'RuntimeClasses',
    'StorageClasses',
    'Windows nodes',
  ]);
  const ds = out.unread.find((u) => u.what === 'DaemonSets');
  assert.match(
    ds?.message ?? '',
    new RegExp(
      `You are not allowed to list daemonsets\\.apps in namespace "${NS}" on cluster "${CONTEXT_RESTRICTED}" \\(403 Forbidden\\)`,
    ),
  );
  assert.match(
    out.unread.find((u) => u.what === 'Windows nodes')?.message ?? '',
    /list nodes cluster-wide.*\(403 Forbidden\)/,
  );
  assert.deepEqual(
    r.stderr
      .trim()
      .split('\n')
      .map((l) => l.replace(/ not read: .*/, '')),
    [
      'kube-windows: DaemonSets',
      'kube-windows: Windows nodes',
      'kube-windows: RuntimeClasses',
      'kube-windows: Namespaces',
      'kube-windows: PersistentVolumeClaims',
      'kube-windows: PersistentVolumes',
      'kube-windows: StorageClasses',
      'kube-windows: CSINodes',
      'kube-windows: CSIDrivers',
    ],
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.ok(
    out.objects.some((o) => o.kind === 'Deployment' && o.name === 'iis'),
    JSON.stringify(out.objects),
  );
});

test('the Windows workload problems view on a real API server: objects by kind, the refused kinds named, live YAML without managedFields, findings at their ranges', async () => {
  const tree = new ProblemsTree({ locate: { explicit: api.kubeconfigPath } });
  tree.setScope({ context: CONTEXT_ADMIN, namespace: NS });
  const roots = await tree.children();
  assert.deepEqual(
    roots.map((n) => n.label),
    [`Deployment ${NS}/iis`, `Pod ${NS}/api-0`, `Pod ${NS}/report-0`],
  );
  const doc = await tree.document({ kind: 'Deployment', namespace: NS, name: 'iis' });
  assert.ok(doc);
  // The real server writes managedFields on every object: the document leaves them out.
  assert.doesNotMatch(doc.text, /^\s*managedFields:/m);
  const privileged = doc.findings.find((f) => f.path === 'spec.template.spec.containers[0].securityContext.privileged');
  assert.ok(privileged, JSON.stringify(doc.findings.map((f) => f.path)));
  assert.equal(doc.text.split('\n')[privileged.range.start.line].trim(), 'privileged: true');
  const pod = await tree.document({ kind: 'Pod', namespace: NS, name: 'api-0' });
  const winf = pod?.findings.find((f) => f.ruleId === 'WINF001');
  assert.ok(pod && winf);
  assert.match(
    pod.text.split('\n')[winf.range.start.line],
    /^\s+(- )?image: mcr\.microsoft\.com\/windows\/servercore:ltsc2019$/,
  );
  // The restricted user of the previous test: what RBAC refuses is a line each, the Deployment still shown.
  tree.setScope({ context: CONTEXT_RESTRICTED, namespace: NS });
  const restricted = await tree.children();
  assert.deepEqual(
    restricted.filter((n) => n.label.endsWith(' not read')).map((n) => n.label),
    [
      'DaemonSets not read',
      'Windows nodes not read',
      'RuntimeClasses not read',
      'Namespaces not read',
      'PersistentVolumeClaims not read',
      'PersistentVolumes not read',
      'StorageClasses not read',
      'CSINodes not read',
      'CSIDrivers not read',
    ],
  );
  assert.ok(restricted.some((n) => n.label === `Deployment ${NS}/iis`));
});
