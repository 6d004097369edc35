// MachineSets and Machines of the OpenShift Machine API (machine.openshift.io/v1beta1 in
// openshift-machine-api): list them (Linux workers apart from Windows ones), the Machines of one
// MachineSet (by its label), create one (server-side dry run first), scale through the scale
// subresource, delete one Machine, the events about a Machine, the user-data secret, and the
// Infrastructure facts a Windows MachineSet is made from. Lists are read page by page.
import { isLinuxWorkerMachineSet, isWindowsMachineSet } from '../core/openshift/machines';
import type { MachineApiObject } from '../core/openshift/windows-machineset';
import type { EventFacts } from '../core/openshift/machine-state';
import {
  MACHINE_API_NAMESPACE,
  MACHINE_API_VERSION,
  MACHINESET_LABEL,
  WINDOWS_USER_DATA_SECRET,
  WMCO_NAMESPACE,
} from '../core/well-known';
import { enc, getOrUndefined, listAll, type ApiCall } from './api';
import type { KubeClient } from './kube-client';
import { infrastructure, infrastructurePlatform } from './openshift';

const NS = MACHINE_API_NAMESPACE;
const MACHINESETS_PATH = `/apis/${MACHINE_API_VERSION}/namespaces/${NS}/machinesets`;
const MACHINES_PATH = `/apis/${MACHINE_API_VERSION}/namespaces/${NS}/machines`;
export const machineSetPath = (name: string): string => `${MACHINESETS_PATH}/${enc(name)}`;
export const machinePath = (name: string): string => `${MACHINES_PATH}/${enc(name)}`;
/** The collections the explorer watches: every MachineSet and every Machine of openshift-machine-api. */
export const machineSetCollection = { path: MACHINESETS_PATH, selector: {} };
export const machineCollection = { path: MACHINES_PATH, selector: {} };
const eventsPath = (ns: string): string => `/api/v1/namespaces/${enc(ns)}/events`;
const machineSelector = (machineSet: string): string => `${MACHINESET_LABEL}=${machineSet}`;
const machineEventSelector = (machine: string): string => `involvedObject.kind=Machine,involvedObject.name=${machine}`;

/** The calls of each concern, for previews (a dry run shows exactly what is sent). */
export const machineSetCalls = {
  list: (): ApiCall => ({ verb: 'GET', path: MACHINESETS_PATH }),
  create: (body: unknown, dryRun = false): ApiCall => ({
    verb: 'POST',
    path: `${MACHINESETS_PATH}${dryRun ? '?dryRun=All' : ''}`,
    body,
  }),
  scale: (name: string, replicas: number): ApiCall => ({
    verb: 'PATCH',
    path: `${machineSetPath(name)}/scale`,
    body: { spec: { replicas } },
  }),
  machines: (machineSet: string): ApiCall => ({
    verb: 'GET',
    path: `${MACHINES_PATH}?labelSelector=${enc(machineSelector(machineSet))}`,
  }),
  deleteMachine: (name: string): ApiCall => ({ verb: 'DELETE', path: machinePath(name) }),
  machineEvents: (machine: string): ApiCall => ({
    verb: 'GET',
    path: `${eventsPath(NS)}?fieldSelector=${enc(machineEventSelector(machine))}`,
  }),
};

/** A MachineSet's scale subresource (autoscaling/v1 Scale). */
export interface Scale {
  metadata: { name: string; resourceVersion?: string };
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

/** Every MachineSet in openshift-machine-api. */
function listMachineSets(kube: KubeClient, signal?: AbortSignal): Promise<MachineApiObject[]> {
  return listAll<MachineApiObject>(kube, MACHINESETS_PATH, {}, signal);
}

/**
 * The MachineSets sorted into Windows ones, Linux worker ones, and the rest (infra, control plane ...), each by name.
 */
export async function machineSetsByKind(
  kube: KubeClient,
  signal?: AbortSignal,
): Promise<{ windows: MachineApiObject[]; linuxWorkers: MachineApiObject[]; other: MachineApiObject[] }> {
  const all = (await listMachineSets(kube, signal)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const windows = all.filter(isWindowsMachineSet);
  const linuxWorkers = all.filter((m) => !isWindowsMachineSet(m) && isLinuxWorkerMachineSet(m));
  return { windows, linuxWorkers, other: all.filter((m) => !windows.includes(m) && !linuxWorkers.includes(m)) };
}

export function getMachineSet(
  kube: KubeClient,
  name: string,
  signal?: AbortSignal,
): Promise<MachineApiObject | undefined> {
  return getOrUndefined<MachineApiObject>(kube, machineSetPath(name), signal);
}

/** The Machines of a MachineSet (label cluster-api-machineset=<name>), by name. */
export async function listMachines(
  kube: KubeClient,
  machineSet: string,
  signal?: AbortSignal,
): Promise<MachineApiObject[]> {
  const items = await listAll<MachineApiObject>(
    kube,
    MACHINES_PATH,
    { labelSelector: machineSelector(machineSet) },
    signal,
  );
  return items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

export function getMachine(
  kube: KubeClient,
  name: string,
  signal?: AbortSignal,
): Promise<MachineApiObject | undefined> {
  return getOrUndefined<MachineApiObject>(kube, machinePath(name), signal);
}

/**
 * Creates a MachineSet. With `dryRun` the server validates and admits it (schema, defaults, webhooks)
 * and stores nothing (`?dryRun=All`); the answer is the object as it would be stored.
 */
export function createMachineSet(
  kube: KubeClient,
  body: MachineApiObject,
  options: { dryRun?: boolean } = {},
  signal?: AbortSignal,
): Promise<MachineApiObject> {
  return kube.request<MachineApiObject>('POST', MACHINESETS_PATH, {
    body,
    ...(options.dryRun ? { query: { dryRun: 'All' } } : {}),
    signal,
  });
}

/** The MachineSet's scale subresource; undefined when the MachineSet does not exist. */
export function getScale(kube: KubeClient, name: string, signal?: AbortSignal): Promise<Scale | undefined> {
  return getOrUndefined<Scale>(kube, `${machineSetPath(name)}/scale`, signal);
}

/**
 * Sets the replicas through the scale subresource (what `oc scale` and autoscalers use): nothing else of the MachineSet
 * changes.
 */
export function scaleMachineSet(
  kube: KubeClient,
  name: string,
  replicas: number,
  signal?: AbortSignal,
): Promise<Scale> {
  return kube.patch<Scale>(`${machineSetPath(name)}/scale`, { spec: { replicas } }, 'merge', signal);
}

/**
 * Deletes one Machine: the machine controller drains its node and deletes the VM, and the MachineSet makes a new one
 * while its replicas stay.
 */
export function deleteMachine(kube: KubeClient, name: string, signal?: AbortSignal): Promise<void> {
  return kube.delete(machinePath(name), signal);
}

/** Events whose involvedObject is the Machine (the machine controller's and WMCO's), oldest first. */
export async function machineEvents(kube: KubeClient, machine: string, signal?: AbortSignal): Promise<EventFacts[]> {
  const items = await listAll<EventFacts>(
    kube,
    eventsPath(NS),
    { fieldSelector: machineEventSelector(machine) },
    signal,
  );
  return items.sort((a, b) => eventTime(a).localeCompare(eventTime(b)));
}

/** Warning events in WMCO's namespace (operator-level failures, such as a missing cloud-private-key). */
export function wmcoWarningEvents(
  kube: KubeClient,
  namespace = WMCO_NAMESPACE,
  signal?: AbortSignal,
): Promise<EventFacts[]> {
  return listAll<EventFacts>(kube, eventsPath(namespace), { fieldSelector: 'type=Warning' }, signal);
}

const eventTime = (e: EventFacts): string => e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? '';

/**
 * Whether secret windows-user-data (written by WMCO) exists in openshift-machine-api. Its content is never read out.
 */
export async function userDataSecretExists(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  return (
    (await getOrUndefined<unknown>(kube, `/api/v1/namespaces/${NS}/secrets/${WINDOWS_USER_DATA_SECRET}`, signal)) !==
    undefined
  );
}

/** What the Infrastructure says that a MachineSet is made from; undefined when there is no Infrastructure object. */
export async function readInfrastructure(
  kube: KubeClient,
  signal?: AbortSignal,
): Promise<{ platform?: string; infrastructureName?: string } | undefined> {
  const infra = await infrastructure(kube, signal);
  if (!infra) return undefined;
  const platform = infrastructurePlatform(infra);
  const name = infra.status?.infrastructureName;
  return { ...(platform ? { platform } : {}), ...(name ? { infrastructureName: name } : {}) };
}

// ---- for the cluster view: data or an error item, never thrown -----------------------------------

export type WindowsMachineSets = { available: boolean; sets: MachineApiObject[] };
