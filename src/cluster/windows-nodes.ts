// The Windows nodes of one cluster: one server-side filtered list (kubernetes.io/os=windows), then a
// watch from the list's resourceVersion; a re-list only on 410 Gone. Change events name the node that
// changed so a tree refreshes only that item.
import type { V1Node, V1NodeList, V1Pod, V1PodList } from '@kubernetes/client-node';
import { EventEmitter } from 'node:events';
import type { Taint } from '../core/rules/facts';
import { buildByNumber, parseBuildLabel } from '../core/windows/builds';
import { ApiError, classifyError, type ClusterErrorItem, type ErrorContext } from './errors';
import type { KubeClient, WatchHandle } from './client';
import { BUILD_LABEL, BYOH_LABEL, REBOOT_REQUIRED_ANNOTATION, WINDOWS_SELECTOR, WMCO_DESIRED_VERSION_ANNOTATION, WMCO_UPGRADING_LABEL, WMCO_VERSION_ANNOTATION } from '../core/well-known';

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface WindowsNodeView {
  name: string;
  /** Ready condition: true, false, or undefined when unknown. */
  ready: boolean | undefined;
  conditions: NodeCondition[];
  /** Conditions in a bad state (Ready not True, pressure conditions True), as short texts. */
  problems: string[];
  /** `node.kubernetes.io/windows-build` value, e.g. 10.0.20348. */
  build?: string;
  buildNumber?: number;
  /** "Windows Server 2022", or "Windows build 10.0.x" for an unknown build. */
  windowsVersion?: string;
  osImage?: string;
  kernelVersion?: string;
  kubeletVersion?: string;
  containerRuntimeVersion?: string;
  provisioning: 'byoh' | 'machine';
  wmco: { version?: string; desiredVersion?: string; upgrading: boolean; rebootRequired: boolean };
  taints: Taint[];
  cordoned: boolean;
  addresses: { type: string; address: string }[];
  labels: Record<string, string>;
}

/** Pure: the view of one Node object. Heartbeat times are left out so that a heartbeat is no change. */
export function windowsNodeView(node: V1Node): WindowsNodeView {
  const labels = node.metadata?.labels ?? {};
  const annotations = node.metadata?.annotations ?? {};
  const conditions: NodeCondition[] = (node.status?.conditions ?? []).map((c) => {
    const out: NodeCondition = { type: c.type, status: c.status };
    if (c.reason) out.reason = c.reason;
    if (c.message) out.message = c.message;
    return out;
  });
  const readyCond = conditions.find((c) => c.type === 'Ready');
  const ready = readyCond ? (readyCond.status === 'True' ? true : readyCond.status === 'False' ? false : undefined) : undefined;
  const problems: string[] = [];
  for (const c of conditions) {
    if (c.type === 'Ready' ? c.status !== 'True' : c.status === 'True') problems.push(c.type === 'Ready' ? `Not ready${c.reason ? ` (${c.reason})` : ''}` : c.type);
  }
  const build = labels[BUILD_LABEL];
  const parsed = parseBuildLabel(build);
  const info = node.status?.nodeInfo;
  const version = annotations[WMCO_VERSION_ANNOTATION];
  const desiredVersion = annotations[WMCO_DESIRED_VERSION_ANNOTATION];
  const view: WindowsNodeView = {
    name: node.metadata?.name ?? '',
    ready,
    conditions,
    problems,
    provisioning: labels[BYOH_LABEL] === 'true' ? 'byoh' : 'machine',
    wmco: {
      upgrading: labels[WMCO_UPGRADING_LABEL] === 'true' || (desiredVersion !== undefined && version !== desiredVersion),
      rebootRequired: REBOOT_REQUIRED_ANNOTATION in annotations,
    },
    taints: (node.spec?.taints ?? []).map((t) => (t.value !== undefined && t.value !== '' ? { key: t.key, value: t.value, effect: t.effect } : { key: t.key, effect: t.effect })),
    cordoned: node.spec?.unschedulable === true,
    addresses: (node.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    labels: { ...labels },
  };
  if (version !== undefined) view.wmco.version = version;
  if (desiredVersion !== undefined) view.wmco.desiredVersion = desiredVersion;
  if (build) view.build = build;
  if (parsed) {
    view.buildNumber = parsed.build;
    view.windowsVersion = windowsVersionName(parsed.build);
  }
  if (info?.osImage) view.osImage = info.osImage;
  if (info?.kernelVersion) view.kernelVersion = info.kernelVersion;
  if (info?.kubeletVersion) view.kubeletVersion = info.kubeletVersion;
  if (info?.containerRuntimeVersion) view.containerRuntimeVersion = info.containerRuntimeVersion;
  return view;
}

/** "Windows Server 2022" for 20348 (the marketing name without the release id). */
function windowsVersionName(build: number): string {
  const known = buildByNumber(build);
  return known ? known.name.replace(/\s*\((\d{4}|SAC)\)$/, '') : `Windows build 10.0.${build}`;
}

export type NodeChange = { type: 'added' | 'modified'; name: string; node: WindowsNodeView } | { type: 'removed'; name: string } | { type: 'error'; error: ClusterErrorItem } | { type: 'synced' };

export interface PodView {
  namespace: string;
  name: string;
  phase?: string;
  ready: boolean;
  restarts: number;
  images: string[];
}

export interface WindowsNodeModelOptions {
  /** Errors name this context and server. */
  errorContext?: ErrorContext;
  /** Seconds the server keeps one watch open before we resume it. Default 300. */
  watchTimeoutSeconds?: number;
  /** First retry delay after a failed watch; doubles up to 30 s. Default 1000. */
  retryMs?: number;
}

/**
 * Emits 'change' with a NodeChange. `start()` resolves after the first list (or its failure, which is
 * then in `error` and emitted as an 'error' change rather than thrown).
 */
export class WindowsNodeModel extends EventEmitter<{ change: [NodeChange] }> {
  private readonly byName = new Map<string, { view: WindowsNodeView; key: string }>();
  private resourceVersion = '';
  private handle: WatchHandle | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private stopped = false;
  private started: Promise<void> | undefined;
  /** The last failure, cleared by the next success. */
  error: ClusterErrorItem | undefined;
  /** Number of full lists made (1 after start, +1 per 410 Gone). */
  lists = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly options: WindowsNodeModelOptions = {},
  ) {
    super();
    this.retryDelay = options.retryMs ?? 1000;
  }

  start(): Promise<void> {
    this.started ??= this.list();
    return this.started;
  }

  nodes(): WindowsNodeView[] {
    return [...this.byName.values()].map((e) => e.view).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): WindowsNodeView | undefined {
    return this.byName.get(name)?.view;
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
    this.handle = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Pods scheduled on one node, asked of the server with a field selector (never a cluster-wide list). */
  async pods(nodeName: string): Promise<PodView[] | ClusterErrorItem> {
    try {
      const list = await this.client.get<V1PodList>('/api/v1/pods', { fieldSelector: `spec.nodeName=${nodeName}` });
      return list.items.map(podView).sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    } catch (err) {
      return classifyError(err, { ...this.options.errorContext, what: `pods of node ${nodeName}` });
    }
  }

  private async list(): Promise<void> {
    try {
      const list = await this.client.get<V1NodeList>('/api/v1/nodes', { labelSelector: WINDOWS_SELECTOR });
      if (this.stopped) return;
      this.lists++;
      this.error = undefined;
      this.retryDelay = this.options.retryMs ?? 1000;
      const seen = new Set<string>();
      for (const node of list.items) {
        const name = node.metadata?.name;
        if (!name) continue;
        seen.add(name);
        this.upsert(node);
      }
      for (const name of [...this.byName.keys()]) {
        if (!seen.has(name)) {
          this.byName.delete(name);
          this.emit('change', { type: 'removed', name });
        }
      }
      this.resourceVersion = list.metadata?.resourceVersion ?? '';
      this.emit('change', { type: 'synced' });
      this.watch();
    } catch (err) {
      if (this.stopped) return;
      this.fail(err);
      this.retry(() => this.list());
    }
  }

  private watch(): void {
    if (this.stopped) return;
    const query = {
      labelSelector: WINDOWS_SELECTOR,
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: this.options.watchTimeoutSeconds ?? 300,
    };
    let gone = false;
    const idleMs = (query.timeoutSeconds + 60) * 1000;
    this.handle = this.client.watch<V1Node>(
      '/api/v1/nodes',
      query,
      (event) => {
        const rv = event.object?.metadata?.resourceVersion;
        switch (event.type) {
          case 'ADDED':
          case 'MODIFIED':
            this.upsert(event.object);
            break;
          case 'DELETED': {
            const name = event.object.metadata?.name;
            if (name && this.byName.delete(name)) this.emit('change', { type: 'removed', name });
            break;
          }
          case 'BOOKMARK':
            break;
          case 'ERROR': {
            const status = event.object as unknown as { code?: number };
            if (status.code === 410) gone = true;
            return;
          }
        }
        if (rv) this.resourceVersion = rv;
        this.retryDelay = this.options.retryMs ?? 1000;
        if (this.error) {
          this.error = undefined;
          this.emit('change', { type: 'synced' });
        }
      },
      (err) => {
        this.handle = undefined;
        if (this.stopped) return;
        if (gone || (err instanceof ApiError && err.status === 410)) {
          void this.list();
        } else if (err) {
          this.fail(err);
          this.retry(() => this.watch());
        } else {
          this.watch(); // the server closed a watch at its timeout: resume from the last version
        }
      },
      idleMs,
    );
  }

  private upsert(node: V1Node): void {
    const view = windowsNodeView(node);
    if (!view.name) return;
    const key = JSON.stringify(view);
    const old = this.byName.get(view.name);
    if (old && old.key === key) return;
    this.byName.set(view.name, { view, key });
    this.emit('change', { type: old ? 'modified' : 'added', name: view.name, node: view });
  }

  private fail(err: unknown): void {
    this.error = classifyError(err, { ...this.options.errorContext, what: 'Windows nodes' });
    this.emit('change', { type: 'error', error: this.error });
  }

  private retry(fn: () => void | Promise<void>): void {
    if (this.stopped) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void fn();
    }, delay);
    this.retryTimer.unref?.();
  }
}

function podView(pod: V1Pod): PodView {
  const statuses = pod.status?.containerStatuses ?? [];
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    phase: pod.status?.phase,
    ready: statuses.length > 0 && statuses.every((s) => s.ready),
    restarts: statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0),
    images: (pod.spec?.containers ?? []).map((c) => c.image ?? ''),
  };
}
