// The Windows nodes of one cluster: one server-side filtered list (kubernetes.io/os=windows), then a
// watch from the list's resourceVersion; a re-list on 410 Gone or after a failure (list-watch.ts). Change events name the node that
// changed so a tree refreshes only that item.
import type { V1Node } from '@kubernetes/client-node';
import { EventEmitter } from 'node:events';
import type { Taint } from '../core/rules/facts';
import { buildByNumber, parseBuildLabel } from '../core/windows/builds';
import type { ClusterErrorItem, ErrorContext } from './errors';
import type { KubeClient } from './kube-client';
import { ListWatch, watchFailure } from './list-watch';
import {
  BUILD_LABEL,
  BYOH_LABEL,
  REBOOT_REQUIRED_ANNOTATION,
  WINDOWS_SELECTOR,
  WMCO_DESIRED_VERSION_ANNOTATION,
  WMCO_UPGRADING_LABEL,
  WMCO_VERSION_ANNOTATION,
} from '../core/well-known';

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
  const ready = readyCond
    ? readyCond.status === 'True'
      ? true
      : readyCond.status === 'False'
        ? false
        : undefined
    : undefined;
  const problems: string[] = [];
  for (const c of conditions) {
    if (c.type === 'Ready' ? c.status !== 'True' : c.status === 'True')
      problems.push(c.type === 'Ready' ? `Not ready${c.reason ? ` (${c.reason})` : ''}` : c.type);
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
      upgrading:
        labels[WMCO_UPGRADING_LABEL] === 'true' || (desiredVersion !== undefined && version !== desiredVersion),
      rebootRequired: REBOOT_REQUIRED_ANNOTATION in annotations,
    },
    taints: (node.spec?.taints ?? []).map((t) =>
      t.value !== undefined && t.value !== ''
        ? { key: t.key, value: t.value, effect: t.effect }
        : { key: t.key, effect: t.effect },
    ),
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

export type NodeChange =
  | { type: 'added' | 'modified'; name: string; node: WindowsNodeView }
  | { type: 'removed'; name: string }
  | { type: 'error'; error: ClusterErrorItem }
  | { type: 'synced' };

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
  private readonly source: ListWatch<V1Node>;
  /** The last failure, cleared by the next success. */
  error: ClusterErrorItem | undefined;

  constructor(client: KubeClient, options: WindowsNodeModelOptions = {}) {
    super();
    this.source = new ListWatch<V1Node>(
      client,
      {
        path: '/api/v1/nodes',
        selector: { labelSelector: WINDOWS_SELECTOR },
        watchTimeoutSeconds: options.watchTimeoutSeconds,
        retryMs: options.retryMs,
      },
      {
        listed: (items) => this.listed(items),
        event: (type, node) => {
          if (type !== 'DELETED') return this.upsert(node);
          const name = node.metadata?.name;
          if (name && this.byName.delete(name)) this.emit('change', { type: 'removed', name });
        },
        failed: (err) => {
          this.error = watchFailure(err, { ...options.errorContext, what: 'Windows nodes' });
          this.emit('change', { type: 'error', error: this.error });
        },
        recovered: () => {
          this.error = undefined;
          this.emit('change', { type: 'synced' });
        },
      },
    );
  }

  /** Number of full lists made (1 after start, +1 per 410 Gone). */
  get lists(): number {
    return this.source.lists;
  }

  start(): Promise<void> {
    return this.source.start();
  }

  nodes(): WindowsNodeView[] {
    return [...this.byName.values()].map((e) => e.view).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): WindowsNodeView | undefined {
    return this.byName.get(name)?.view;
  }

  stop(): void {
    this.source.stop();
  }

  private listed(items: V1Node[]): void {
    this.error = undefined;
    const seen = new Set<string>();
    for (const node of items) {
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
    this.emit('change', { type: 'synced' });
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
}

/** One row of a node's services (kubelet, containerd, ...), as read over SSH. */
export interface ServiceRow {
  name: string;
  exists: boolean;
  status: string | null;
  startType?: string | null;
}

/** What a read of a node's services answers: the rows, "connect first" (no usable SSH credentials), or a failure. */
export type NodeServicesAnswer = { services: ServiceRow[] } | { connect: string } | { error: string };
