// Reads what the live check and `kube-windows snapshot` need, with paged lists only: one list per kind
// (workloads, pods, Windows nodes, Warning events, namespaces, RuntimeClasses, claims, volumes,
// StorageClasses, CSINodes, CSIDrivers), never a request per
// object. What the check decides from them is pure, in core/live/check.ts.
import type { V1Node, V1RuntimeClassList } from '@kubernetes/client-node';
import { LIVE_KINDS, type LiveState, type UnreadList } from '../core/live/check';
import type { EventFacts, MirrorSetFacts } from '../core/live/explain';
import type { Obj } from '../core/manifest/path';
import type { ClusterSnapshot, StorageFacts } from '../core/rules/facts';
import { isOpenShiftGroups, MACHINE_API_NAMESPACE, WINDOWS_SELECTOR } from '../core/well-known';
import { enc, getOrUndefined, listAll } from './api';
import type { KubeClient } from './kube-client';
import { ApiError, classifyError } from './errors';
import { isErrorItem, readMirrorSets, windowsRuntimeClassesOf } from './extras';
import { apiGroups } from './openshift';
import { buildSnapshot, readOpenShiftFacts } from './snapshot';
import { storageFacts, storageLists } from './storage';
import { windowsNodeView } from './windows-nodes';

/** Page size of the live check's lists (kubectl's default). */
const LIVE_PAGE_SIZE = 500;

export interface LiveScope {
  /** One namespace; all namespaces when undefined. */
  namespace?: string;
  /** The context name the snapshot carries. */
  context: string;
  /** Objects per list page (default LIVE_PAGE_SIZE). */
  pageSize?: number;
  signal?: AbortSignal;
  /**
   * Read what may be read: a list the API server refuses (403) is left out and named in
   * `LiveState.unread` instead of failing the whole read (a user allowed to list only some kinds).
   */
  partial?: boolean;
}

const collection = (apiVersion: string, plural: string, namespace: string | undefined): string => {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace === undefined ? `${base}/${plural}` : `${base}/namespaces/${enc(namespace)}/${plural}`;
};

/** Typed lists leave kind and apiVersion out of their items: put them back. */
const typed = (items: Obj[], apiVersion: string, kind: string): Obj[] => items.map((o) => ({ apiVersion, kind, ...o }));

/** The cluster's facts: Windows nodes, Windows RuntimeClasses, flavour and (on OpenShift) its own facts. */
export async function readClusterSnapshot(kube: KubeClient, scope: LiveScope): Promise<ClusterSnapshot> {
  const groups = await apiGroups(kube, scope.signal);
  const [nodes, rcs] = await Promise.all([
    listWindowsNodes(kube, scope.signal),
    listAll<Obj>(kube, '/apis/node.k8s.io/v1/runtimeclasses', {}, scope.signal, LIVE_PAGE_SIZE),
  ]);
  // Storage facts only sharpen one rule: a list this user may not read leaves them out, quietly.
  const quiet = <T>(p: Promise<T>): Promise<T | undefined> => p.catch(() => undefined);
  const lists = servedStorageLists(kube, groups, scope.signal, LIVE_PAGE_SIZE);
  const [classes, csiNodes, drivers] = await Promise.all([
    quiet(lists.storageClasses),
    quiet(lists.csiNodes),
    quiet(lists.csiDrivers),
  ]);
  return snapshotOf(kube, scope, groups, nodes, rcs, storageOf(nodes, classes, csiNodes, drivers));
}

async function snapshotOf(
  kube: KubeClient,
  scope: LiveScope,
  groups: string[],
  nodes: V1Node[],
  rcs: Obj[],
  storage: StorageFacts | undefined,
): Promise<ClusterSnapshot> {
  const openshift = isOpenShiftGroups(groups);
  // The release decides some rules; a server that will not say leaves the OpenShift release or the default to decide.
  const [serverVersion, openshiftFacts] = await Promise.all([
    kube
      .get<{ gitVersion?: string }>('/version', undefined, scope.signal)
      .then((v) => v.gitVersion)
      .catch(() => undefined),
    openshift ? readOpenShiftFacts(kube, undefined, scope.signal) : undefined,
  ]);
  const snapshot = buildSnapshot({
    name: scope.context,
    flavour: openshift ? 'openshift' : 'kubernetes',
    nodes: nodes.map(windowsNodeView),
    runtimeClasses: windowsRuntimeClassesOf(rcs as unknown as V1RuntimeClassList['items']),
    ...(openshiftFacts ? { openshift: openshiftFacts } : {}),
    ...(serverVersion ? { serverVersion } : {}),
  });
  if (storage) snapshot.storage = storage;
  return snapshot;
}

/** The storage lists where the API server serves storage.k8s.io; empty lists where it does not. */
function servedStorageLists(
  kube: KubeClient,
  groups: string[],
  signal: AbortSignal | undefined,
  size: number,
): ReturnType<typeof storageLists> {
  if (groups.includes('storage.k8s.io')) return storageLists(kube, signal, size);
  const none = Promise.resolve([]);
  return { storageClasses: none, csiNodes: none, csiDrivers: none };
}

function storageOf(
  nodes: V1Node[],
  storageClasses: Obj[] | undefined,
  csiNodes: Obj[] | undefined,
  csiDrivers: Obj[] | undefined,
): StorageFacts | undefined {
  return storageFacts({ storageClasses, csiNodes, csiDrivers }, nodes as unknown as Obj[]);
}

function listWindowsNodes(kube: KubeClient, signal?: AbortSignal, pageSize = LIVE_PAGE_SIZE): Promise<V1Node[]> {
  return listAll<V1Node>(kube, '/api/v1/nodes', { labelSelector: WINDOWS_SELECTOR }, signal, pageSize);
}

/** Everything the live check reads, in parallel: one paged list per kind. */
export async function readLiveState(kube: KubeClient, scope: LiveScope): Promise<LiveState> {
  const { namespace, signal } = scope;
  const size = scope.pageSize ?? LIVE_PAGE_SIZE;
  // One slot per list, in the order they are asked: refusals are reported in that order, not as they arrive.
  const refused: (UnreadList | undefined)[] = [];
  const allowed = <T>(read: Promise<T>, what: string, fallback: T): Promise<T> => {
    if (!scope.partial) return read;
    const slot = refused.push(undefined) - 1;
    return read.catch((err: unknown) => {
      if (!(err instanceof ApiError && err.status === 403)) throw err;
      refused[slot] = { what, message: classifyError(err, { context: scope.context, what }).message };
      return fallback;
    });
  };
  const groups = await apiGroups(kube, signal);
  const served = new Set(groups);
  const group = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
  const kinds = LIVE_KINDS.filter((k) => {
    const g = group(k.apiVersion);
    if (g && !served.has(g)) return false;
    // MachineSets live in openshift-machine-api only.
    return k.kind !== 'MachineSet' || namespace === undefined || namespace === MACHINE_API_NAMESPACE;
  });
  const lists = kinds.map((k) => {
    const ns = k.kind === 'MachineSet' ? MACHINE_API_NAMESPACE : namespace;
    const list = listAll<Obj>(kube, collection(k.apiVersion, k.plural, ns), {}, signal, size).then((items) =>
      typed(items, k.apiVersion, k.kind),
    );
    return allowed(list, `${k.kind}s`, []);
  });
  const events = allowed(
    listAll<EventFacts>(kube, collection('v1', 'events', namespace), { fieldSelector: 'type=Warning' }, signal, size),
    'Warning events',
    [],
  );
  const nodes = allowed(listWindowsNodes(kube, signal, size), 'Windows nodes', []);
  const rcs = allowed(
    listAll<Obj>(kube, '/apis/node.k8s.io/v1/runtimeclasses', {}, signal, size),
    'RuntimeClasses',
    [],
  );
  const namespaces = allowed(
    namespace === undefined
      ? listAll<Obj>(kube, '/api/v1/namespaces', {}, signal, size)
      : getOrUndefined<Obj>(kube, `/api/v1/namespaces/${enc(namespace)}`, signal).then((n) => (n ? [n] : [])),
    'Namespaces',
    [],
  );
  const claims = allowed(
    listAll<Obj>(kube, collection('v1', 'persistentvolumeclaims', namespace), {}, signal, size),
    'PersistentVolumeClaims',
    [],
  );
  const volumes = allowed(listAll<Obj>(kube, '/api/v1/persistentvolumes', {}, signal, size), 'PersistentVolumes', []);
  const storage = servedStorageLists(kube, groups, signal, size);
  const classes = allowed<Obj[] | undefined>(storage.storageClasses, 'StorageClasses', undefined);
  const csiNodes = allowed<Obj[] | undefined>(storage.csiNodes, 'CSINodes', undefined);
  const csiDrivers = allowed<Obj[] | undefined>(storage.csiDrivers, 'CSIDrivers', undefined);
  const openshift = isOpenShiftGroups(groups);
  const mirrors = openshift ? readMirrorSets(kube, { context: scope.context }) : Promise.resolve(undefined);
  const [objects, eventList, nodeList, rcList, nsList, mirrorSets] = await Promise.all([
    Promise.all(lists),
    events,
    nodes,
    rcs,
    namespaces,
    mirrors,
  ]);
  const [claimList, volumeList, classList, csiNodeList, driverList] = await Promise.all([
    claims,
    volumes,
    classes,
    csiNodes,
    csiDrivers,
  ]);
  const snapshot = await snapshotOf(
    kube,
    scope,
    groups,
    nodeList,
    rcList,
    storageOf(nodeList, classList, csiNodeList, driverList),
  );
  const state: LiveState = {
    objects: objects.flat(),
    events: eventList,
    windowsNodes: nodeList as unknown as Obj[],
    factObjects: [
      ...typed(nsList, 'v1', 'Namespace'),
      ...typed(rcList, 'node.k8s.io/v1', 'RuntimeClass'),
      ...typed(claimList, 'v1', 'PersistentVolumeClaim'),
      ...typed(volumeList, 'v1', 'PersistentVolume'),
    ],
    snapshot,
  };
  if (mirrorSets && !isErrorItem(mirrorSets)) state.mirrorSets = mirrorSets.sets as MirrorSetFacts[];
  const unread = refused.filter((u): u is UnreadList => u !== undefined);
  if (unread.length > 0) state.unread = unread;
  return state;
}
