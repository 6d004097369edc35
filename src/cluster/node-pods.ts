// The pods of one Windows node, kept up to date while the tree shows them: a paged list with the
// server-side field selector spec.nodeName=<node>, then a watch with the same selector (list-watch.ts).
// Change events carry no payload: the tree asks `pods()` again and refreshes that node's Pods group.
import type { V1Pod } from '@kubernetes/client-node';
import { EventEmitter } from 'node:events';
import { listAll } from './api';
import type { KubeClient } from './kube-client';
import { classifyError, type ClusterErrorItem, type ErrorContext } from './errors';
import { ListWatch, watchFailure } from './list-watch';
import type { NodeFacts } from '../core/live/explain';
import type { WindowsNodeView } from './windows-nodes';

/** Pods per list page: a node rarely runs more than a few hundred. */
const POD_PAGE_SIZE = 250;

export interface PodView {
  namespace: string;
  name: string;
  /** The pod's phase, or Terminating once it is being deleted. */
  phase?: string;
  /** Every container is ready. */
  ready: boolean;
  readyCount: number;
  containerCount: number;
  restarts: number;
  images: string[];
  /** metadata.creationTimestamp. */
  created?: string;
  /** Why a container waits or ended (CrashLoopBackOff, ErrImagePull …), the first one found. */
  reason?: string;
}

/** One pod as the watch keeps it: its view and the object (status included) for explanations. */
export interface PodEntry {
  view: PodView;
  pod: V1Pod;
}

export type PodChange = { type: 'listed' | 'changed' } | { type: 'error'; error: ClusterErrorItem };

const nodePodsSelector = (nodeName: string): { fieldSelector: string } => ({
  fieldSelector: `spec.nodeName=${nodeName}`,
});

/** Pure: the view of one Pod object. */
export function podView(pod: V1Pod): PodView {
  const statuses = pod.status?.containerStatuses ?? [];
  const containers = pod.spec?.containers ?? [];
  const view: PodView = {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    ready: statuses.length > 0 && statuses.every((s) => s.ready),
    readyCount: statuses.filter((s) => s.ready).length,
    containerCount: containers.length,
    restarts: statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0),
    images: containers.map((c) => c.image ?? ''),
  };
  const phase = pod.metadata?.deletionTimestamp ? 'Terminating' : pod.status?.phase;
  if (phase) view.phase = phase;
  const created = Date.parse(String(pod.metadata?.creationTimestamp ?? ''));
  if (Number.isFinite(created)) view.created = new Date(created).toISOString();
  const reason = [...(pod.status?.initContainerStatuses ?? []), ...statuses]
    .map((s) => s.state?.waiting?.reason ?? s.state?.terminated?.reason)
    .find((r) => r && r !== 'Completed');
  if (reason) view.reason = reason;
  return view;
}

const byNamespaceAndName = (a: PodView, b: PodView): number =>
  a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);

/** The pods on a node once (no watch), for callers that need a single answer. */
export async function listPodsOfNode(
  client: KubeClient,
  nodeName: string,
  errorContext: ErrorContext = {},
): Promise<PodView[] | ClusterErrorItem> {
  try {
    const pods = await listAll<V1Pod>(client, '/api/v1/pods', nodePodsSelector(nodeName), undefined, POD_PAGE_SIZE);
    return pods.map(podView).sort(byNamespaceAndName);
  } catch (err) {
    return classifyError(err, { ...errorContext, what: `pods of node ${nodeName}` });
  }
}

/** The pod objects on a node, status included (what runs there as HostProcess pods: kube-proxy on kubeadm nodes). */
export async function listPodObjectsOfNode(
  client: KubeClient,
  nodeName: string,
  errorContext: ErrorContext = {},
): Promise<V1Pod[] | ClusterErrorItem> {
  try {
    return await listAll<V1Pod>(client, '/api/v1/pods', nodePodsSelector(nodeName), undefined, POD_PAGE_SIZE);
  } catch (err) {
    return classifyError(err, { ...errorContext, what: `pods of node ${nodeName}` });
  }
}

/** What explanations know of a node, from its view (the tree has views, not Node objects). */
export function nodeFactsOfView(n: WindowsNodeView): NodeFacts {
  const facts: NodeFacts = {
    name: n.name,
    os: 'windows',
    labels: n.labels,
    taints: n.taints,
    conditions: n.conditions,
  };
  if (n.build) facts.build = n.build;
  return facts;
}

export interface NodePodWatchOptions {
  errorContext?: ErrorContext;
  watchTimeoutSeconds?: number;
  retryMs?: number;
  pageSize?: number;
}

/**
 * Emits 'change' after the first list for every change of the node's pods (a list after 410 Gone
 * included), a failure ('error') and a recovery; `start()` resolves after the first list or its failure.
 */
export class NodePodWatch extends EventEmitter<{ change: [PodChange] }> {
  private readonly byKey = new Map<string, PodEntry & { key: string }>();
  private readonly source: ListWatch<V1Pod>;
  private ready = false;
  /** The last failure, cleared by the next success. */
  error: ClusterErrorItem | undefined;

  constructor(
    client: KubeClient,
    readonly nodeName: string,
    options: NodePodWatchOptions = {},
  ) {
    super();
    const what = `pods of node ${nodeName}`;
    this.source = new ListWatch<V1Pod>(
      client,
      {
        path: '/api/v1/pods',
        selector: nodePodsSelector(nodeName),
        pageSize: options.pageSize ?? POD_PAGE_SIZE,
        watchTimeoutSeconds: options.watchTimeoutSeconds,
        retryMs: options.retryMs,
      },
      {
        listed: (items) => {
          this.error = undefined;
          this.byKey.clear();
          for (const pod of items) this.upsert(pod);
          this.changed({ type: 'listed' });
        },
        event: (type, pod) => {
          const changed = type === 'DELETED' ? this.byKey.delete(keyOf(pod)) : this.upsert(pod);
          if (changed) this.changed({ type: 'changed' });
        },
        failed: (err) => {
          this.error = watchFailure(err, { ...options.errorContext, what });
          this.changed({ type: 'error', error: this.error });
        },
        recovered: () => {
          this.error = undefined;
          this.changed({ type: 'changed' });
        },
      },
    );
  }

  /** Number of complete lists made (1 after start, +1 per 410 Gone). */
  get lists(): number {
    return this.source.lists;
  }

  get stopped(): boolean {
    return this.source.stopped;
  }

  async start(): Promise<void> {
    await this.source.start();
    this.ready = true;
  }

  stop(): void {
    this.source.stop();
    this.removeAllListeners();
  }

  /** The pods, by namespace and name. */
  pods(): PodEntry[] {
    return [...this.byKey.values()]
      .map(({ view, pod }) => ({ view, pod }))
      .sort((a, b) => byNamespaceAndName(a.view, b.view));
  }

  private changed(c: PodChange): void {
    // Before the first list is in, the caller is waiting for start(): nothing has changed for it yet.
    if (this.ready) this.emit('change', c);
  }

  /** True when what the pod shows changed (a new resourceVersion alone, or managedFields, is no change). */
  private upsert(pod: V1Pod): boolean {
    const view = podView(pod);
    if (!view.name) return false;
    const kept: V1Pod = { ...pod, metadata: { ...pod.metadata, managedFields: undefined } };
    const key = JSON.stringify([view, pod.status, pod.spec?.containers?.map((c) => c.image)]);
    const k = keyOf(pod);
    if (this.byKey.get(k)?.key === key) return false;
    this.byKey.set(k, { view, pod: kept, key });
    return true;
  }
}

const keyOf = (pod: V1Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
