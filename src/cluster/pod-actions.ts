// The calls behind the pod and node actions of the explorer: a container's log (pods/log, streamed,
// followed while the caller wants), the events of a pod or a node (field selectors on involvedObject),
// the workload a rollout restart acts on (Pod → ReplicaSet → Deployment, DaemonSet, StatefulSet) and
// the restart patch, a pod's deletion, and a node's taints. Cordon, uncordon and drain are the reboot
// plan's steps (bootstrap/drain.ts). What is decided about the objects is pure (core/).
import {
  restartPatch,
  restartStepOfPod,
  restartStepOfReplicaSet,
  taintText,
  type OwnerRef,
  type RestartableKind,
} from '../core/workload-actions';
import type { EventFacts } from '../core/live/explain';
import type { Taint } from '../core/rules/facts';
import { bodyText } from './response-body';
import { enc, getOrUndefined, listAll } from './api';
import type { KubeClient } from './kube-client';
import { ApiError } from './errors';
import { nodePath, type NodeObject } from './nodes';
import { podPath } from './pods';
import { UserError } from '../core/user-error';

export interface PodObject {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    ownerReferences?: OwnerRef[];
    annotations?: Record<string, string>;
  };
  spec?: {
    nodeName?: string;
    containers?: { name: string; image?: string }[];
    initContainers?: { name: string; image?: string }[];
  };
  status?: {
    phase?: string;
    containerStatuses?: { name: string; restartCount?: number; lastState?: { terminated?: object } }[];
    initContainerStatuses?: { name: string; restartCount?: number; lastState?: { terminated?: object } }[];
  };
}

export function getPod(
  kube: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<PodObject | undefined> {
  return getOrUndefined<PodObject>(kube, podPath(namespace, name), signal);
}

// ---------------------------------------------------------------------------------------------
// Logs

export interface PodLogRequest {
  namespace: string;
  pod: string;
  container: string;
  /** Keep the stream open and pass on new lines until `signal` ends it. */
  follow?: boolean;
  /** The previous (terminated) instance of the container. */
  previous?: boolean;
  /** Only the last N lines. */
  tailLines?: number;
}

/** The API server's refusal of a log read (400 "previous terminated container … not found", 403 …), in its words. */
export class PodLogError extends UserError {
  override readonly name = 'PodLogError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a refusal's Status says (its message), else the body's first line. */
function refusalText(status: number, text: string): string {
  try {
    const s = JSON.parse(text) as { message?: string };
    if (s.message) return s.message;
  } catch {
    // not a Status: the text itself
  }
  return text.split('\n')[0]?.trim() || `HTTP ${status}`;
}

/**
 * Reads a container's log (GET …/pods/NAME/log) and passes its text on as it arrives. Resolves when
 * the log ends (with follow: when the container stops, the pod goes, or `signal` aborts).
 */
export async function streamPodLog(
  kube: KubeClient,
  r: PodLogRequest,
  sink: (chunk: Buffer) => void,
  signal?: AbortSignal,
): Promise<void> {
  const query = {
    container: r.container,
    ...(r.follow ? { follow: true } : {}),
    ...(r.previous ? { previous: true } : {}),
    ...(r.tailLines !== undefined ? { tailLines: r.tailLines } : {}),
  };
  const res = await kube.stream(`${podPath(r.namespace, r.pod)}/log`, query, signal);
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    const text = refusalText(status, await bodyText(res));
    if (status === 403)
      throw new PodLogError(
        403,
        `You may not read the logs of pods in namespace "${r.namespace}" (403 Forbidden): it needs RBAC \`get\` on \`pods/log\` there. The API server said: ${text}`,
      );
    throw new PodLogError(status, text);
  }
  try {
    for await (const c of res) sink(c as Buffer);
  } catch (err) {
    if (signal?.aborted) return; // the reader stopped following
    throw err;
  }
}

/** The containers of a pod (init containers after), with whether each has a previous instance to read. */
export function logContainers(pod: PodObject): { name: string; init: boolean; restarts: number; previous: boolean }[] {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  const of = (name: string) => statuses.find((s) => s.name === name);
  return [
    ...(pod.spec?.containers ?? []).map((c) => ({ c, init: false })),
    ...(pod.spec?.initContainers ?? []).map((c) => ({ c, init: true })),
  ].map(({ c, init }) => {
    const s = of(c.name);
    return { name: c.name, init, restarts: s?.restartCount ?? 0, previous: Boolean(s?.lastState?.terminated) };
  });
}

// ---------------------------------------------------------------------------------------------
// Events

/** The events of a pod: its namespace's, by involvedObject kind, name, namespace and uid (server-side). */
export function podEvents(kube: KubeClient, pod: PodObject, signal?: AbortSignal): Promise<EventFacts[]> {
  const ns = pod.metadata.namespace ?? 'default';
  const selector = [
    `involvedObject.kind=Pod`,
    `involvedObject.name=${pod.metadata.name}`,
    `involvedObject.namespace=${ns}`,
    ...(pod.metadata.uid ? [`involvedObject.uid=${pod.metadata.uid}`] : []),
  ].join(',');
  return listAll<EventFacts>(kube, `/api/v1/namespaces/${enc(ns)}/events`, { fieldSelector: selector }, signal);
}

/**
 * The events of a node: the API server keeps every event of a cluster-scoped object in namespace
 * default (it refuses one elsewhere), so reading that namespace is enough, and needs less RBAC.
 */
export function nodeEvents(kube: KubeClient, node: string, signal?: AbortSignal): Promise<EventFacts[]> {
  return listAll<EventFacts>(
    kube,
    '/api/v1/namespaces/default/events',
    { fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node}` },
    signal,
  );
}

// ---------------------------------------------------------------------------------------------
// Delete and restart

/** Deletes a pod (its controller, if any, makes a new one). False when it was already gone. */
export async function deletePodNamed(
  kube: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await kube.request('DELETE', podPath(namespace, name), { signal });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return false;
    throw err;
  }
}

const APPS: Record<'ReplicaSet' | RestartableKind, string> = {
  ReplicaSet: 'replicasets',
  Deployment: 'deployments',
  DaemonSet: 'daemonsets',
  StatefulSet: 'statefulsets',
};
const appsPath = (kind: keyof typeof APPS, namespace: string, name: string): string =>
  `/apis/apps/v1/namespaces/${enc(namespace)}/${APPS[kind]}/${enc(name)}`;

export type RestartTarget = { kind: RestartableKind; namespace: string; name: string } | { refuse: string };

/** The workload a rollout restart of this pod acts on, read through its owners; or why there is none. */
export async function restartTargetOf(kube: KubeClient, pod: PodObject, signal?: AbortSignal): Promise<RestartTarget> {
  const ns = pod.metadata.namespace ?? 'default';
  let step = restartStepOfPod(`Pod ${ns}/${pod.metadata.name}`, pod.metadata.ownerReferences);
  for (;;) {
    if ('refuse' in step) return step;
    const { kind, name } = step.read;
    const o = await getOrUndefined<{ metadata: { ownerReferences?: OwnerRef[] } }>(
      kube,
      appsPath(kind, ns, name),
      signal,
    );
    if (!o) return { refuse: `${kind} ${ns}/${name}, which owns the pod, no longer exists.` };
    if (kind !== 'ReplicaSet') return { kind, namespace: ns, name };
    step = restartStepOfReplicaSet(name, o.metadata.ownerReferences);
  }
}

/** Restarts a workload's pods as `kubectl rollout restart` does: a new restartedAt on its pod template. */
export async function restartWorkload(
  kube: KubeClient,
  t: { kind: RestartableKind; namespace: string; name: string },
  now = new Date(),
  signal?: AbortSignal,
): Promise<void> {
  await kube.patch(appsPath(t.kind, t.namespace, t.name), restartPatch(now), 'merge', signal);
}

// ---------------------------------------------------------------------------------------------
// Taints

/**
 * Sets a node's taints to `taints`. Taints kept from `node` keep their fields (timeAdded); the
 * patch carries the resourceVersion read, so an edit that crossed another change is refused (409)
 * instead of undoing it.
 */
export async function setNodeTaints(
  kube: KubeClient,
  node: NodeObject,
  taints: readonly Taint[],
  signal?: AbortSignal,
): Promise<NodeObject> {
  const before = new Map((node.spec?.taints ?? []).map((t) => [taintText(t), t]));
  const next = taints.map((t) => before.get(taintText(t)) ?? t);
  const patch = {
    metadata: { resourceVersion: (node.metadata as { resourceVersion?: string }).resourceVersion },
    spec: { taints: next.length > 0 ? next : null },
  };
  return kube.patch<NodeObject>(nodePath(node.metadata.name), patch, 'merge', signal);
}
