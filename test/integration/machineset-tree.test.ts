// The cluster tree's Windows MachineSets group (src/views/cluster-tree.ts) against the API emulator, with the
// machine-controller double playing the machine-api controllers and WMCO: the group beside the Windows
// nodes on OpenShift only, a MachineSet created by the engine appearing through a change of the group
// (its watch; no command refreshes it), its Machines moving to Running with their nodes (the same
// descriptor refilled), a command's refresh changing the MachineSet's own item, ids unique across
// contexts, typed refs, and a 403 as an error item.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { mixedCluster, namespace, wmcoCsv, WMCO_NAMESPACE } from '../support/kube-seed';
import { CLUSTER, infrastructure, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { startMachineControllerDouble, type MachineControllerDouble } from '../support/machine-controller-double';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { ask, byLabel, waitFor } from '../support/tree-view';
import { KubeClient } from '../../src/cluster/kube-client';
import { loadKubeconfig, configForContext } from '../../src/cluster/kubeconfig';
import { createWindowsMachineSet, prepareWindowsMachineSet } from '../../src/bootstrap/machineset-create';
import { scaleMachineSet } from '../../src/cluster/machinesets';

const NS = 'openshift-machine-api';
const secret = (name: string, ns: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns },
  type: 'Opaque',
  data,
});

let emu: Emulator;
let plain: Emulator;
let double: MachineControllerDouble;
let tmp: string;
const trees: ClusterTree[] = [];

before(async () => {
  emu = await startEmulator({
    objects: [
      namespace(NS),
      namespace(WMCO_NAMESPACE, { 'openshift.io/cluster-monitoring': 'true' }),
      infrastructure('AWS'),
      linuxWorkerMachineSet('AWS'),
      wmcoCsv(),
      secret('cloud-private-key', WMCO_NAMESPACE, {
        'private-key.pem': Buffer.from(
          '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
        ).toString('base64'),
      }),
      secret('windows-user-data', NS, { userData: Buffer.from('<powershell></powershell>').toString('base64') }),
    ],
    openshift: true,
    tokens: { 'no-machines': { user: 'viewer', deny: [{ verb: 'list', resource: 'machinesets', namespace: NS }] } },
  });
  plain = await startEmulator({ objects: mixedCluster(), openshift: false });
  double = startMachineControllerDouble(emu, { tickMs: 60 });
  tmp = mkdtempSync(join(tmpdir(), 'kw-ms-tree-'));
});

after(async () => {
  for (const t of trees) t.dispose();
  double.stop();
  await emu.stop();
  await plain.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function tree(kubeconfig: string): ClusterTree {
  const t = new ClusterTree({
    locate: { explicit: kubeconfig },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
  });
  trees.push(t);
  return t;
}

/** The view after a quiet period: a change of an item that was just answered is held for SETTLE_MS. */
const settle = () => new Promise((r) => setTimeout(r, 250));

function kube(kubeconfig: string, context: string): KubeClient {
  const load = loadKubeconfig({ explicit: kubeconfig });
  assert.ok(load.ok);
  return new KubeClient(configForContext(load.config, context));
}

test('OpenShift: "Windows MachineSets" beside the Windows nodes; a MachineSet created appears, its Machines reach Running with their nodes', async () => {
  const kc = emu.kubeconfig({ context: 'ocp', file: join(tmp, 'ocp') });
  const t = tree(kc);
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  const [root] = await ask(t);
  const kids = await ask(t, root);
  assert.deepEqual(
    kids.slice(1).map((k) => k.label),
    [
      'Windows nodes',
      'Windows MachineSets',
      'BYOH instances',
      'Mirror sets',
      'Windows RuntimeClasses',
      'Admission policies',
    ],
  );
  const group = byLabel(kids, 'Windows MachineSets');
  assert.deepEqual(
    [group.id, group.contextValue, group.collapsible],
    ['ctx/ocp/group/machineSets', 'group', 'collapsed'],
  );
  assert.deepEqual(group.ref, { kind: 'group', context: 'ocp', group: 'machineSets' });
  const none = await ask(t, group);
  assert.deepEqual(
    none.map((n) => [n.id, n.label, n.contextValue]),
    [['ctx/ocp/group/machineSets/none', 'No Windows MachineSets', 'info']],
  );
  assert.match(none[0].tooltip, /Create Windows MachineSet…/);
  await settle();

  // The engine creates one (what "Create in <context>" runs); the group's watch brings it, no command pokes the tree.
  const client = kube(kc, 'ocp');
  const prepared = await prepareWindowsMachineSet({ kube: client, image: CLUSTER.AWS.windowsImage, replicas: 2 });
  await createWindowsMachineSet(client, prepared.built);
  const name = prepared.built.name;
  await waitFor('a change of the group', () => changes.includes('ctx/ocp/group/machineSets'));
  assert.ok(
    changes.every((id) => id === 'ctx/ocp/group/machineSets'),
    'a MachineSet the view does not show yet changes the group',
  );
  await settle();
  const sets = await ask(t, group);
  assert.equal(sets.length, 1);
  const [ms] = sets;
  const msId = `ctx/ocp/machineSet/${name}`;
  assert.deepEqual([ms.id, ms.label, ms.contextValue, ms.collapsible], [msId, name, 'machineSet', 'expanded']);
  assert.deepEqual(ms.ref, { kind: 'machineSet', context: 'ocp', machineSet: name });
  // How many are ready by now depends on how far the double got (it moves on its own clock); 2/2 is awaited below.
  assert.match(ms.description ?? '', /^[0-2]\/2 ready · AWS$/);
  const yaml = (await ms.yaml?.()) as { kind?: string; metadata?: { name?: string } };
  assert.deepEqual([yaml.kind, yaml.metadata?.name], ['MachineSet', name]);

  // A command's refresh of a MachineSet the view shows changes that MachineSet's item, the same descriptor refilled.
  await settle();
  changes.length = 0;
  await t.refreshMachineSet('ocp', name);
  assert.deepEqual(changes, [msId], 'a change of the MachineSet item, not of the group');
  assert.equal(t.item(msId), ms, 'the same descriptor, refilled');

  // Machines: asked under the MachineSet; the watches change the group as they move.
  let machines: TreeNode[] = [];
  await waitFor(
    'two Machines Running with nodes',
    async () => {
      await settle();
      await ask(t, group);
      assert.equal(t.item(msId), ms, 'the same descriptor, refilled');
      machines = await ask(t, ms);
      return machines.length === 2 && machines.every((m) => /^Running · node /.test(m.description ?? ''));
    },
    15_000,
  );
  for (const m of machines) {
    assert.equal(m.id, `${msId}/machine/${m.label}`);
    assert.deepEqual(m.ref, { kind: 'machine', context: 'ocp', machineSet: name, machine: m.label });
    assert.equal(m.contextValue, 'machine');
    assert.match(m.label, new RegExp(`^${name}-[0-9a-f]{5}$`));
    assert.match(m.description ?? '', new RegExp(`^Running · node ${m.label} · \\d+s$`));
    assert.equal(m.icon.id, 'vm-running');
    const y = (await m.yaml?.()) as { kind?: string };
    assert.equal(y.kind, 'Machine');
  }
  await waitFor(
    'the MachineSet ready',
    async () => {
      // The double writes readyReplicas as the machine-api MachineSet controller does, from the nodes.
      await settle();
      await ask(t, group);
      return /^2\/2 ready/.test(t.item(msId)?.description ?? '');
    },
    15_000,
  );
  assert.equal(t.item(msId)?.icon.color, 'testing.iconPassed');

  // Scaled to 0 (as the Scale… command does): the Machines go, and the MachineSet says so.
  await scaleMachineSet(client, name, 0);
  await waitFor(
    'no Machines',
    async () => {
      await settle();
      const now = await ask(t, ms);
      return now.length === 1 && now[0].id === `${msId}/none`;
    },
    15_000,
  );
});

test('the same MachineSet name in two contexts gives two ids; a failed Machine shows its error', async () => {
  const client = kube(emu.kubeconfig({ context: 'a', file: join(tmp, 'a') }), 'a');
  const prepared = await prepareWindowsMachineSet({
    kube: client,
    image: 'ami-00000000000000000',
    name: 'refused-win',
    replicas: 1,
  });
  await createWindowsMachineSet(client, prepared.built);
  const ids = new Set<string>();
  for (const context of ['a', 'b']) {
    const t = tree(emu.kubeconfig({ context, file: join(tmp, `two-${context}`) }));
    const [root] = await ask(t);
    const group = byLabel(await ask(t, root), 'Windows MachineSets');
    const ms = byLabel(await ask(t, group), 'refused-win');
    ids.add(ms.id);
    let machines: TreeNode[] = [];
    await waitFor(
      'a failed Machine',
      async () => {
        await settle();
        machines = await ask(t, ms);
        return machines.some((m) => /Failed/.test(m.description ?? ''));
      },
      15_000,
    );
    const [m] = machines;
    assert.match(
      m.description ?? '',
      /^Failed · \d+s · InvalidConfiguration: error launching instance: InvalidAMIID\.NotFound/,
    );
    assert.equal(m.icon.id, 'error');
    assert.match(m.tooltip, /Error: InvalidConfiguration/);
    ids.add(m.id);
  }
  assert.equal(ids.size, 4);
});

test('403 on MachineSets: an error item naming the permission, retried through the group', async () => {
  const t = tree(emu.kubeconfig({ context: 'viewer', token: 'no-machines', file: join(tmp, 'viewer') }));
  const [root] = await ask(t);
  const group = byLabel(await ask(t, root), 'Windows MachineSets');
  const [err] = await ask(t, group);
  assert.equal(err.contextValue, 'error');
  assert.equal(err.id, 'ctx/viewer/group/machineSets/error');
  assert.match(err.label, /^Windows MachineSets: permission denied$/);
  assert.match(err.description ?? '', /not allowed to list machinesets.* in namespace "openshift-machine-api"/);
  assert.ok(!JSON.stringify(err).includes('no-machines'), 'no token in the item');
  const changes: (string | undefined)[] = [];
  t.onDidChange((id) => changes.push(id));
  t.retry(err.id);
  await waitFor('the group change', () => changes.length > 0);
  assert.deepEqual(changes, ['ctx/viewer/group/machineSets']);
});

test('plain Kubernetes: no Windows MachineSets group at all, and no Machine API request', async () => {
  const t = tree(plain.kubeconfig({ context: 'kind', file: join(tmp, 'kind') }));
  const [root] = await ask(t);
  const kids = await ask(t, root);
  assert.match(kids[0].label, /Kubernetes/);
  assert.ok(!kids.some((k) => k.label === 'Windows MachineSets'));
  assert.equal(plain.requests.filter((r) => r.path.includes('machine.openshift.io')).length, 0);
  await t.refreshMachineSet('kind', 'anything');
  assert.equal(
    plain.requests.filter((r) => r.path.includes('machine.openshift.io')).length,
    0,
    'a refresh of a context without the group reads nothing',
  );
});
