import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLive, type LiveState } from '../../src/core/live/check';
import { readSnapshotText } from '../../src/core/live/snapshot-file';
import { storageFactsOf } from '../../src/core/live/storage';
import { checkObject, gatherObjectFacts } from '../../src/core/rules/checker';
import type { ClusterSnapshot, StorageFacts } from '../../src/core/rules/facts';
import { csiDriverOf } from '../../src/core/rules/families/storage';
import { only } from '../support/check';

const storage = (over: Partial<StorageFacts> = {}): StorageFacts => ({
  storageClasses: [
    { name: 'managed-csi', provisioner: 'disk.csi.azure.com', isDefault: true },
    { name: 'legacy', provisioner: 'kubernetes.io/azure-disk', isDefault: false },
    { name: 'local', provisioner: 'kubernetes.io/no-provisioner', isDefault: false },
    { name: 'nfs', provisioner: 'cluster.local/nfs-subdir-external-provisioner', isDefault: false },
    { name: 'smb', provisioner: 'smb.csi.k8s.io', isDefault: false },
  ],
  csiDrivers: ['disk.csi.azure.com', 'smb.csi.k8s.io'],
  windowsNodes: [
    { name: 'win-2019', build: '10.0.17763', drivers: [] },
    { name: 'win-2022', build: '10.0.20348', drivers: [] },
  ],
  ...over,
});

const cluster = (s: StorageFacts | undefined): ClusterSnapshot => ({
  name: 'c',
  windowsNodes: [],
  runtimeClasses: [],
  ...(s ? { storage: s } : {}),
});

const claim = (name: string, spec: Record<string, unknown> = {}, namespace = 'apps') => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace },
  spec,
});

function deployment(volumes: unknown[], podSpec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'apps' },
    spec: {
      template: {
        spec: {
          os: { name: 'windows' },
          nodeSelector: { 'kubernetes.io/os': 'windows' },
          containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }],
          volumes,
          ...podSpec,
        },
      },
    },
  };
}

const pvc = (claimName: string) => ({ name: 'data', persistentVolumeClaim: { claimName } });

function win063(object: unknown, facts: unknown[], s: StorageFacts | null = storage()) {
  const c = cluster(s ?? undefined);
  return checkObject(object, { cluster: c, facts: gatherObjectFacts(facts, 'auto', c), only: ['WIN063'] }).findings;
}

test('WIN063: a claim whose class driver no Windows node registered is reported, with driver, class, nodes and the fix', () => {
  const f = win063(deployment([pvc('data')]), [claim('data', { storageClassName: 'smb' })]);
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(f[0].path, 'spec.template.spec.volumes[0].persistentVolumeClaim.claimName');
  for (const part of [
    'PersistentVolumeClaim data',
    'StorageClass smb',
    'CSI driver smb.csi.k8s.io',
    'win-2019, win-2022',
    'CSI Proxy',
    'HostProcess',
    'Windows node DaemonSet',
  ])
    assert.ok(f[0].message.includes(part), `${part} in: ${f[0].message}`);
});

test('WIN063: not reported when one Windows node the pod can land on lists the driver', () => {
  const s = storage({
    windowsNodes: [
      { name: 'win-2019', build: '10.0.17763', drivers: [] },
      { name: 'win-2022', build: '10.0.20348', drivers: ['smb.csi.k8s.io'] },
    ],
  });
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data', { storageClassName: 'smb' })], s), []);
});

test('WIN063: the pinned build narrows the nodes (a driver on another build does not count); spec.nodeName narrows to one node', () => {
  const s = storage({
    windowsNodes: [
      { name: 'win-2019', build: '10.0.17763', drivers: [] },
      { name: 'win-2022', build: '10.0.20348', drivers: ['smb.csi.k8s.io'] },
    ],
  });
  const pinned = deployment([pvc('data')], {
    nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' },
  });
  const f = win063(pinned, [claim('data', { storageClassName: 'smb' })], s);
  assert.equal(f.length, 1);
  assert.ok(f[0].message.includes('(win-2019)'), f[0].message);
  const onNode = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'apps' },
    spec: { ...deployment([pvc('data')]).spec.template.spec, nodeName: 'win-2022' },
  };
  assert.deepEqual(win063(onNode, [claim('data', { storageClassName: 'smb' })], s), []);
});

test('WIN063: default class when the claim names none, in-tree provisioners mapped by CSI migration, bound volumes when the class is empty', () => {
  const noClass = win063(deployment([pvc('data')]), [claim('data')]);
  assert.equal(noClass.length, 1);
  assert.ok(noClass[0].message.includes('the default StorageClass managed-csi'), noClass[0].message);
  const legacy = win063(deployment([pvc('data')]), [claim('data', { storageClassName: 'legacy' })]);
  assert.equal(legacy.length, 1);
  assert.ok(
    legacy[0].message.includes('in-tree kubernetes.io/azure-disk, which CSI migration hands to disk.csi.azure.com'),
    legacy[0].message,
  );
  const pv = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-1' },
    spec: { csi: { driver: 'file.csi.azure.com', volumeHandle: 'h' } },
  };
  const bound = win063(deployment([pvc('data')]), [claim('data', { storageClassName: '', volumeName: 'pv-1' }), pv]);
  assert.equal(bound.length, 1);
  assert.ok(
    bound[0].message.includes('bound to PersistentVolume pv-1, a CSI volume of driver file.csi.azure.com'),
    bound[0].message,
  );
});

test('WIN063: never guesses: no storage facts, unknown claim, unknown class, no-provisioner, non-CSI provisioner, several defaults, Linux pods', () => {
  const claims = [claim('data', { storageClassName: 'smb' })];
  assert.deepEqual(win063(deployment([pvc('data')]), claims, null), []);
  assert.deepEqual(win063(deployment([pvc('other')]), claims), []);
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data', { storageClassName: 'missing' })]), []);
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data', { storageClassName: 'local' })]), []);
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data', { storageClassName: 'nfs' })]), []);
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data', { storageClassName: '' })]), []);
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data', {}, 'elsewhere')]), []);
  const twoDefaults = storage({
    storageClasses: [
      ...storage().storageClasses,
      { name: 'other-default', provisioner: 'smb.csi.k8s.io', isDefault: true },
    ],
  });
  assert.deepEqual(win063(deployment([pvc('data')]), [claim('data')], twoDefaults), []);
  const linux = deployment([pvc('data')], { os: { name: 'linux' }, nodeSelector: { 'kubernetes.io/os': 'linux' } });
  linux.spec.template.spec.containers[0].image = 'nginx';
  assert.deepEqual(win063(linux, claims), []);
  assert.deepEqual(win063(deployment([pvc('data')]), claims, storage({ windowsNodes: [] })), []);
});

test('WIN063: generic ephemeral volumes and StatefulSet claim templates, with their class or the default', () => {
  const eph = win063(
    deployment([{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'smb' } } } }]),
    [],
  );
  assert.equal(eph.length, 1);
  assert.equal(eph[0].path, 'spec.template.spec.volumes[0].ephemeral');
  const sts = { ...deployment([]), kind: 'StatefulSet' } as Record<string, unknown> & { spec: Record<string, unknown> };
  sts.spec.volumeClaimTemplates = [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'] } }];
  const f = win063(sts, []);
  assert.equal(f.length, 1);
  assert.equal(f[0].path, 'spec.volumeClaimTemplates[0]');
  assert.ok(
    f[0].message.includes('claim template www') && f[0].message.includes('default StorageClass managed-csi'),
    f[0].message,
  );
});

test('WIN063 on files: nothing without cluster facts; with a snapshot, claims in the files are resolved against its classes', () => {
  const text = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {storageClassName: smb}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  os: {name: windows}
  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
`;
  assert.deepEqual(only(text, 'WIN063'), []);
  const c = cluster(storage());
  const f = only(text, 'WIN063', { cluster: c });
  assert.equal(f.length, 1);
  assert.ok(f[0].message.includes('smb.csi.k8s.io'));
});

test('csiDriverOf: the five migrated in-tree provisioners and Cinder map to their CSI drivers; other kubernetes.io ones and unknown names are not CSI', () => {
  const s = storage();
  assert.equal(csiDriverOf('kubernetes.io/azure-disk', s), 'disk.csi.azure.com');
  assert.equal(csiDriverOf('kubernetes.io/azure-file', s), 'file.csi.azure.com');
  assert.equal(csiDriverOf('kubernetes.io/aws-ebs', s), 'ebs.csi.aws.com');
  assert.equal(csiDriverOf('kubernetes.io/gce-pd', s), 'pd.csi.storage.gke.io');
  assert.equal(csiDriverOf('kubernetes.io/vsphere-volume', s), 'csi.vsphere.vmware.com');
  assert.equal(csiDriverOf('kubernetes.io/cinder', s), 'cinder.csi.openstack.org');
  assert.equal(csiDriverOf('kubernetes.io/no-provisioner', s), undefined);
  assert.equal(csiDriverOf('kubernetes.io/rbd', s), undefined);
  assert.equal(csiDriverOf('rancher.io/local-path', s), undefined);
  assert.equal(csiDriverOf('smb.csi.k8s.io', s), 'smb.csi.k8s.io');
});

test('storageFactsOf: default annotations, CSINode drivers per Windows node (none without a CSINode), known drivers from CSIDrivers and every CSINode', () => {
  const facts = storageFactsOf({
    storageClasses: [
      {
        metadata: { name: 'a', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: 'x.csi',
      },
      {
        metadata: { name: 'b', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'false' } },
        provisioner: 'y.csi',
      },
      { metadata: { name: 'broken' } },
    ],
    csiNodes: [
      { metadata: { name: 'linux-1' }, spec: { drivers: [{ name: 'x.csi', nodeID: 'l1' }] } },
      { metadata: { name: 'win-1' }, spec: { drivers: [{ name: 'y.csi', nodeID: 'w1' }] } },
    ],
    csiDrivers: [{ metadata: { name: 'z.csi' } }],
    windowsNodes: [
      { metadata: { name: 'win-1', labels: { 'node.kubernetes.io/windows-build': '10.0.20348' } } },
      { metadata: { name: 'win-2' } },
    ],
  });
  assert.deepEqual(facts, {
    storageClasses: [
      { name: 'a', provisioner: 'x.csi', isDefault: true },
      { name: 'b', provisioner: 'y.csi', isDefault: false },
    ],
    csiDrivers: ['x.csi', 'y.csi', 'z.csi'],
    windowsNodes: [
      { name: 'win-1', build: '10.0.20348', drivers: ['y.csi'] },
      { name: 'win-2', drivers: [] },
    ],
  });
});

test('checkLive: claims read from the cluster reach WIN063 through the fact objects', () => {
  const state: LiveState = {
    objects: [deployment([pvc('data')])],
    events: [],
    windowsNodes: [],
    factObjects: [claim('data', { storageClassName: 'smb' })],
    snapshot: cluster(storage()),
  };
  const report = checkLive(state, { check: { only: ['WIN063'] } });
  assert.equal(report.objects.length, 1);
  assert.equal(report.objects[0].findings[0].ruleId, 'WIN063');
  assert.deepEqual(checkLive({ ...state, factObjects: [] }, { check: { only: ['WIN063'] } }).objects, []);
});

test('readSnapshotText checks the storage facts field by field', () => {
  const ok = readSnapshotText(JSON.stringify(cluster(storage())));
  assert.ok(ok.ok);
  const bad = readSnapshotText(
    JSON.stringify({ ...cluster(storage()), storage: { ...storage(), windowsNodes: [{ name: 'w', drivers: 'x' }] } }),
  );
  assert.equal(bad.ok, false);
  assert.ok(!bad.ok && bad.message.includes('storage.windowsNodes[0]'));
});
