// The objects `nodes --watch` and `pods --watch` follow, kept by list-watch.ts as the tree's are (a list
// again after any failure or 410 Gone): the Windows nodes (server-side label selector), and pods, either
// of one node (server-side field selector) or those on Windows nodes, which needs the Windows nodes too:
// a pod shows while its node is a Windows node (or, unscheduled, while it asks for Windows).
import { enc } from './api';
import type { KubeClient } from './kube-client';
import { ListWatch, type ListWatchHandlers } from './list-watch';
import type { NodeObject } from './nodes';
import { isWindowsPod, type ListedPod } from '../core/pod-listing';
import { WINDOWS_SELECTOR } from '../core/well-known';

export interface Followed {
  /** Resolves after the first lists, or their failure (reported through `failed`, then retried). */
  start(): Promise<void>;
  stop(): void;
}

export interface FollowOptions {
  /** Seconds the server keeps one watch open before it is resumed (default: list-watch.ts's). */
  watchTimeoutSeconds?: number;
}

type Pod = ListedPod & { metadata?: { resourceVersion?: string } };
type Node = NodeObject & { metadata?: { resourceVersion?: string } };

/** The Windows nodes, listed and watched. */
export function followWindowsNodes(
  kube: KubeClient,
  on: ListWatchHandlers<NodeObject>,
  options: FollowOptions = {},
): Followed {
  const lw = new ListWatch<Node>(
    kube,
    { path: '/api/v1/nodes', selector: { labelSelector: WINDOWS_SELECTOR }, ...options },
    on,
  );
  return { start: () => lw.start(), stop: () => lw.stop() };
}

/** Where the pods are read: one namespace, or all. */
export interface PodScope {
  /** Undefined: every namespace. */
  namespace?: string;
  /** Only this node's pods (whatever its OS); undefined: the pods of the Windows nodes. */
  node?: string;
}

/** The pods of `scope`, listed and watched. */
export function followPods(
  kube: KubeClient,
  scope: PodScope,
  on: ListWatchHandlers<ListedPod>,
  options: FollowOptions = {},
): Followed {
  const path = scope.namespace === undefined ? '/api/v1/pods' : `/api/v1/namespaces/${enc(scope.namespace)}/pods`;
  const spec = { path, pageSize: 500, ...options };
  if (scope.node !== undefined) {
    const lw = new ListWatch<Pod>(kube, { ...spec, selector: { fieldSelector: `spec.nodeName=${scope.node}` } }, on);
    return { start: () => lw.start(), stop: () => lw.stop() };
  }
  return windowsPods(kube, spec, on, options);
}

/** Pods on Windows nodes: two list-watches, told to `on` as one (listed once both are, one failure at a time). */
function windowsPods(
  kube: KubeClient,
  spec: { path: string; pageSize: number },
  on: ListWatchHandlers<ListedPod>,
  options: FollowOptions,
): Followed {
  const pods = new Map<string, Pod>();
  const nodes = new Set<string>();
  let podsListed = false;
  let nodesListed = false;
  const failing = new Set<'pods' | 'nodes'>();
  const key = (p: Pod) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
  const ready = () => podsListed && nodesListed;
  const visible = () => [...pods.values()].filter((p) => isWindowsPod(p, nodes));
  const failed = (source: 'pods' | 'nodes') => (err: unknown) => {
    const first = failing.size === 0;
    failing.add(source);
    if (first) on.failed(err);
  };
  const recovered = (source: 'pods' | 'nodes') => () => {
    if (!failing.delete(source) || failing.size > 0) return;
    on.recovered();
  };
  const podWatch = new ListWatch<Pod>(
    kube,
    { ...spec, selector: {} },
    {
      listed(items) {
        pods.clear();
        for (const p of items) pods.set(key(p), p);
        podsListed = true;
        if (ready()) on.listed(visible());
      },
      event(type, pod) {
        if (type === 'DELETED') pods.delete(key(pod));
        else pods.set(key(pod), pod);
        if (!ready()) return;
        // A pod that no longer shows (its node is no longer Windows) is gone from this list.
        on.event(type === 'DELETED' || isWindowsPod(pod, nodes) ? type : 'DELETED', pod);
      },
      failed: failed('pods'),
      recovered: recovered('pods'),
    },
  );
  const nodeWatch = new ListWatch<Node>(
    kube,
    { path: '/api/v1/nodes', selector: { labelSelector: WINDOWS_SELECTOR }, ...options },
    {
      listed(items) {
        nodes.clear();
        for (const n of items) nodes.add(n.metadata.name);
        nodesListed = true;
        if (ready()) on.listed(visible());
      },
      event(type, node) {
        const before = nodes.size;
        if (type === 'DELETED') nodes.delete(node.metadata.name);
        else nodes.add(node.metadata.name);
        // Which pods show changes only when the set of Windows nodes does: then all is told again.
        if (ready() && nodes.size !== before) on.listed(visible());
      },
      failed: failed('nodes'),
      recovered: recovered('nodes'),
    },
  );
  return {
    start: async () => {
      await Promise.all([nodeWatch.start(), podWatch.start()]);
    },
    stop: () => {
      podWatch.stop();
      nodeWatch.stop();
    },
  };
}
