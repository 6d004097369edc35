// The Clusters view never contradicts itself after the cluster changed under it: what a join, a removal,
// a MachineSet, a BYOH entry, a mirror set, a RuntimeClass or a WMCO install changes reaches every row that
// shows or counts it, because the tree watches what it shows; no command pokes the tree here. What the
// user sees is followed as VS Code does (test/support/shown-tree.ts) and checked by assertSummariesMatchRows
// after each change. Against the API emulator, with the machine-controller double on OpenShift.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import {
  idms,
  linuxNode,
  namespace,
  runtimeClass,
  windowsInstancesConfigMap,
  windowsNode,
  wmcoCsv,
  WMCO_NAMESPACE,
} from '../support/kube-seed';
import { CLUSTER, infrastructure, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { startMachineControllerDouble, type MachineControllerDouble } from '../support/machine-controller-double';
import { assertSummariesMatchRows, ShownTree, type ShownRow } from '../support/shown-tree';
import { ClusterTree } from '../../src/views/cluster-tree';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { createWindowsMachineSet, prepareWindowsMachineSet } from '../../src/bootstrap/machineset-create';
import { scaleMachineSet } from '../../src/cluster/machinesets';

const NS = 'openshift-machine-api';
let kubeadm: Emulator;
let ocp: Emulator;
let double: MachineControllerDouble;
let tmp: string;
const shown: ShownTree[] = [];
const trees: ClusterTree[] = [];

before(async () => {
  kubeadm = await startEmulator({
    objects: [
      namespace('default'),
      namespace('kube-system'),
      linuxNode('control-plane', { role: 'master', address: '10.0.0.10' }),
      windowsNode('win-kadm1', { build: '10.0.20348', address: '10.0.0.21', unmanaged: true }),
    ],
    openshift: false,
  });
  ocp = await startEmulator({
    objects: [
      namespace(NS),
      infrastructure('AWS'),
      linuxNode('master-0', { role: 'master', address: '10.0.12.34' }),
      linuxWorkerMachineSet('AWS'),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'windows-user-data', namespace: NS },
        type: 'Opaque',
        data: { userData: Buffer.from('<powershell></powershell>').toString('base64') },
      } as KubeObject,
    ],
    openshift: true,
  });
  double = startMachineControllerDouble(ocp, { tickMs: 40 });
  tmp = mkdtempSync(join(tmpdir(), 'kw-summaries-'));
});

after(async () => {
  for (const s of shown) s.dispose();
  for (const t of trees) t.dispose();
  double.stop();
  await kubeadm.stop();
  await ocp.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function show(emu: Emulator, context: string): Promise<ShownTree> {
  const t = new ClusterTree({
    locate: { explicit: emu.kubeconfig({ context, file: join(tmp, context) }) },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
  });
  trees.push(t);
  const view = new ShownTree(t);
  shown.push(view);
  await view.open();
  return view;
}

const labels = (row: ShownRow) => (row.children ?? []).map((r) => r.label);
const infoLine = (view: ShownTree, context: string) => view.find([context]).children?.[0]?.label ?? '';

test('kubeadm: a join adds the node and its RuntimeClass to every row that counts them; a removal takes them away', async () => {
  const view = await show(kubeadm, 'kadm');
  await view.expand('kadm', 'Windows RuntimeClasses');
  await view.settle();
  assert.match(infoLine(view, 'kadm'), /· 1 Linux \/ 1 Windows nodes$/);
  assert.deepEqual(labels(view.find(['kadm', 'Windows RuntimeClasses'])), ['No Windows RuntimeClasses']);
  assertSummariesMatchRows(view.roots);

  // What a kubeadm join writes: the Node registers, and the join creates the node's RuntimeClass.
  kubeadm.apply(windowsNode('win-kadm2', { build: '10.0.20348', address: '10.0.0.22', unmanaged: true }));
  kubeadm.apply(runtimeClass('windows-2022', '10.0.20348'));
  await view.until('the new node and RuntimeClass', () =>
    labels(view.find(['kadm', 'Windows RuntimeClasses'])).includes('windows-2022'),
  );
  await view.settle();
  assert.deepEqual(labels(view.find(['kadm', 'Windows nodes'])), ['win-kadm1', 'win-kadm2']);
  assert.match(infoLine(view, 'kadm'), /· 1 Linux \/ 2 Windows nodes$/);
  assertSummariesMatchRows(view.roots);

  // Cordoned, then removed (what Remove node… ends with).
  kubeadm.patch('Node', 'win-kadm2', undefined, { spec: { unschedulable: true } });
  await view.until('cordoned', () =>
    /cordoned/.test(view.find(['kadm', 'Windows nodes', 'win-kadm2']).description ?? ''),
  );
  kubeadm.remove('Node', 'win-kadm2');
  kubeadm.remove('RuntimeClass', 'windows-2022');
  await view.until('the node gone', () => labels(view.find(['kadm', 'Windows nodes'])).length === 1);
  await view.settle();
  assert.match(infoLine(view, 'kadm'), /· 1 Linux \/ 1 Windows nodes$/);
  assert.deepEqual(labels(view.find(['kadm', 'Windows RuntimeClasses'])), ['No Windows RuntimeClasses']);
  assertSummariesMatchRows(view.roots);
});

test('OpenShift: WMCO installed, a MachineSet made and scaled, a BYOH entry and a mirror set: every summary follows', async () => {
  const view = await show(ocp, 'ocp');
  for (const group of ['Windows MachineSets', 'BYOH instances', 'Mirror sets']) await view.expand('ocp', group);
  await view.settle();
  assert.match(infoLine(view, 'ocp'), / · OpenShift · no WMCO · 1 Linux \/ 0 Windows nodes$/);
  assert.deepEqual(labels(view.find(['ocp', 'Windows nodes'])), ['No Windows nodes']);
  assertSummariesMatchRows(view.roots);

  // WMCO installed (what "Install WMCO…" leads to: its namespace, then OLM's CSV going to Succeeded).
  ocp.apply(namespace(WMCO_NAMESPACE));
  ocp.apply(wmcoCsv('Installing', '10.18.0'));
  await view.until('WMCO installing', () => /WMCO 10\.18\.0 Installing/.test(infoLine(view, 'ocp')));
  ocp.apply(wmcoCsv('Succeeded', '10.18.0'));
  await view.until('WMCO succeeded', () => /WMCO 10\.18\.0 Succeeded/.test(infoLine(view, 'ocp')));

  // A MachineSet of one, created as the command does; nothing refreshes the tree but its watches.
  const load = loadKubeconfig({ explicit: join(tmp, 'ocp') });
  assert.ok(load.ok);
  const client = new KubeClient(configForContext(load.config, 'ocp'));
  const prepared = await prepareWindowsMachineSet({ kube: client, image: CLUSTER.AWS.windowsImage, replicas: 1 });
  await createWindowsMachineSet(client, prepared.built);
  const name = prepared.built.name;
  await view.until(
    'the MachineSet 1/1 ready',
    () => /^1\/1 ready/.test(view.find(['ocp', 'Windows MachineSets', name]).description ?? ''),
    20_000,
  );
  await view.settle();
  assert.match(infoLine(view, 'ocp'), /· 1 Linux \/ 1 Windows nodes$/);
  const [machine] = labels(view.find(['ocp', 'Windows MachineSets', name]));
  assert.match(view.find(['ocp', 'Windows MachineSets', name, machine!]).description ?? '', /^Running · node /);
  assertSummariesMatchRows(view.roots);

  // Scaled to 2, then back to 0.
  await scaleMachineSet(client, name, 2);
  await view.until(
    '2/2 ready',
    () => /^2\/2 ready/.test(view.find(['ocp', 'Windows MachineSets', name]).description ?? ''),
    20_000,
  );
  await view.settle();
  assert.match(infoLine(view, 'ocp'), /· 1 Linux \/ 2 Windows nodes$/);
  assertSummariesMatchRows(view.roots);
  await scaleMachineSet(client, name, 0);
  await view.until(
    'no Machines',
    () => labels(view.find(['ocp', 'Windows MachineSets', name])).join() === 'No Machines',
    20_000,
  );
  await view.settle();
  assert.match(view.find(['ocp', 'Windows MachineSets', name]).description ?? '', /^0\/0 ready/);
  assert.match(infoLine(view, 'ocp'), /· 1 Linux \/ 0 Windows nodes$/);
  assertSummariesMatchRows(view.roots);

  // A BYOH entry (what a BYOH join writes first), then its node.
  assert.deepEqual(labels(view.find(['ocp', 'BYOH instances'])), ['No windows-instances ConfigMap']);
  ocp.apply(windowsInstancesConfigMap({ '10.0.140.12': 'Administrator' }));
  await view.until('the entry', () => labels(view.find(['ocp', 'BYOH instances'])).includes('10.0.140.12'));
  assert.equal(view.find(['ocp', 'BYOH instances', '10.0.140.12']).description, 'not joined');
  ocp.apply(windowsNode('byoh-1', { build: '10.0.20348', byoh: true, address: '10.0.140.12' }));
  await view.until(
    'joined',
    () => view.find(['ocp', 'BYOH instances', '10.0.140.12']).description === 'joined as byoh-1',
  );
  await view.settle();
  assertSummariesMatchRows(view.roots);

  // A mirror set applied.
  assert.deepEqual(labels(view.find(['ocp', 'Mirror sets'])), ['No mirror sets']);
  ocp.apply(idms('windows-mirrors', [{ source: 'mcr.microsoft.com/windows', mirrors: ['mirror.example:5000/w'] }]));
  await view.until('the mirror set', () => labels(view.find(['ocp', 'Mirror sets'])).join() === 'windows-mirrors');
  await view.settle();
  assertSummariesMatchRows(view.roots);
});

test('assertSummariesMatchRows fails on a view that contradicts itself', () => {
  const cluster = (info: string, nodes: string[], extra: ShownRow[] = []): ShownRow[] => [
    {
      label: 'c',
      children: [
        { label: info },
        {
          label: 'Windows nodes',
          children: nodes.map((n) => ({ label: n, description: 'Windows Server 2022 · Ready' })),
        },
        ...extra,
      ],
    },
  ];
  assertSummariesMatchRows(cluster('v1.31.3 · Kubernetes · no WMCO · 1 Linux / 2 Windows nodes', ['a', 'b']));
  assert.throws(
    () => assertSummariesMatchRows(cluster('v1.31.3 · Kubernetes · no WMCO · 1 Linux / 3 Windows nodes', ['a', 'b'])),
    /says 3 Windows nodes, 2 are listed/,
  );
  assert.throws(
    () =>
      assertSummariesMatchRows(
        cluster(
          'x · 1 Linux / 1 Windows nodes',
          ['a'],
          [{ label: 'Windows RuntimeClasses', children: [{ label: 'No Windows RuntimeClasses' }, { label: 'win' }] }],
        ),
      ),
    /"No Windows RuntimeClasses" beside win/,
  );
  const machineSet = (description: string): ShownRow => ({
    label: 'Windows MachineSets',
    children: [
      {
        label: 'ms',
        description,
        children: [{ label: 'ms-abcde', description: 'Running · node a · 1m' }],
      },
    ],
  });
  assertSummariesMatchRows(cluster('x · 1 Linux / 1 Windows nodes', ['a'], [machineSet('1/1 ready · AWS')]));
  assert.throws(
    () => assertSummariesMatchRows(cluster('x · 1 Linux / 1 Windows nodes', ['a'], [machineSet('0/1 ready · AWS')])),
    /says 0 ready, 1 of its Machines have a Ready node listed/,
  );
  assert.throws(
    () =>
      assertSummariesMatchRows(
        cluster(
          'x · 1 Linux / 1 Windows nodes',
          ['a'],
          [{ label: 'BYOH instances', children: [{ label: '10.0.0.9', description: 'joined as gone' }] }],
        ),
      ),
    /joined as gone, which is not among the Windows nodes listed/,
  );
});
