// What the pod and node actions decide without the network: which workload a pod's "Restart" acts
// on (a rollout restart exists for Deployments, DaemonSets and StatefulSets only), the patch that
// restarts it (the annotation `kubectl rollout restart` sets), and a node's taints as edited text
// (the API server's validation: a qualified-name key, a label-value value, a known effect, unique by
// key and effect). The calls are in cluster/pod-actions.ts.
import type { Taint } from './rules/facts';
import { rfc3339 } from './node-log-query';

export interface OwnerRef {
  kind: string;
  name: string;
  controller?: boolean;
}

/** What a pod's controller says about restarting: the next object to read, or why there is nothing to restart. */
export type RestartStep =
  { read: { kind: 'ReplicaSet' | 'Deployment' | 'DaemonSet' | 'StatefulSet'; name: string } } | { refuse: string };

export const RESTARTABLE = ['Deployment', 'DaemonSet', 'StatefulSet'] as const;
export type RestartableKind = (typeof RESTARTABLE)[number];

const controllerOf = (owners: readonly OwnerRef[] | undefined): OwnerRef | undefined =>
  (owners ?? []).find((o) => o.controller === true);

/** The first step from a pod to the workload a rollout restart acts on. */
export function restartStepOfPod(pod: string, owners: readonly OwnerRef[] | undefined): RestartStep {
  const c = controllerOf(owners);
  if (!c)
    return {
      refuse: `${pod} is a bare pod (no controller owns it): there is no workload to restart. Delete it and create it again instead.`,
    };
  if (c.kind === 'ReplicaSet' || c.kind === 'DaemonSet' || c.kind === 'StatefulSet')
    return { read: { kind: c.kind, name: c.name } };
  if (c.kind === 'Job')
    return {
      refuse: `${pod} belongs to Job ${c.name}: a Job cannot be rollout-restarted (its pods run to completion). Delete the Job and create it again to run it anew.`,
    };
  return {
    refuse: `${pod} is controlled by ${c.kind} ${c.name}: only Deployments, DaemonSets and StatefulSets have a rollout restart.`,
  };
}

/** From a ReplicaSet to its Deployment; a ReplicaSet of its own is refused as kubectl refuses it. */
export function restartStepOfReplicaSet(name: string, owners: readonly OwnerRef[] | undefined): RestartStep {
  const c = controllerOf(owners);
  if (c?.kind === 'Deployment') return { read: { kind: 'Deployment', name: c.name } };
  return {
    refuse: `ReplicaSet ${name} is not managed by a Deployment: a ReplicaSet has no rollout restart. Delete its pods to have them created again.`,
  };
}

/** The annotation a rollout restart sets on the pod template (a new value rolls the pods). */
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** The patch of a rollout restart (valid as a merge patch and as a strategic merge patch). */
export function restartPatch(now: Date): { spec: { template: { metadata: { annotations: Record<string, string> } } } } {
  return { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: rfc3339(now) } } } } };
}

// ---------------------------------------------------------------------------------------------
// Taints

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/** `key=value:Effect` (or `key:Effect`), as kubectl taint writes them. */
export function taintText(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why a taint key is not a qualified name (prefix/name), or undefined. */
export function keyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `the key "${key}" has more than one "/"`;
  const name = parts[parts.length - 1] ?? '';
  const prefix = parts.length === 2 ? parts[0] : undefined;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `the key prefix "${prefix}" is not a DNS subdomain`;
  if (name.length === 0 || name.length > 63 || !NAME.test(name))
    return `the key "${key}" must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  return undefined;
}

/** Parses one `key[=value]:Effect`; an error message instead when the API server would refuse it. */
export function parseTaint(text: string): Taint | { error: string } {
  const t = text.trim();
  const colon = t.lastIndexOf(':');
  if (colon < 0)
    return { error: `"${t}" has no effect: write key=value:Effect (Effect is ${TAINT_EFFECTS.join(', ')})` };
  const effect = t.slice(colon + 1);
  const kv = t.slice(0, colon);
  const eq = kv.indexOf('=');
  const key = eq < 0 ? kv : kv.slice(0, eq);
  const value = eq < 0 ? '' : kv.slice(eq + 1);
  if (!(TAINT_EFFECTS as readonly string[]).includes(effect))
    return { error: `"${effect}" is not a taint effect: use ${TAINT_EFFECTS.join(', ')}` };
  const bad = keyProblem(key);
  if (bad) return { error: bad };
  if (value && (value.length > 63 || !NAME.test(value)))
    return {
      error: `the value "${value}" must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`,
    };
  return { key, ...(value ? { value } : {}), effect };
}

/**
 * The taints of an edited text (one a line or comma-separated; blank lines and `#` comments
 * ignored): the list, or the first problem. Two taints with the same key and effect are refused, as
 * the API server refuses them.
 */
export function parseTaints(text: string): { taints: Taint[] } | { error: string } {
  const taints: Taint[] = [];
  const seen = new Set<string>();
  const items = text
    .split('\n')
    .map((l) => l.replace(/#.*$/, ''))
    .flatMap((l) => l.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    const t = parseTaint(item);
    if ('error' in t) return t;
    const id = `${t.key}\u0000${t.effect}`;
    if (seen.has(id)) return { error: `${t.key}:${t.effect} appears twice: a node has one taint per key and effect` };
    seen.add(id);
    taints.push(t);
  }
  return { taints };
}

/** What changed between two taint lists, for the confirmation: added and removed texts. */
export function taintChanges(
  before: readonly Taint[],
  after: readonly Taint[],
): { added: string[]; removed: string[] } {
  const a = new Set(before.map(taintText));
  const b = new Set(after.map(taintText));
  return { added: [...b].filter((x) => !a.has(x)), removed: [...a].filter((x) => !b.has(x)) };
}
