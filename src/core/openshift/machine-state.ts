// What a Windows Machine's state means, and why it stalls: the stages it goes through on its way to
// a Ready node (Provisioning, Provisioned, Running, node registered, WMCO configured, node Ready),
// a view of it for lists and the tree, and the explanation of a stall from what the cluster knows:
// the Machine's errorReason/errorMessage, events about it (the machine controller's and WMCO's
// MachineSetup/MachineSetupFailure), the user-data secret it names and whether that secret exists.
// Pure: plain objects in, plain results out.

import {
  MACHINE_API_NAMESPACE,
  MACHINESET_LABEL,
  WINDOWS_USER_DATA_SECRET,
  WMCO_DESIRED_VERSION_ANNOTATION,
  WMCO_NAMESPACE,
  WMCO_VERSION_ANNOTATION,
  WORKER_USER_DATA_SECRET,
} from '../well-known';
import type { MachineApiObject } from './windows-machineset';
import { counted, plural } from '../plural';
import { providerPlatform, providerSpecValue, type MachinePlatform } from './machines';

/** The parts of a Node read here. */
export interface NodeFacts {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** The parts of an Event read here (core/v1 Event). */
export interface EventFacts {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  firstTimestamp?: string | null;
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string; fieldPath?: string };
  source?: { component?: string };
  reportingComponent?: string;
}

export type MachineStage = 'provisioning' | 'provisioned' | 'running' | 'node' | 'configured' | 'ready';

export const MACHINE_STAGES: readonly { stage: MachineStage; title: string }[] = [
  { stage: 'provisioning', title: 'Provisioning: the cloud creates the VM' },
  { stage: 'provisioned', title: 'Provisioned: the VM exists, WMCO configures it' },
  { stage: 'running', title: 'Running' },
  { stage: 'node', title: 'node registered' },
  { stage: 'configured', title: 'WMCO configured the node' },
  { stage: 'ready', title: 'node Ready' },
];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const machinePhase = (m: MachineApiObject): string | undefined =>
  typeof m.status?.phase === 'string' ? m.status.phase : undefined;
export const machineNodeName = (m: MachineApiObject): string | undefined => {
  const ref = m.status?.nodeRef;
  return isObj(ref) && typeof ref.name === 'string' && ref.name ? ref.name : undefined;
};
const machineError = (m: MachineApiObject): { reason?: string; message?: string } => ({
  ...(typeof m.status?.errorReason === 'string' && m.status.errorReason ? { reason: m.status.errorReason } : {}),
  ...(typeof m.status?.errorMessage === 'string' && m.status.errorMessage ? { message: m.status.errorMessage } : {}),
});

function nodeIsReady(node: NodeFacts | undefined): boolean {
  return (node?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** WMCO has configured the node: its version annotation is set (and matches the desired version when that is set). */
function nodeConfiguredByWmco(node: NodeFacts | undefined): boolean {
  const a = node?.metadata.annotations ?? {};
  const version = a[WMCO_VERSION_ANNOTATION];
  const desired = a[WMCO_DESIRED_VERSION_ANNOTATION];
  return Boolean(version) && (!desired || desired === version);
}

/**
 * Whether a stage has been reached. Running comes right after the node registers (the machine controller sets it from
 * nodeRef), so a registered node counts for it too.
 */
export function stageReached(stage: MachineStage, m: MachineApiObject, node: NodeFacts | undefined): boolean {
  const phase = machinePhase(m);
  const hasNode = Boolean(machineNodeName(m) && node);
  switch (stage) {
    case 'provisioning':
      return true;
    case 'provisioned':
      return phase === 'Provisioned' || phase === 'Running' || hasNode;
    case 'running':
      return phase === 'Running' || hasNode;
    case 'node':
      return hasNode;
    case 'configured':
      return hasNode && nodeConfiguredByWmco(node);
    case 'ready':
      return hasNode && nodeConfiguredByWmco(node) && nodeIsReady(node);
  }
}

/** The first stage not reached yet (undefined: Ready). */
export function nextStage(m: MachineApiObject, node: NodeFacts | undefined): MachineStage | undefined {
  return MACHINE_STAGES.find((s) => !stageReached(s.stage, m, node))?.stage;
}

/**
 * The Machine failed for good (phase Failed, or an error the machine controller set): waiting longer changes nothing.
 */
export function machineFailed(m: MachineApiObject): boolean {
  return machinePhase(m) === 'Failed' || Boolean(machineError(m).reason || machineError(m).message);
}

// ---- a view for lists and the tree ---------------------------------------------------------------

export interface MachineView {
  name: string;
  machineSet?: string;
  phase: string;
  node?: string;
  /** creationTimestamp as the API wrote it. */
  created?: string;
  /** "InvalidConfiguration: ..." when the Machine carries an error. */
  error?: string;
  deleting: boolean;
}

export function machineView(m: MachineApiObject): MachineView {
  const err = machineError(m);
  const node = machineNodeName(m);
  const set = m.metadata.labels?.[MACHINESET_LABEL];
  const created = typeof m.metadata.creationTimestamp === 'string' ? m.metadata.creationTimestamp : undefined;
  return {
    name: m.metadata.name,
    ...(set ? { machineSet: set } : {}),
    phase: machinePhase(m) ?? 'Pending',
    ...(node ? { node } : {}),
    ...(created ? { created } : {}),
    ...(err.reason || err.message ? { error: [err.reason, err.message].filter(Boolean).join(': ') } : {}),
    deleting: Boolean(m.metadata.deletionTimestamp),
  };
}

export interface MachineSetView {
  name: string;
  /** spec.replicas (1 when unset, as the API defaults it). */
  desired: number;
  /** status.readyReplicas (0 when unset). */
  ready: number;
  /** status.availableReplicas (0 when unset). */
  available: number;
  platform?: MachinePlatform;
  deleting: boolean;
}

export function machineSetView(ms: MachineApiObject): MachineSetView {
  const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const replicas = ms.spec?.replicas;
  const value = providerSpecValue(ms);
  const platform = value ? providerPlatform(value) : undefined;
  return {
    name: ms.metadata.name,
    desired: typeof replicas === 'number' ? replicas : 1,
    ready: count(ms.status?.readyReplicas),
    available: count(ms.status?.availableReplicas),
    ...(platform ? { platform } : {}),
    deleting: Boolean(ms.metadata.deletionTimestamp),
  };
}

/** "3m", "2h", "5d" from two times in milliseconds (kubectl's AGE column, roughly). */
export function age(fromIso: string | undefined, nowMs: number): string {
  const t = fromIso ? Date.parse(fromIso) : NaN;
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.floor((nowMs - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

// ---- why a Machine stalls ------------------------------------------------------------------------

export interface StallFacts {
  machine: MachineApiObject;
  node?: NodeFacts;
  /** Events whose involvedObject is the Machine (the machine controller's and WMCO's). */
  events: EventFacts[];
  /** Warning events in WMCO's namespace (its operator-level failures). */
  wmcoEvents?: EventFacts[];
  /** Whether secret windows-user-data exists in openshift-machine-api; undefined when it could not be read. */
  userDataSecret?: boolean;
  wmcoNamespace?: string;
}

const IMAGE_REFUSED =
  /InvalidAMIID|AMI|image|template|ImageNotFound|MarketplacePurchaseEligibilityFailed|not find.*(template|image)/i;

const eventTime = (e: EventFacts): string => e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? '';
const eventLine = (e: EventFacts): string =>
  `${e.reason ?? 'Event'}: ${(e.message ?? '').trim()}${e.count && e.count > 1 ? ` (×${e.count})` : ''}`;

/** The user-data secret the Machine's provider spec names. */
function machineUserDataSecret(m: MachineApiObject): string | undefined {
  // A Machine's provider spec is spec.providerSpec (a MachineSet's, spec.template.spec.providerSpec).
  const own = isObj(m.spec?.providerSpec) ? m.spec.providerSpec.value : undefined;
  const value = isObj(own) ? own : providerSpecValue(m);
  const secret = value && isObj(value.userDataSecret) ? value.userDataSecret.name : undefined;
  return typeof secret === 'string' ? secret : undefined;
}

/**
 * Why a Machine has not reached its next stage, most telling first: one or two sentences each,
 * what happened and what to do. Never empty: without a better reason it says where to look.
 */
export function stallReasons(f: StallFacts): string[] {
  const m = f.machine;
  const name = m.metadata.name;
  const out: string[] = [];
  const stage = nextStage(m, f.node);
  const err = machineError(m);
  if (err.reason || err.message) {
    const what = [err.reason, err.message].filter(Boolean).join(': ');
    out.push(
      IMAGE_REFUSED.test(what)
        ? `The cloud refused to create the VM of Machine ${name} (${what}). Check the image of the MachineSet: it must exist in this region or location and be a Windows Server image.`
        : `The machine controller reports an error on Machine ${name}: ${what}.`,
    );
  } else if (machinePhase(m) === 'Failed')
    out.push(
      `Machine ${name} is in phase Failed without an error message; see its events (oc describe machine ${name} -n ${MACHINE_API_NAMESPACE}).`,
    );

  const secret = machineUserDataSecret(m);
  if (secret !== undefined && secret !== WINDOWS_USER_DATA_SECRET) {
    out.push(
      secret === WORKER_USER_DATA_SECRET
        ? `Machine ${name} boots with the Linux user data (${WORKER_USER_DATA_SECRET}): the VM never becomes a node. Set userDataSecret.name to ${WINDOWS_USER_DATA_SECRET} in the MachineSet and delete this Machine.`
        : `Machine ${name} boots with user data from secret ${secret}, not ${WINDOWS_USER_DATA_SECRET}, which WMCO writes: WMCO cannot reach the VM. Set userDataSecret.name to ${WINDOWS_USER_DATA_SECRET} and delete this Machine.`,
    );
  } else if (f.userDataSecret === false) {
    out.push(
      `Secret ${WINDOWS_USER_DATA_SECRET} is missing in ${MACHINE_API_NAMESPACE}: WMCO writes it when it runs and has the cloud-private-key secret. Check that WMCO runs (oc get pods -n ${f.wmcoNamespace ?? WMCO_NAMESPACE}).`,
    );
  }

  const warnings = f.events
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => eventTime(b).localeCompare(eventTime(a)))
    .slice(0, 3);
  for (const e of warnings) out.push(`Event on Machine ${name}: ${eventLine(e)}`);
  const wmco = (f.wmcoEvents ?? []).filter((e) => e.type === 'Warning' && (e.message ?? '').includes(name)).slice(0, 2);
  for (const e of wmco) out.push(`WMCO: ${eventLine(e)}`);

  if (out.length === 0) {
    const ns = f.wmcoNamespace ?? WMCO_NAMESPACE;
    switch (stage) {
      case 'provisioning':
        out.push(
          `The cloud has not finished creating the VM of Machine ${name}. See the machine controller's log: oc logs -n ${MACHINE_API_NAMESPACE} deployment/machine-api-controllers -c machine-controller | grep ${name}`,
        );
        break;
      case 'provisioned':
      case 'running':
      case 'node':
        out.push(
          `The VM of Machine ${name} exists but has not become a node: WMCO connects to it over SSH with the cloud-private-key secret and configures it. See WMCO's log: oc logs -n ${ns} deployment/windows-machine-config-operator | grep ${name}`,
        );
        break;
      case 'configured':
        out.push(
          `The node of Machine ${name} registered but WMCO has not finished configuring it (no ${WMCO_VERSION_ANNOTATION} annotation yet). See WMCO's log: oc logs -n ${ns} deployment/windows-machine-config-operator`,
        );
        break;
      case 'ready':
        out.push(
          `The node of Machine ${name} is configured but not Ready: ${readyMessage(f.node)}. Check the node's services: kube-windows nodes services ${f.node?.metadata.name ?? '<node>'} --context C`,
        );
        break;
      default:
        break;
    }
  }
  return out;
}

function readyMessage(node: NodeFacts | undefined): string {
  const c = (node?.status?.conditions ?? []).find((x) => x.type === 'Ready');
  if (!c) return 'the kubelet has not reported yet';
  return `${c.reason ?? c.status}${c.message ? ` (${c.message})` : ''}`;
}

/** What scaling a Windows MachineSet from `from` to `to` replicas sets going, said before it is asked. */
export function scaleConsequence(from: number, to: number): string {
  return to < from
    ? `The machine controller deletes ${counted(from - to, 'Machine')} and ${plural(from - to, 'its node', 'their nodes')} (drained first).`
    : `The machine controller makes ${counted(to - from, 'Machine')}; WMCO configures ${plural(to - from, 'it', 'them')}.`;
}
