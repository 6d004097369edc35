// A test double of what the machine-api controllers and WMCO do to Windows MachineSets, driving the
// API emulator (never the real API server, never shipped): the MachineSet controller keeps as many
// Machines as replicas (named <MachineSet>-<5 characters>, labelled and specified from the template,
// owned by the MachineSet, newest deleted first on scale down) and writes its status as the machine-api
// MachineSet controller does (replicas, fullyLabeledReplicas, readyReplicas from the Machines' nodes,
// availableReplicas after minReadySeconds, observedGeneration); the machine controller moves each
// Machine Provisioning -> Provisioned (InternalIP, providerID, instance state) and fails it
// (errorReason InvalidConfiguration, a FailedCreate event) when the cloud would refuse its image;
// WMCO, for a Provisioned Machine labelled os-id Windows whose user data is windows-user-data and
// while the secret exists, registers a Node (kube-seed's Windows node, with the desired-version
// annotation only), sets nodeRef and phase Running, then the version annotation (configured), then
// Ready, with MachineSetup events. A deleted Machine takes its Node with it. One step per tick.
import { randomBytes } from 'node:crypto';
import type { Emulator, KubeObject } from './kube-api-emulator';
import { windowsNode, DEFAULT_WMCO_VERSION } from './kube-seed';
import { REFUSED_AMI } from './machine-api-seed';

const NS = 'openshift-machine-api';
const SET_LABEL = 'machine.openshift.io/cluster-api-machineset';
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface MachineControllerDoubleOptions {
  /** Time between two steps of every Machine (default 30 ms). */
  tickMs?: number;
  /** WMCO runs and configures Windows Machines (default true). */
  wmco?: boolean;
}

export interface MachineControllerDouble {
  stop(): void;
  /** Every step taken, `<machine>: <what>` (for assertions). */
  log: string[];
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function startMachineControllerDouble(
  emu: Emulator,
  opts: MachineControllerDoubleOptions = {},
): MachineControllerDouble {
  const log: string[] = [];
  const nodes = new Set<string>();
  let events = 0;
  const event = (
    machine: Obj,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    component: string,
  ): void => {
    const t = now();
    emu.apply({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${machine.metadata.name}.${(0x17a2b3c4d5e6f + ++events).toString(16)}`, namespace: NS },
      involvedObject: {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        name: machine.metadata.name,
        namespace: NS,
        uid: machine.metadata.uid,
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: t,
      lastTimestamp: t,
      source: { component },
    });
  };

  const reconcileSets = (): void => {
    for (const ms of emu.list('MachineSet') as Obj[]) {
      const name = ms.metadata.name as string;
      const want = (ms.spec?.replicas as number | undefined) ?? 1;
      const mine = (emu.list('Machine') as Obj[]).filter((m) => m.metadata.labels?.[SET_LABEL] === name);
      for (let i = mine.length; i < want; i++) {
        const machineName = `${name}-${randomBytes(4).toString('hex').slice(0, 5)}`;
        const template = ms.spec.template ?? {};
        emu.apply({
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: {
            name: machineName,
            namespace: NS,
            labels: { ...(template.metadata?.labels ?? {}) },
            ownerReferences: [
              {
                apiVersion: 'machine.openshift.io/v1beta1',
                kind: 'MachineSet',
                name,
                uid: ms.metadata.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: structuredClone(template.spec ?? {}),
          status: { phase: 'Provisioning' },
        });
        log.push(`${machineName}: created`);
      }
      if (mine.length > want) {
        const newestFirst = [...mine].sort(
          (a, b) =>
            String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) ||
            b.metadata.name.localeCompare(a.metadata.name),
        );
        for (const m of newestFirst.slice(0, mine.length - want)) remove(m);
      }
      writeStatus(ms);
    }
  };

  /**
   * The MachineSet's status as the machine-api MachineSet controller computes it: replicas are its Machines,
   * fullyLabeledReplicas those carrying every label of the template, readyReplicas those whose node (nodeRef) is
   * Ready, availableReplicas those Ready for at least spec.minReadySeconds; observedGeneration is the generation
   * acted on. Written only when something changed, as the controller does.
   */
  const writeStatus = (ms: Obj): void => {
    const name = ms.metadata.name as string;
    const mine = (emu.list('Machine') as Obj[]).filter((m) => m.metadata.labels?.[SET_LABEL] === name);
    const templateLabels = Object.entries((ms.spec?.template?.metadata?.labels ?? {}) as Record<string, string>);
    const minReadyMs = ((ms.spec?.minReadySeconds as number | undefined) ?? 0) * 1000;
    let fullyLabeled = 0;
    let ready = 0;
    let available = 0;
    for (const m of mine) {
      if (templateLabels.every(([k, v]) => m.metadata.labels?.[k] === v)) fullyLabeled++;
      const nodeName = m.status?.nodeRef?.name as string | undefined;
      const node = nodeName ? (emu.get('Node', nodeName) as Obj | undefined) : undefined;
      const readyCondition = ((node?.status?.conditions ?? []) as Obj[]).find((c) => c.type === 'Ready');
      if (readyCondition?.status !== 'True') continue;
      ready++;
      const since = Date.parse(String(readyCondition.lastTransitionTime ?? ''));
      if (minReadyMs === 0 || (Number.isFinite(since) && Date.now() - since >= minReadyMs)) available++;
    }
    const selector = Object.entries(ms.spec.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    const status = {
      replicas: mine.length,
      fullyLabeledReplicas: fullyLabeled,
      readyReplicas: ready,
      availableReplicas: available,
      observedGeneration: ms.metadata.generation ?? 1,
      labelSelector: selector,
    };
    const old = (ms.status ?? {}) as Obj;
    if (Object.entries(status).some(([k, v]) => (old[k] ?? 0) !== v)) emu.patch('MachineSet', name, NS, { status });
  };

  const remove = (m: Obj): void => {
    emu.remove('Machine', m.metadata.name, NS);
    const node = m.status?.nodeRef?.name as string | undefined;
    if (node && emu.get('Node', node)) emu.remove('Node', node);
    log.push(`${m.metadata.name}: deleted`);
  };

  const step = (m: Obj): void => {
    const name = m.metadata.name as string;
    const value = m.spec?.providerSpec?.value ?? {};
    const phase = m.status?.phase as string | undefined;
    if (phase === 'Provisioning') {
      if (value.ami?.id === REFUSED_AMI) {
        const message = `error launching instance: InvalidAMIID.NotFound: The image id '[${REFUSED_AMI}]' does not exist`;
        emu.patch('Machine', name, NS, {
          status: { phase: 'Failed', errorReason: 'InvalidConfiguration', errorMessage: message },
        });
        event(m, 'Warning', 'FailedCreate', `CreateError: ${message}`, 'awscontroller');
        log.push(`${name}: failed`);
        return;
      }
      const ip = `10.0.${130 + (parseInt(name.slice(-2), 36) % 60)}.${20 + (parseInt(name.slice(-3, -1), 36) % 200)}`;
      emu.patch('Machine', name, NS, {
        spec: { providerID: `aws:///us-east-2a/i-0${randomBytes(8).toString('hex')}` },
        status: {
          phase: 'Provisioned',
          addresses: [
            { type: 'InternalIP', address: ip },
            { type: 'InternalDNS', address: name },
          ],
          providerStatus: { instanceState: 'running' },
          lastUpdated: now(),
        },
      });
      event(m, 'Normal', 'Created', `Created Machine ${name}`, 'machine-controller');
      log.push(`${name}: provisioned`);
      return;
    }
    if (opts.wmco === false) return;
    const windows = m.metadata.labels?.['machine.openshift.io/os-id'] === 'Windows';
    if (!windows || value.userDataSecret?.name !== 'windows-user-data' || !emu.get('Secret', 'windows-user-data', NS))
      return;
    const nodeName = m.status?.nodeRef?.name as string | undefined;
    if (phase === 'Provisioned' && !nodeName) {
      const address = (m.status.addresses as { type: string; address: string }[]).find(
        (a) => a.type === 'InternalIP',
      )?.address;
      const node = windowsNode(name, {
        build: '10.0.20348',
        ready: false,
        desiredVersion: DEFAULT_WMCO_VERSION,
        ...(address ? { address } : {}),
      });
      node.metadata.annotations = { ...node.metadata.annotations, 'machine.openshift.io/machine': `${NS}/${name}` };
      delete (node.metadata as Obj).uid;
      const created = emu.apply(node);
      nodes.add(name);
      emu.patch('Machine', name, NS, {
        status: { phase: 'Running', nodeRef: { kind: 'Node', name, uid: created.metadata.uid } },
      });
      log.push(`${name}: node registered`);
      return;
    }
    const node = nodeName ? (emu.get('Node', nodeName) as Obj | undefined) : undefined;
    if (!node) return;
    const annotations = node.metadata.annotations ?? {};
    if (!annotations['windowsmachineconfig.openshift.io/version']) {
      emu.patch('Node', node.metadata.name, undefined, {
        metadata: { annotations: { 'windowsmachineconfig.openshift.io/version': DEFAULT_WMCO_VERSION } },
      });
      event(m, 'Normal', 'MachineSetup', `Machine ${name} configured successfully`, 'windows-machine-config-operator');
      log.push(`${name}: configured`);
      return;
    }
    const conditions = (node.status?.conditions ?? []) as Obj[];
    if (!conditions.some((c) => c.type === 'Ready' && c.status === 'True')) {
      const ready = conditions.map((c) =>
        c.type === 'Ready'
          ? {
              ...c,
              status: 'True',
              reason: 'KubeletReady',
              message: 'kubelet is posting ready status',
              lastTransitionTime: now(),
            }
          : c,
      );
      const taints = ((node.spec?.taints ?? []) as Obj[]).filter((t) => t.key !== 'node.kubernetes.io/unreachable');
      emu.patch('Node', node.metadata.name, undefined, { spec: { taints }, status: { conditions: ready } });
      log.push(`${name}: ready`);
    }
  };

  const tick = (): void => {
    try {
      reconcileSets();
      for (const m of emu.list('Machine') as Obj[]) {
        const owner = m.metadata.labels?.[SET_LABEL] as string | undefined;
        if (owner && !emu.get('MachineSet', owner, NS)) {
          remove(m);
          continue;
        }
        step(m);
      }
      // The nodes of its Machines that were deleted through the API.
      for (const n of nodes) {
        if (emu.get('Machine', n, NS)) continue;
        if (emu.get('Node', n)) emu.remove('Node', n);
        nodes.delete(n);
      }
    } catch (err) {
      log.push(`error: ${(err as Error).message}`);
    }
  };
  const timer = setInterval(tick, opts.tickMs ?? 30);
  return { stop: () => clearInterval(timer), log };
}

export type { KubeObject };
