// WIN063 through `kube-windows check --context` against the API emulator: claims, StorageClasses,
// CSINodes and CSIDrivers read with paged lists, the finding only where no Windows node registered the
// class's driver, `snapshot` carrying the storage facts to `check --snapshot`, and a user who may not
// list CSINodes getting one "not read" line and no guess.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { linuxNode, namespace, windowsNode } from '../support/kube-seed';
import { runCli as run } from '../support/run-cli';

const DRIVER = 'smb.csi.k8s.io';

const csiNode = (name: string, drivers: string[]): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSINode',
  metadata: { name },
  spec: { drivers: drivers.map((d) => ({ name: d, nodeID: name, topologyKeys: null })) },
});

function windowsApp(name: string, claimName: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'web' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          os: { name: 'windows' },
          nodeSelector: { 'kubernetes.io/os': 'windows' },
          tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'app',
              image: 'mcr.microsoft.com/windows/servercore:ltsc2022',
              resources: { limits: { cpu: '1', memory: '1Gi' } },
            },
          ],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
        },
      },
    },
  };
}

function seed(): KubeObject[] {
  return [
    namespace('web'),
    windowsNode('win-1', { build: '10.0.20348' }),
    linuxNode('linux-1'),
    { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'smb' }, provisioner: DRIVER },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'kubernetes.io/azure-disk',
    },
    { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: DRIVER }, spec: { attachRequired: false } },
    csiNode('linux-1', [DRIVER, 'disk.csi.azure.com']),
    csiNode('win-1', ['disk.csi.azure.com']),
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'shares', namespace: 'web' },
      spec: { storageClassName: 'smb', accessModes: ['ReadWriteMany'] },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'disk', namespace: 'web' },
      spec: { accessModes: ['ReadWriteOnce'] },
    },
    windowsApp('files', 'shares'),
    windowsApp('db', 'disk'),
  ];
}

interface LiveJson {
  objects: { kind: string; name: string; findings: { ruleId: string; message: string; path: string }[] }[];
  unread?: { what: string }[];
}

let emu: Emulator;
let dir: string;

before(async () => {
  emu = await startEmulator({
    objects: seed(),
    openshift: false,
    tokens: { 'no-csinodes': { user: 'dev', deny: [{ verb: 'list', resource: 'csinodes' }] } },
  });
  dir = mkdtempSync(join(tmpdir(), 'kw-storage-'));
});
after(async () => {
  await emu.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('check --context: WIN063 on the Windows Deployment whose class driver only the Linux node registered, with paged storage lists', async () => {
  const from = emu.requests.length;
  const r = await run([
    'check',
    '--context',
    'lab',
    '--kubeconfig',
    emu.kubeconfig({ context: 'lab' }),
    '-n',
    'web',
    '--enable',
    'WIN063',
    '--chunk-size',
    '1',
    '--format',
    'json',
  ]);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as LiveJson;
  assert.deepEqual(
    out.objects.map((o) => `${o.kind}/${o.name}: ${o.findings.map((f) => `${f.ruleId} ${f.path}`).join()}`),
    ['Deployment/files: WIN063 spec.template.spec.volumes[0].persistentVolumeClaim.claimName'],
  );
  assert.match(
    out.objects[0].findings[0].message,
    /PersistentVolumeClaim shares uses StorageClass smb, provisioned by CSI driver smb\.csi\.k8s\.io, but no Windows node this pod can run on \(win-1\) lists smb\.csi\.k8s\.io in its CSINode/,
  );
  // Paged (limit=1 here, so every list with two items takes a continue token), never one object by name.
  const reqs = emu.requests.slice(from);
  for (const path of [
    '/api/v1/namespaces/web/persistentvolumeclaims',
    '/api/v1/persistentvolumes',
    '/apis/storage.k8s.io/v1/storageclasses',
    '/apis/storage.k8s.io/v1/csinodes',
    '/apis/storage.k8s.io/v1/csidrivers',
  ]) {
    const pages = reqs.filter((q) => q.path === path);
    assert.ok(
      pages.length > 0 && pages.every((q) => /(^|&)limit=1(&|$)/.test(q.query)),
      `${path}: ${pages.map((q) => q.query).join(' | ')}`,
    );
  }
  assert.ok(reqs.filter((q) => q.path === '/apis/storage.k8s.io/v1/csinodes').some((q) => /continue=/.test(q.query)));
});

test('once the Windows node registers the driver, no finding; snapshot carries the storage facts to check --snapshot', async () => {
  const kubeconfig = emu.kubeconfig({ context: 'lab' });
  const snap = await run(['snapshot', '--context', 'lab', '--kubeconfig', kubeconfig]);
  assert.equal(snap.code, 0, snap.stderr);
  const facts = JSON.parse(snap.stdout) as {
    storage?: { windowsNodes: { name: string; drivers: string[] }[]; csiDrivers: string[] };
  };
  assert.deepEqual(facts.storage?.windowsNodes, [
    { name: 'win-1', build: '10.0.20348', drivers: ['disk.csi.azure.com'] },
  ]);
  assert.deepEqual(facts.storage?.csiDrivers, ['disk.csi.azure.com', DRIVER]);
  const factsFile = join(dir, 'facts.json');
  writeFileSync(factsFile, snap.stdout);
  const manifest = join(dir, 'app.yaml');
  writeFileSync(manifest, [seed()[8], windowsApp('files', 'shares')].map((o) => JSON.stringify(o)).join('\n---\n'));
  const offline = await run(['check', '--snapshot', factsFile, '--enable', 'WIN063', '--format', 'json', manifest]);
  assert.equal(offline.code, 1, offline.stderr);
  assert.match(offline.stdout, /StorageClass smb, provisioned by CSI driver smb\.csi\.k8s\.io/);

  emu.apply(csiNode('win-1', ['disk.csi.azure.com', DRIVER]));
  try {
    const r = await run([
      'check',
      '--context',
      'lab',
      '--kubeconfig',
      kubeconfig,
      '-n',
      'web',
      '--enable',
      'WIN063',
      '--format',
      'json',
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as LiveJson).objects, []);
  } finally {
    emu.apply(csiNode('win-1', ['disk.csi.azure.com']));
  }
});

test('a user who may not list CSINodes: one "not read" line, the rest checked, no WIN063 guessed', async () => {
  const r = await run([
    'check',
    '--context',
    'dev',
    '--kubeconfig',
    emu.kubeconfig({ context: 'dev', token: 'no-csinodes' }),
    '-n',
    'web',
    '--format',
    'json',
  ]);
  assert.match(r.stderr, /^kube-windows: CSINodes not read: You are not allowed to list csinodes.*\(403 Forbidden\)/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  const out = JSON.parse(r.stdout) as LiveJson;
  assert.deepEqual(
    out.unread?.map((u) => u.what),
    ['CSINodes'],
  );
  assert.ok(!out.objects.some((o) => o.findings.some((f) => f.ruleId === 'WIN063')), r.stdout);
});
