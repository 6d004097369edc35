// The pods list as `kube-windows pods` (and `kubectl windows pods`) prints it: kubectl's columns for pods
// (NAME READY STATUS RESTARTS AGE; NAMESPACE first for every namespace; -o wide adds IP, NODE, NOMINATED
// NODE and READINESS GATES), STATUS worded as kubectl words it (a waiting or ended container's reason,
// Init:…, Terminating), `-o name`, and a v1 List for -o json|yaml. Which pods are listed is the caller's.
import { humanAge } from './node-listing';
import { OS_LABEL } from './well-known';

interface ContainerState {
  waiting?: { reason?: string };
  running?: { startedAt?: string };
  terminated?: { reason?: string; exitCode?: number; signal?: number; finishedAt?: string };
}

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

/** The fields of a Pod the listing reads (the API's objects have more, kept as they are for -o json|yaml). */
export interface ListedPod {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string; deletionTimestamp?: string };
  spec?: {
    nodeName?: string;
    os?: { name?: string };
    nodeSelector?: Record<string, string>;
    containers?: unknown[];
    initContainers?: unknown[];
    readinessGates?: { conditionType?: string }[];
  };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    nominatedNodeName?: string;
    conditions?: { type?: string; status?: string }[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export const POD_OUTPUTS = ['wide', 'json', 'yaml', 'name'] as const;

/** kubectl's STATUS: the pod's reason, an init container's progress, a container's reason, Terminating. */
export function podStatus(pod: ListedPod): string {
  let reason = pod.status?.reason || pod.status?.phase || 'Unknown';
  const inits = pod.status?.initContainerStatuses ?? [];
  const initTotal = pod.spec?.initContainers?.length ?? inits.length;
  let initializing = false;
  for (const [i, s] of inits.entries()) {
    const t = s.state?.terminated;
    if (t && t.exitCode === 0) continue;
    initializing = true;
    if (t) reason = `Init:${t.reason || (t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode ?? 0}`)}`;
    else if (s.state?.waiting?.reason && s.state.waiting.reason !== 'PodInitializing')
      reason = `Init:${s.state.waiting.reason}`;
    else reason = `Init:${i}/${initTotal}`;
    break;
  }
  if (!initializing) {
    let running = false;
    // The last container with something to say decides, as kubectl reads them (from the end).
    for (const s of [...(pod.status?.containerStatuses ?? [])].reverse()) {
      const t = s.state?.terminated;
      if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
      else if (t) reason = t.reason || (t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode ?? 0}`);
      else if (s.ready && s.state?.running) running = true;
    }
    if (reason === 'Completed' && running) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      reason = ready ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp) reason = pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

/** kubectl's RESTARTS: the containers' restarts, with how long ago the last one ended ("2 (5m ago)"). */
export function podRestarts(pod: ListedPod, now: number): string {
  const statuses = pod.status?.containerStatuses ?? [];
  const count = statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
  const last = Math.max(
    ...statuses.map((s) => Date.parse(s.lastState?.terminated?.finishedAt ?? '')).filter((t) => !Number.isNaN(t)),
  );
  return count > 0 && Number.isFinite(last) ? `${count} (${humanAge(now - last)} ago)` : String(count);
}

/** The table's rows, header first, one pod per row, by namespace and name. */
export function podTable(
  pods: readonly ListedPod[],
  now: number,
  opts: { wide: boolean; allNamespaces: boolean },
): string[][] {
  const header = ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'];
  if (opts.allNamespaces) header.unshift('NAMESPACE');
  if (opts.wide) header.push('IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES');
  const rows = sortedPods(pods).map((pod) => {
    const statuses = pod.status?.containerStatuses ?? [];
    const created = Date.parse(pod.metadata?.creationTimestamp ?? '');
    const row = [
      pod.metadata?.name ?? '',
      `${statuses.filter((s) => s.ready).length}/${pod.spec?.containers?.length ?? statuses.length}`,
      podStatus(pod),
      podRestarts(pod, now),
      Number.isNaN(created) ? '<unknown>' : humanAge(now - created),
    ];
    if (opts.allNamespaces) row.unshift(pod.metadata?.namespace ?? '');
    if (opts.wide) {
      const gates = pod.spec?.readinessGates ?? [];
      const met = gates.filter(
        (g) => pod.status?.conditions?.find((c) => c.type === g.conditionType)?.status === 'True',
      ).length;
      row.push(
        pod.status?.podIP || '<none>',
        pod.spec?.nodeName || '<none>',
        pod.status?.nominatedNodeName || '<none>',
        gates.length ? `${met}/${gates.length}` : '<none>',
      );
    }
    return row;
  });
  return [header, ...rows];
}

/** `-o name`: pod/NAME per line. */
export function podNames(pods: readonly ListedPod[]): string {
  return sortedPods(pods)
    .map((p) => `pod/${p.metadata?.name ?? ''}`)
    .join('\n');
}

/** A pod as kubectl prints it in a list or a watch: apiVersion and kind set, managedFields left out. */
export function printedPod(pod: ListedPod): Record<string, unknown> {
  const { managedFields: _managed, ...metadata } = (pod.metadata ?? {}) as Record<string, unknown>;
  return { apiVersion: 'v1', kind: 'Pod', ...pod, metadata };
}

/** -o json|yaml: a v1 List, as kubectl prints a list of pods. */
export function podList(pods: readonly ListedPod[]): { apiVersion: 'v1'; kind: 'List'; items: unknown[] } & {
  metadata: { resourceVersion: string };
} {
  return { apiVersion: 'v1', kind: 'List', items: sortedPods(pods).map(printedPod), metadata: { resourceVersion: '' } };
}

function sortedPods(pods: readonly ListedPod[]): ListedPod[] {
  // The API server's order: namespace, then name, as bytes.
  const key = (p: ListedPod) => `${p.metadata?.namespace ?? ''}\u0000${p.metadata?.name ?? ''}`;
  return [...pods].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Whether `pod` is a Windows pod: it runs on one of the Windows nodes named, or, not yet scheduled, asks for
 * Windows (spec.os.name, or a kubernetes.io/os=windows node selector).
 */
export function isWindowsPod(pod: ListedPod, windowsNodes: ReadonlySet<string>): boolean {
  const node = pod.spec?.nodeName;
  if (node) return windowsNodes.has(node);
  return pod.spec?.os?.name === 'windows' || pod.spec?.nodeSelector?.[OS_LABEL] === 'windows';
}
