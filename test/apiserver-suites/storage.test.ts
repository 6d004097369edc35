// WIN063 through `kube-windows check --context` against a real kube-apiserver: a StorageClass of a
// CSI driver, a PersistentVolumeClaim of it, Windows and Linux Nodes, their CSINode objects and a
// Windows Deployment mounting the claim. There is no kubelet here to register drivers, so the CSINode
// objects are written the way the kubelet writes them (SIMULATED KUBELET REGISTRATION: the name of
// its Node, an ownerReference to that Node, spec.drivers with nodeID). The real server validates
// all of these; its CSINode validation asks for driver names and nodeIDs, not for an ownerReference
// or a Node of that name (the last test shows it).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { linuxNode, windowsNode } from '../support/kube-seed';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  ensureNamespace,
  expectStatus,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const NS = uniqueName('kw-csi');
const WIN = uniqueName('kw-csi-win');
const LINUX = uniqueName('kw-csi-linux');
const CLASS = uniqueName('kw-csi-smb');
// A driver name of this file's own: other suites' nodes on the shared server never register it.
const DRIVER = `${uniqueName('smb')}.csi.example.com`;
let api: RealApiServer;
const nodeUid = new Map<string, string>();

/** SIMULATED KUBELET REGISTRATION: the CSINode a kubelet keeps for its node, with the drivers registered. */
async function registerDrivers(node: string, drivers: string[]): Promise<void> {
  const path = `/apis/storage.k8s.io/v1/csinodes/${node}`;
  const body = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: node, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeUid.get(node) }] },
    spec: { drivers: drivers.map((name) => ({ name, nodeID: node, topologyKeys: null })) },
  };
  const existing = await api.request<{ metadata: { resourceVersion: string } }>(path);
  if (existing.status === 404) {
    expectStatus(await api.request('/apis/storage.k8s.io/v1/csinodes', { body }), [201], `creating CSINode ${node}`);
    return;
  }
  const current = expectStatus(existing, [200], `reading CSINode ${node}`);
  expectStatus(
    await api.request(path, {
      method: 'PUT',
      body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata.resourceVersion } },
    }),
    [200],
    `updating CSINode ${node}`,
  );
}

before(async () => {
  api = await useApiServer();
  await ensureNamespace(api, NS);
  const nodes = await seed(api, [
    windowsNode(WIN, { build: '10.0.20348' }) as SeedObject,
    linuxNode(LINUX) as SeedObject,
  ]);
  for (const n of nodes) {
    const meta = n.metadata as { name: string; uid: string };
    nodeUid.set(meta.name, meta.uid);
  }
  await seed(api, [
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: CLASS },
      provisioner: DRIVER,
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'shares', namespace: NS },
      spec: { storageClassName: CLASS, accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'files', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'files' } },
        template: {
          metadata: { labels: { app: 'files' } },
          spec: {
            os: { name: 'windows' },
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
            containers: [
              {
                name: 'app',
                image: 'mcr.microsoft.com/windows/servercore:ltsc2022',
                volumeMounts: [{ name: 'data', mountPath: 'C:\\data' }],
              },
            ],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'shares' } }],
          },
        },
      },
    },
  ]);
  await registerDrivers(LINUX, [DRIVER]);
  await registerDrivers(WIN, []);
});

after(async () => {
  for (const n of [WIN, LINUX]) {
    await api?.request(`/apis/storage.k8s.io/v1/csinodes/${n}`, { method: 'DELETE' });
    await api?.request(`/api/v1/nodes/${n}`, { method: 'DELETE' });
  }
  await api?.request(`/apis/storage.k8s.io/v1/storageclasses/${CLASS}`, { method: 'DELETE' });
  await api?.request(`/api/v1/namespaces/${NS}`, { method: 'DELETE' });
  await api?.stop();
});

interface LiveJson {
  objects: { kind: string; name: string; findings: { ruleId: string; message: string; path: string }[] }[];
  unread?: unknown;
}

const check = () =>
  runCli([
    'check',
    '--context',
    CONTEXT_ADMIN,
    '--kubeconfig',
    api.kubeconfigPath,
    '-n',
    NS,
    '--enable',
    'WIN063',
    '--format',
    'json',
    '--chunk-size',
    '1',
  ]);

test('check --context: WIN063 when only the Linux node registered the class driver; none once the Windows node has', async () => {
  const r = await check();
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, '');
  const out = JSON.parse(r.stdout) as LiveJson;
  assert.equal(out.unread, undefined);
  assert.deepEqual(
    out.objects.map((o) => `${o.kind}/${o.name}`),
    ['Deployment/files'],
  );
  const [f] = out.objects[0].findings;
  assert.equal(f.ruleId, 'WIN063');
  assert.equal(f.path, 'spec.template.spec.volumes[0].persistentVolumeClaim.claimName');
  assert.ok(
    f.message.includes(`PersistentVolumeClaim shares uses StorageClass ${CLASS}, provisioned by CSI driver ${DRIVER}`),
    f.message,
  );
  // Other suites' Windows nodes may share the server: ours is among the nodes named, none has the driver.
  const named = new RegExp(`can run on \\(([^)]*)\\) lists ${DRIVER.replace(/\./g, '\\.')} in its CSINode`).exec(
    f.message,
  );
  assert.ok(named?.[1].split(', ').includes(WIN), f.message);

  await registerDrivers(WIN, [DRIVER]);
  const fixed = await check();
  assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
  assert.deepEqual((JSON.parse(fixed.stdout) as LiveJson).objects, []);
});

test('the real server accepts a CSINode without an ownerReference and without a Node of its name (the rule trusts names, not owners)', async () => {
  const name = uniqueName('kw-csi-orphan');
  const body = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name },
    spec: { drivers: [{ name: DRIVER, nodeID: name }] },
  };
  expectStatus(await api.request('/apis/storage.k8s.io/v1/csinodes', { body }), [201], 'creating an orphan CSINode');
  const noNodeId = { ...body, metadata: { name: `${name}-x` }, spec: { drivers: [{ name: DRIVER }] } };
  const refused = await api.request('/apis/storage.k8s.io/v1/csinodes', { body: noNodeId });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  await api.request(`/apis/storage.k8s.io/v1/csinodes/${name}`, { method: 'DELETE' });
});
