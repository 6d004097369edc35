// What VS Code's "Create Windows MachineSet…" reads before its questions and what it offers when it is
// refused, against the API emulator: machineSetSources (platform, region, Linux workers; refused on a
// platform none of the five, without an Infrastructure, without a Linux worker), creationRefusals
// (WMCO missing, cloud-private-key missing, none), and the join command's WMCO setup as a plan of its
// own (wmcoSetupPlan: WMCO installed through the OLM stand-in, cloud-private-key created, never
// overwritten).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, wmcoCsv, WMCO_NAMESPACE } from '../support/kube-seed';
import { CLUSTER, infrastructure, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { attachOlmStandin } from '../support/olm-standin';
import { sshKeyPair } from '../support/ssh-keys';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { creationRefusals, machineSetSources, MachineSetInputError } from '../../src/bootstrap/machineset-create';
import { wmcoSetupPlan } from '../../src/bootstrap/wmco-install';
import { Secret } from '../../src/bootstrap/plan';

const NS = 'openshift-machine-api';

async function cluster(objects: KubeObject[]): Promise<{ emu: Emulator; kube: KubeClient }> {
  const emu = await startEmulator({ objects, openshift: true });
  const load = loadKubeconfig({ explicit: emu.kubeconfig({ context: 'ocp' }) });
  assert.ok(load.ok);
  return { emu, kube: new KubeClient(configForContext(load.config, 'ocp')) };
}

const keySecret = (): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-private-key', namespace: WMCO_NAMESPACE },
    type: 'Opaque',
    data: { 'private-key.pem': 'QUFBQQ==' },
  }) as KubeObject;

test('machineSetSources: the platform, the region of the first Linux worker and the Linux workers by name (Windows and infra ones left out)', async () => {
  const infra = linuxWorkerMachineSet('AWS', { name: 'test-x7k2p-infra-us-east-2a' }) as KubeObject & {
    spec: { template: { metadata: { labels: Record<string, string> } } };
  };
  infra.spec.template.metadata.labels['machine.openshift.io/cluster-api-machine-role'] = 'infra';
  const { emu, kube } = await cluster([
    namespace(NS),
    infrastructure('AWS'),
    linuxWorkerMachineSet('AWS', { name: 'test-x7k2p-worker-us-east-2b' }),
    linuxWorkerMachineSet('AWS'),
    infra,
  ]);
  try {
    assert.deepEqual(await machineSetSources(kube), {
      platform: 'AWS',
      region: 'us-east-2',
      linuxWorkers: [CLUSTER.AWS.linuxName, 'test-x7k2p-worker-us-east-2b'],
      // The name each would give a Windows MachineSet, as the VS Code question shows it (infrastructure name + zone).
      defaultNames: {
        [CLUSTER.AWS.linuxName]: 'test-x7k2p-windows-worker-us-east-2a',
        'test-x7k2p-worker-us-east-2b': 'test-x7k2p-windows-worker-us-east-2b',
      },
    });
  } finally {
    await emu.stop();
  }
});

test('machineSetSources refuses: a platform none of the five, no Infrastructure (not OpenShift), no Linux worker MachineSet', async () => {
  const cases: [KubeObject[], RegExp][] = [
    [
      [namespace(NS), infrastructure('BareMetal'), linuxWorkerMachineSet('AWS')],
      /platform is "BareMetal".*Bring-Your-Own-Host/,
    ],
    [[namespace(NS), linuxWorkerMachineSet('AWS')], /no Infrastructure object .* OpenShift clusters only/],
    [[namespace(NS), infrastructure('Azure')], /no Linux worker MachineSet to start from/],
  ];
  for (const [objects, why] of cases) {
    const { emu, kube } = await cluster(objects);
    try {
      await assert.rejects(
        machineSetSources(kube),
        (err: unknown) => err instanceof MachineSetInputError && err.kind === 'refused' && why.test(err.message),
      );
    } finally {
      await emu.stop();
    }
  }
});

test('creationRefusals: WMCO missing offers its install, then cloud-private-key missing offers the secret, then none', async () => {
  const { emu, kube } = await cluster([namespace(NS), namespace(WMCO_NAMESPACE), infrastructure('AWS')]);
  try {
    const [wmco] = await creationRefusals(kube);
    assert.equal(wmco?.offer, 'install-wmco');
    assert.match(wmco?.message ?? '', /WMCO is not installed in namespace openshift-windows-machine-config-operator/);
    emu.apply(wmcoCsv());
    const [key] = await creationRefusals(kube);
    assert.equal(key?.offer, 'create-key-secret');
    assert.match(
      key?.message ?? '',
      /Secret cloud-private-key is missing .* oc create secret generic cloud-private-key/,
    );
    emu.apply(keySecret());
    assert.deepEqual(await creationRefusals(kube), []);
  } finally {
    await emu.stop();
  }
});

test('wmcoSetupPlan: installs WMCO (OLM stand-in) and creates cloud-private-key from a key; run again, both steps are skipped', async () => {
  const { emu, kube } = await cluster([namespace('openshift-marketplace'), infrastructure('AWS')]);
  const olm = attachOlmStandin(emu, { stepMs: 20 });
  try {
    const pem = sshKeyPair().private;
    const setup = () =>
      wmcoSetupPlan({
        kube,
        installWmco: { approval: 'Automatic' },
        privateKey: { pem: new Secret(pem), source: '/keys/wmco' },
        pollMs: 20,
      });
    const plan = setup();
    assert.deepEqual(
      plan.steps.map((s) => s.id),
      ['wmco-namespace', 'wmco-operatorgroup', 'wmco-subscription', 'wmco-csv', 'cloud-private-key'],
    );
    const first = await plan.run();
    assert.equal(first.outcome, 'done', JSON.stringify(first.error));
    assert.deepEqual(await creationRefusals(kube), [], 'nothing refuses a Windows MachineSet any more');
    const secret = emu.get('Secret', 'cloud-private-key', WMCO_NAMESPACE) as unknown as {
      data: Record<string, string>;
    };
    assert.equal(Buffer.from(secret.data['private-key.pem'] as string, 'base64').toString('utf8'), pem);
    const second = await setup().run();
    assert.deepEqual(
      second.steps.map((s) => s.outcome),
      ['skipped', 'skipped', 'skipped', 'skipped', 'skipped'],
    );
  } finally {
    olm.stop();
    await emu.stop();
  }
});
