// What a drain does with the pods of a node, as `kubectl drain --ignore-daemonsets` decides it:
// which pods it leaves, which lose emptyDir data, which PodDisruptionBudgets select a pod, and what
// the API server said when it refused an eviction. Pure: the calls are in cluster/pods.ts.

export interface DrainPod {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
    deletionTimestamp?: string;
  };
  spec?: { nodeName?: string; volumes?: { name: string; emptyDir?: unknown }[] };
  status?: { phase?: string };
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface DrainPdb {
  metadata: { name: string; namespace?: string };
  spec?: { selector?: LabelSelector };
}

export const podName = (p: DrainPod): string => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;

/** What `kubectl drain --ignore-daemonsets` leaves alone: DaemonSet pods and static (mirror) pods. */
export function drainSkipReason(p: DrainPod): string | undefined {
  if (p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return 'a static (mirror) pod';
  if ((p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' && o.controller !== false))
    return 'a DaemonSet pod';
  return undefined;
}

const usesEmptyDir = (p: DrainPod): boolean => (p.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined);

/** The pods a drain must remove, and the ones it leaves (namespace/name (why)). */
export function drainPlan(pods: readonly DrainPod[]): { evict: DrainPod[]; skipped: string[] } {
  const evict: DrainPod[] = [];
  const skipped: string[] = [];
  for (const p of pods) {
    const why = drainSkipReason(p);
    if (why) skipped.push(`${podName(p)} (${why})`);
    else evict.push(p);
  }
  return { evict, skipped };
}

/** The evicted pods whose emptyDir data would be lost (namespace/name), for the question before a drain. */
export function emptyDirLosses(evict: readonly DrainPod[]): string[] {
  return evict.filter((p) => usesEmptyDir(p) && !p.metadata.deletionTimestamp).map(podName);
}

/** A LabelSelector against labels; a missing selector matches nothing, an empty one every pod (policy/v1). */
export function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key] as string);
    if (
      (e.operator === 'In' && !inValues) ||
      (e.operator === 'NotIn' && inValues) ||
      (e.operator === 'Exists' && !has) ||
      (e.operator === 'DoesNotExist' && has)
    )
      return false;
  }
  return true;
}

/** namespace/name of the budgets that select a pod. */
export function budgetsSelecting(pdbs: readonly DrainPdb[], pod: DrainPod): string[] {
  return pdbs
    .filter((b) => selectorMatches(b.spec?.selector, pod.metadata.labels ?? {}))
    .map((b) => `${b.metadata.namespace ?? pod.metadata.namespace ?? ''}/${b.metadata.name}`);
}

/**
 * The budget named in a refused eviction's (429) details.causes ("The disruption budget web needs 2 healthy pods ...").
 */
export function evictionRefusal(
  body: { message?: string; details?: { causes?: { reason?: string; message?: string }[] } } | undefined,
  fallback: string,
): { pdb?: string; message: string } {
  const causes = (body?.details?.causes ?? []).filter((c) => c.message);
  const message = causes.map((c) => c.message as string).join('; ') || (body?.message ?? fallback);
  const pdb = /disruption budget (\S+)/.exec(message)?.[1];
  return { ...(pdb ? { pdb } : {}), message };
}
