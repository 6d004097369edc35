// Reads what the live check and `kube-windows snapshot` need, with paged lists only: one list per kind
// (workloads, pods, Windows nodes, Warning events, namespaces, RuntimeClasses), never a request per
// object. What the check decides from them is pure, in core/live/check.ts.
import type { V1Node, V1RuntimeClassList } from '@kubernetes/client-node';
import { LIVE_KINDS, type LiveState } from '../core/live/check';
import type { EventFacts, MirrorSetFacts } from '../core/live/explain';
import type { Obj } from '../core/manifest/path';
import type { ClusterSnapshot } from '../core/rules/facts';
import { isOpenShiftGroups, MACHINE_API_NAMESPACE, WINDOWS_SELECTOR } from '../core/well-known';
import { enc, getOrUndefined, listAll } from './api';
import { ApiError } from './errors';
import type { KubeClient } from './client';
import { isErrorItem, readMirrorSets, windowsRuntimeClassesOf } from './extras';
import { apiGroups } from './openshift';
import { buildSnapshot, readOpenShiftFacts } from './snapshot';
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
  const [nodes, rcs] = await Promise.all([listWindowsNodes(kube, scope.signal), listAll<Obj>(kube, '/apis/node.k8s.io/v1/runtimeclasses', {}, scope.signal, LIVE_PAGE_SIZE)]);
  return snapshotOf(kube, scope, groups, nodes, rcs);
}

async function snapshotOf(kube: KubeClient, scope: LiveScope, groups: string[], nodes: V1Node[], rcs: Obj[]): Promise<ClusterSnapshot> {
  const openshift = isOpenShiftGroups(groups);
  return buildSnapshot({
    name: scope.context,
    flavour: openshift ? 'openshift' : 'kubernetes',
    nodes: nodes.map(windowsNodeView),
    runtimeClasses: windowsRuntimeClassesOf(rcs as unknown as V1RuntimeClassList['items']),
    ...(openshift ? { openshift: await readOpenShiftFacts(kube, undefined, scope.signal) } : {}),
  });
}

function listWindowsNodes(kube: KubeClient, signal?: AbortSignal, pageSize = LIVE_PAGE_SIZE): Promise<V1Node[]> {
  return listAll<V1Node>(kube, '/api/v1/nodes', { labelSelector: WINDOWS_SELECTOR }, signal, pageSize);
}

/** Everything the live check reads, in parallel: one paged list per kind. */
export async function readLiveState(kube: KubeClient, scope: LiveScope): Promise<LiveState> {
  const { namespace, signal } = scope;
  const size = scope.pageSize ?? LIVE_PAGE_SIZE;
  const groups = await apiGroups(kube, signal);
  const served = new Set(groups);
  const group = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
  const kinds = LIVE_KINDS.filter((k) => {
    const g = group(k.apiVersion);
    if (g && !served.has(g)) return false;
    // MachineSets live in openshift-machine-api only.
    return k.kind !== 'MachineSet' || namespace === undefined || namespace === MACHINE_API_NAMESPACE;
  });
  // A kind the user may not read (403) is left out with a note; any other failure ends the check.
  const unreadable: string[] = [];
  const where = (ns: string | undefined): string => (ns === undefined ? 'in all namespaces' : `in namespace "${ns}"`);
  const orForbidden = <T>(read: Promise<T[]>, what: string): Promise<T[]> =>
    read.catch((err: unknown) => {
      if (!(err instanceof ApiError) || err.status !== 403) throw err;
      unreadable.push(`${what} (403 Forbidden)`);
      return [];
    });
  const lists = kinds.map((k) => {
    const ns = k.kind === 'MachineSet' ? MACHINE_API_NAMESPACE : namespace;
    return orForbidden(listAll<Obj>(kube, collection(k.apiVersion, k.plural, ns), {}, signal, size), `${k.plural} ${where(ns)}`).then((items) => typed(items, k.apiVersion, k.kind));
  });
  const events = orForbidden(listAll<EventFacts>(kube, collection('v1', 'events', namespace), { fieldSelector: 'type=Warning' }, signal, size), `events ${where(namespace)}`);
  const nodes = orForbidden(listWindowsNodes(kube, signal, size), 'nodes');
  const rcs = orForbidden(listAll<Obj>(kube, '/apis/node.k8s.io/v1/runtimeclasses', {}, signal, size), 'runtimeclasses');
  const namespaces = orForbidden(
    namespace === undefined ? listAll<Obj>(kube, '/api/v1/namespaces', {}, signal, size) : getOrUndefined<Obj>(kube, `/api/v1/namespaces/${enc(namespace)}`, signal).then((n) => (n ? [n] : [])),
    namespace === undefined ? 'namespaces' : `namespace "${namespace}"`,
  );
  const openshift = isOpenShiftGroups(groups);
  const mirrors = openshift ? readMirrorSets(kube, { context: scope.context }) : Promise.resolve(undefined);
  const [objects, eventList, nodeList, rcList, nsList, mirrorSets] = await Promise.all([Promise.all(lists), events, nodes, rcs, namespaces, mirrors]);
  const snapshot = await snapshotOf(kube, scope, groups, nodeList, rcList);
  const state: LiveState = {
    objects: objects.flat(),
    events: eventList,
    windowsNodes: nodeList as unknown as Obj[],
    factObjects: [...typed(nsList, 'v1', 'Namespace'), ...typed(rcList, 'node.k8s.io/v1', 'RuntimeClass')],
    snapshot,
  };
  if (unreadable.length > 0) state.unreadable = unreadable.sort();
  if (mirrorSets && !isErrorItem(mirrorSets)) state.mirrorSets = mirrorSets.sets as MirrorSetFacts[];
  return state;
}
