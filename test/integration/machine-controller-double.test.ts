// The machine-controller double (test/support/machine-controller-double.ts) is only as useful as it is faithful:
// a MachineSet's status is what the machine-api MachineSet controller writes (replicas, fullyLabeledReplicas,
// readyReplicas from the Machines' Ready nodes, availableReplicas after minReadySeconds, observedGeneration).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, wmcoCsv, WMCO_NAMESPACE } from '../support/kube-seed';
import { CLUSTER, infrastructure, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { startMachineControllerDouble, type MachineControllerDouble } from '../support/machine-controller-double';
import { waitFor } from '../support/tree-view';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { createWindowsMachineSet, prepareWindowsMachineSet } from '../../src/bootstrap/machineset-create';
import { scaleMachineSet } from '../../src/cluster/machinesets';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NS = 'openshift-machine-api';
type Status = Record<string, unknown>;

let emu: Emulator;
let double: MachineControllerDouble;
let tmp: string;

before(async () => {
  emu = await startEmulator({
    objects: [
      namespace(NS),
      namespace(WMCO_NAMESPACE),
      infrastructure('AWS'),
      linuxWorkerMachineSet('AWS'),
      wmcoCsv(),
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
  double = startMachineControllerDouble(emu, { tickMs: 30 });
  tmp = mkdtempSync(join(tmpdir(), 'kw-mcd-'));
});

after(async () => {
  double.stop();
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const statusOf = (name: string): Status => ((emu.get('MachineSet', name, NS) as KubeObject).status ?? {}) as Status;
const pick = (s: Status) => ({
  replicas: s.replicas,
  fullyLabeledReplicas: s.fullyLabeledReplicas,
  readyReplicas: s.readyReplicas,
  availableReplicas: s.availableReplicas,
});

test('a new MachineSet reports its Machines ready and available once their nodes are Ready, as the machine-api does', async () => {
  const load = loadKubeconfig({ explicit: emu.kubeconfig({ context: 'ocp', file: join(tmp, 'kc') }) });
  assert.ok(load.ok);
  const client = new KubeClient(configForContext(load.config, 'ocp'));
  const prepared = await prepareWindowsMachineSet({ kube: client, image: CLUSTER.AWS.windowsImage, replicas: 2 });
  await createWindowsMachineSet(client, prepared.built);
  const name = prepared.built.name;

  // Before any node is Ready: Machines counted, none ready.
  await waitFor('two Machines', () => statusOf(name).replicas === 2, 10_000);
  assert.deepEqual(pick(statusOf(name)), {
    replicas: 2,
    fullyLabeledReplicas: 2,
    readyReplicas: 0,
    availableReplicas: 0,
  });
  assert.equal(statusOf(name).observedGeneration, 1);

  await waitFor('both ready', () => statusOf(name).readyReplicas === 2, 15_000);
  assert.deepEqual(pick(statusOf(name)), {
    replicas: 2,
    fullyLabeledReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
  });

  // A node that stops being Ready is no longer counted.
  const machine = (emu.list('Machine') as KubeObject[]).find(
    (m) => m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === name,
  );
  const nodeName = (machine?.status as { nodeRef?: { name?: string } } | undefined)?.nodeRef?.name;
  assert.ok(nodeName);
  const node = emu.get('Node', nodeName) as KubeObject & { status: { conditions: { type: string }[] } };
  emu.patch('Node', nodeName, undefined, {
    status: {
      conditions: node.status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'Unknown' } : c)),
    },
  });
  await waitFor('one ready', () => statusOf(name).readyReplicas === 1, 10_000);
  assert.equal(statusOf(name).availableReplicas, 1);

  // Scaled to 0: nothing left to count.
  await scaleMachineSet(client, name, 0);
  await waitFor('no replicas', () => statusOf(name).replicas === 0, 10_000);
  assert.deepEqual(pick(statusOf(name)), {
    replicas: 0,
    fullyLabeledReplicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
  });
});

test('availableReplicas waits for minReadySeconds after the node became Ready', async () => {
  const load = loadKubeconfig({ explicit: emu.kubeconfig({ context: 'ocp2', file: join(tmp, 'kc2') }) });
  assert.ok(load.ok);
  const client = new KubeClient(configForContext(load.config, 'ocp2'));
  const prepared = await prepareWindowsMachineSet({
    kube: client,
    image: CLUSTER.AWS.windowsImage,
    name: 'slow-win',
    replicas: 1,
  });
  await createWindowsMachineSet(client, { ...prepared.built, object: withMinReady(prepared.built.object, 3600) });
  await waitFor('ready', () => statusOf('slow-win').readyReplicas === 1, 15_000);
  assert.equal(statusOf('slow-win').availableReplicas, 0, 'Ready for less than minReadySeconds: not available yet');
});

function withMinReady<T>(object: T, seconds: number): T {
  const copy = structuredClone(object) as T & { spec: Record<string, unknown> };
  copy.spec.minReadySeconds = seconds;
  return copy;
}
