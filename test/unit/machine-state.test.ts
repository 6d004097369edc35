// What a Windows Machine's state means and why it stalls (core/openshift/machine-state), without a network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  age,
  machineFailed,
  machineSetView,
  machineView,
  nextStage,
  stageReached,
  stallReasons,
  type EventFacts,
  type NodeFacts,
} from '../../src/core/openshift/machine-state';
import type { MachineApiObject } from '../../src/core/openshift/windows-machineset';

const machine = (status: Record<string, unknown>, userData = 'windows-user-data'): MachineApiObject => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: {
    name: 'winworker-x7k2p',
    namespace: 'openshift-machine-api',
    labels: { 'machine.openshift.io/cluster-api-machineset': 'winworker' },
    creationTimestamp: '2026-11-20T08:00:00Z',
  },
  spec: { providerSpec: { value: { userDataSecret: { name: userData } } } },
  status,
});
const node = (annotations: Record<string, string>, ready: boolean): NodeFacts => ({
  metadata: { name: 'winworker-x7k2p', annotations },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'KubeletReady' : 'KubeletNotReady',
        message: ready ? 'kubelet is posting ready status' : 'container runtime network not ready',
      },
    ],
  },
});
const V = 'windowsmachineconfig.openshift.io/version';
const D = 'windowsmachineconfig.openshift.io/desired-version';

test('stages in order: Provisioning, Provisioned, Running, node registered, WMCO configured, node Ready', () => {
  assert.equal(nextStage(machine({}), undefined), 'provisioned');
  assert.equal(nextStage(machine({ phase: 'Provisioning' }), undefined), 'provisioned');
  assert.equal(nextStage(machine({ phase: 'Provisioned' }), undefined), 'running');
  const running = machine({ phase: 'Running', nodeRef: { kind: 'Node', name: 'winworker-x7k2p' } });
  assert.equal(nextStage(running, undefined), 'node', 'nodeRef without the Node: not registered');
  assert.equal(nextStage(running, node({ [D]: '10.18.0' }, false)), 'configured');
  assert.equal(
    nextStage(running, node({ [D]: '10.18.0', [V]: '10.17.0' }, true)),
    'configured',
    'an older version than desired is not configured yet',
  );
  assert.equal(nextStage(running, node({ [D]: '10.18.0', [V]: '10.18.0' }, false)), 'ready');
  assert.equal(nextStage(running, node({ [D]: '10.18.0', [V]: '10.18.0' }, true)), undefined);
  // The node registers a moment before the machine controller sets Running: Running counts as reached.
  assert.equal(
    stageReached('running', machine({ phase: 'Provisioned', nodeRef: { name: 'winworker-x7k2p' } }), node({}, false)),
    true,
  );
});

test("a failed Machine: the cloud refused the image, said with the machine controller's own words", () => {
  const m = machine({
    phase: 'Failed',
    errorReason: 'InvalidConfiguration',
    errorMessage:
      "error launching instance: InvalidAMIID.NotFound: The image id '[ami-00000000000000000]' does not exist",
  });
  assert.equal(machineFailed(m), true);
  const [first] = stallReasons({ machine: m, events: [] });
  assert.match(
    first ?? '',
    /The cloud refused to create the VM of Machine winworker-x7k2p \(InvalidConfiguration: error launching instance: InvalidAMIID\.NotFound.*\)\. Check the image of the MachineSet/,
  );
  assert.deepEqual(machineView(m), {
    name: 'winworker-x7k2p',
    machineSet: 'winworker',
    phase: 'Failed',
    created: '2026-11-20T08:00:00Z',
    error:
      "InvalidConfiguration: error launching instance: InvalidAMIID.NotFound: The image id '[ami-00000000000000000]' does not exist",
    deleting: false,
  });
  assert.equal(machineFailed(machine({ phase: 'Provisioned' })), false);
});

test('stalls: the Linux user data, a missing windows-user-data, warning events (machine and WMCO), and where to look otherwise', () => {
  const linux = stallReasons({ machine: machine({ phase: 'Provisioned' }, 'worker-user-data'), events: [] });
  assert.match(
    linux[0] ?? '',
    /boots with the Linux user data \(worker-user-data\): the VM never becomes a node\. Set userDataSecret\.name to windows-user-data/,
  );
  const missing = stallReasons({ machine: machine({ phase: 'Provisioned' }), events: [], userDataSecret: false });
  assert.match(missing[0] ?? '', /Secret windows-user-data is missing in openshift-machine-api: WMCO writes it/);
  const events: EventFacts[] = [
    {
      type: 'Normal',
      reason: 'Created',
      message: 'Created Machine winworker-x7k2p',
      lastTimestamp: '2026-11-20T08:01:00Z',
    },
    {
      type: 'Warning',
      reason: 'MachineSetupFailure',
      message: 'failed to configure instance i-0abc: unable to connect to Windows VM: ssh: handshake failed',
      count: 4,
      lastTimestamp: '2026-11-20T08:20:00Z',
    },
  ];
  const wmco: EventFacts[] = [{ type: 'Warning', reason: 'OperatorConditionError', message: 'unrelated' }];
  const withEvents = stallReasons({
    machine: machine({ phase: 'Provisioned' }),
    events,
    wmcoEvents: wmco,
    userDataSecret: true,
  });
  assert.deepEqual(withEvents, [
    'Event on Machine winworker-x7k2p: MachineSetupFailure: failed to configure instance i-0abc: unable to connect to Windows VM: ssh: handshake failed (×4)',
  ]);
  const plain = stallReasons({ machine: machine({ phase: 'Provisioned' }), events: [], userDataSecret: true });
  assert.match(
    plain[0] ?? '',
    /exists but has not become a node: WMCO connects to it over SSH .* oc logs -n openshift-windows-machine-config-operator deployment\/windows-machine-config-operator \| grep winworker-x7k2p/,
  );
  const notReady = stallReasons({
    machine: machine({ phase: 'Running', nodeRef: { name: 'winworker-x7k2p' } }),
    node: node({ [V]: '1', [D]: '1' }, false),
    events: [],
  });
  assert.match(
    notReady[0] ?? '',
    /configured but not Ready: KubeletNotReady \(container runtime network not ready\)\. Check the node's services: kube-windows nodes services winworker-x7k2p/,
  );
});

test('age as kubectl shows it', () => {
  const t0 = Date.parse('2026-11-20T08:00:00Z');
  assert.equal(age('2026-11-20T08:00:00Z', t0 + 59_000), '59s');
  assert.equal(age('2026-11-20T08:00:00Z', t0 + 600_000), '10m');
  assert.equal(age('2026-11-20T08:00:00Z', t0 + 5 * 3600_000), '5h');
  assert.equal(age('2026-11-20T08:00:00Z', t0 + 3 * 86400_000), '3d');
  assert.equal(age(undefined, t0), '');
});

test('machineSetView: desired (1 when unset), ready and available (0 when unset), the platform from the provider spec, deleting', () => {
  const ms = (spec: Record<string, unknown>, status?: Record<string, unknown>, deleting = false): MachineApiObject => ({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'winworker', ...(deleting ? { deletionTimestamp: '2026-11-20T08:00:00Z' } : {}) },
    spec,
    ...(status ? { status } : {}),
  });
  const azure = {
    template: {
      spec: {
        providerSpec: { value: { apiVersion: 'machine.openshift.io/v1beta1', kind: 'AzureMachineProviderSpec' } },
      },
    },
  };
  assert.deepEqual(machineSetView(ms({ replicas: 3, ...azure }, { readyReplicas: 2, availableReplicas: 1 })), {
    name: 'winworker',
    desired: 3,
    ready: 2,
    available: 1,
    platform: 'Azure',
    deleting: false,
  });
  assert.deepEqual(machineSetView(ms({}, undefined, true)), {
    name: 'winworker',
    desired: 1,
    ready: 0,
    available: 0,
    deleting: true,
  });
  assert.equal(machineSetView(ms({ replicas: 0 })).desired, 0);
});
