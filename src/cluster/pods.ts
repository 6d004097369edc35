// Pods of a node, their PodDisruptionBudgets, eviction (policy/v1 Eviction subresource) and delete.
// What a drain decides about those pods is pure and lives in core/drain.ts.
import { budgetsSelecting, drainPlan, emptyDirLosses, type DrainPdb, type DrainPod } from '../core/drain';
import type { PodView } from '../core/windows/kubeadm-networking';
import { enc, listAll, type ApiCall } from './api';
import type { KubeClient } from './kube-client';

export const podPath = (namespace: string, name: string): string =>
  `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}`;

/** The calls a drain makes, for previews. */
export function drainCalls(nodeName: string, disableEviction: boolean): ApiCall[] {
  return [
    { verb: 'GET', path: `/api/v1/pods?fieldSelector=spec.nodeName=${nodeName}` },
    disableEviction
      ? { verb: 'DELETE', path: '/api/v1/namespaces/<namespace>/pods/<pod>' }
      : {
          verb: 'POST',
          path: '/api/v1/namespaces/<namespace>/pods/<pod>/eviction',
          body: evictionBody('<namespace>', '<pod>'),
        },
  ];
}

/** The pods scheduled on a node: a server-side field selector, never a cluster-wide list. */
async function podsOnNode(kube: KubeClient, nodeName: string, signal?: AbortSignal): Promise<DrainPod[]> {
  const list = await kube.get<{ items?: DrainPod[] }>(
    '/api/v1/pods',
    { fieldSelector: `spec.nodeName=${nodeName}` },
    signal,
  );
  return list.items ?? [];
}

/** The pods a drain of the node must remove, and the ones it leaves. */
export async function drainTargets(
  kube: KubeClient,
  nodeName: string,
  signal?: AbortSignal,
): Promise<{ evict: DrainPod[]; skipped: string[] }> {
  return drainPlan(await podsOnNode(kube, nodeName, signal));
}

/** The pods a drain would evict whose emptyDir data would be lost (namespace/name): ask before. */
export async function podsWithEmptyDir(kube: KubeClient, nodeName: string, signal?: AbortSignal): Promise<string[]> {
  return emptyDirLosses((await drainTargets(kube, nodeName, signal)).evict);
}

/** The PodDisruptionBudgets that select a pod (for the message when its eviction is refused); [] when not readable. */
export async function budgetsFor(kube: KubeClient, pod: DrainPod, signal?: AbortSignal): Promise<string[]> {
  try {
    const list = await kube.get<{ items?: DrainPdb[] }>(
      `/apis/policy/v1/namespaces/${enc(pod.metadata.namespace ?? 'default')}/poddisruptionbudgets`,
      undefined,
      signal,
    );
    return budgetsSelecting(list.items ?? [], pod);
  } catch {
    return []; // not readable (RBAC): the API server's own message still names the budget
  }
}

function evictionBody(namespace: string, name: string): object {
  return { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } };
}

/** Asks the API server to evict a pod; a budget that forbids it answers 429 (an ApiError). */
export async function evictPod(kube: KubeClient, pod: DrainPod, signal?: AbortSignal): Promise<void> {
  const namespace = pod.metadata.namespace ?? 'default';
  await kube.create(
    `${podPath(namespace, pod.metadata.name)}/eviction`,
    evictionBody(namespace, pod.metadata.name),
    signal,
  );
}

export async function deletePod(kube: KubeClient, pod: DrainPod, signal?: AbortSignal): Promise<void> {
  await kube.delete(podPath(pod.metadata.namespace ?? 'default', pod.metadata.name), signal);
}

/** The pods of a namespace on one node (server-side field selector). */
export async function podsOfNodeIn(
  kube: KubeClient,
  namespace: string,
  nodeName: string,
  signal?: AbortSignal,
): Promise<PodView[]> {
  return listAll<PodView>(
    kube,
    `/api/v1/namespaces/${enc(namespace)}/pods`,
    { fieldSelector: `spec.nodeName=${nodeName}` },
    signal,
  );
}
