// Node objects through the API: read, find a Windows node by address, cordon, taint, annotate, delete.
// The paths are in one place so that a plan's dry run shows exactly what its steps send.
import { WINDOWS_SELECTOR } from '../core/well-known';
import { addressProblem } from '../core/windows/join-input';
import { enc, getOrUndefined, type ApiCall, type Meta } from './api';
import type { KubeClient } from './kube-client';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: string;
}

export interface NodeObject {
  metadata: Meta;
  spec?: { taints?: NodeTaint[]; unschedulable?: boolean; providerID?: string };
  status?: {
    addresses?: { type: string; address: string }[];
    conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
    nodeInfo?: { kubeletVersion?: string; osImage?: string };
  };
}

export const nodePath = (name: string): string => `/api/v1/nodes/${enc(name)}`;
/** A call on one node, for previews (the name may be a placeholder such as <node>, so it is shown as given). */
export const nodeCall = (verb: ApiCall['verb'], name: string, body?: unknown): ApiCall => ({
  verb,
  path: `/api/v1/nodes/${name}`,
  ...(body === undefined ? {} : { body }),
});
/** What the Windows node list asks (for previews). */
export const WINDOWS_NODES_CALL: ApiCall = { verb: 'GET', path: `/api/v1/nodes?labelSelector=${WINDOWS_SELECTOR}` };

export async function getNode(kube: KubeClient, name: string, signal?: AbortSignal): Promise<NodeObject | undefined> {
  return getOrUndefined<NodeObject>(kube, nodePath(name), signal);
}

/** The Windows nodes (one server-side filtered list). */
export async function windowsNodes(kube: KubeClient, signal?: AbortSignal): Promise<NodeObject[]> {
  const list = await kube.get<{ items?: NodeObject[] }>('/api/v1/nodes', { labelSelector: WINDOWS_SELECTOR }, signal);
  return list.items ?? [];
}

/**
 * Calls `onChange` on each change of a Windows Node, from a watch (the tree's source of truth), until the returned
 * function is called. Best effort: a follow step polls as well, so a watch that fails is reopened after a second and
 * a client without watches (a test's stand-in) just adds nothing.
 */
export function onWindowsNodeChange(kube: KubeClient, onChange: () => void): () => void {
  if (typeof (kube as Partial<KubeClient>).watch !== 'function') return () => undefined;
  let stopped = false;
  let handle: { stop(): void } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = (): void => {
    try {
      handle = kube.watch(
        '/api/v1/nodes',
        { labelSelector: WINDOWS_SELECTOR },
        () => onChange(),
        () => {
          if (stopped) return;
          timer = setTimeout(open, 1000);
          timer.unref?.();
        },
      );
    } catch {
      handle = undefined;
    }
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    handle?.stop();
  };
}

/** The Windows Node whose addresses include `address`, or whose name is `name`. */
export async function findNode(
  kube: KubeClient,
  address: string,
  name: string | undefined,
  signal?: AbortSignal,
): Promise<NodeObject | undefined> {
  const items = await windowsNodes(kube, signal);
  return (
    items.find((n) => (n.status?.addresses ?? []).some((a) => a.address === address)) ??
    (name ? items.find((n) => n.metadata.name === name) : undefined)
  );
}

/** The address to reach a node over SSH: InternalIP, else the first address that is not a host name ('' if none). */
export function reachableAddress(node: NodeObject): string {
  // Node status is written by whoever may patch it: only an IP address or a DNS name is used.
  const addresses = (node.status?.addresses ?? []).filter(
    (a) => typeof a.address === 'string' && addressProblem(a.address, 'kubeadm') === undefined,
  );
  return (
    addresses.find((a) => a.type === 'InternalIP')?.address ??
    addresses.find((a) => a.type !== 'Hostname')?.address ??
    ''
  );
}

export function isReady(node: NodeObject): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

export function readyCondition(
  node: NodeObject | undefined,
): { status: string; lastTransitionTime?: string } | undefined {
  return (node?.status?.conditions ?? []).find((c) => c.type === 'Ready');
}

export function readyMessage(node: NodeObject): string {
  const c = (node.status?.conditions ?? []).find((x) => x.type === 'Ready');
  return c
    ? `Ready=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`
    : 'no Ready condition yet';
}

/** spec.unschedulable as `kubectl cordon` / `uncordon` set it (uncordon removes the field). */
export function cordonCall(name: string, cordon: boolean): ApiCall {
  return { verb: 'PATCH', path: nodePath(name), body: { spec: { unschedulable: cordon ? true : null } } };
}

export async function setCordoned(
  kube: KubeClient,
  name: string,
  cordon: boolean,
  signal?: AbortSignal,
): Promise<void> {
  await kube.patch(nodePath(name), cordonCall(name, cordon).body, 'merge', signal);
}

/** Sets (a string) or removes (null) annotations of a node, leaving the others. */
export async function annotateNode(
  kube: KubeClient,
  name: string,
  annotations: Record<string, string | null>,
  signal?: AbortSignal,
): Promise<void> {
  await kube.patch(nodePath(name), { metadata: { annotations } }, 'merge', signal);
}

/** Uncordons and removes annotations in one patch (the end of an operation that cordoned the node). */
export async function uncordonAndAnnotate(
  kube: KubeClient,
  name: string,
  annotations: Record<string, string | null>,
  signal?: AbortSignal,
): Promise<void> {
  await kube.patch(nodePath(name), { spec: { unschedulable: null }, metadata: { annotations } }, 'merge', signal);
}

export function hasTaint(node: NodeObject, taint: NodeTaint): boolean {
  return (node.spec?.taints ?? []).some(
    (t) => t.key === taint.key && (t.value ?? '') === (taint.value ?? '') && t.effect === taint.effect,
  );
}

/**
 * Sets a taint, keeping the node's others (taints is a list: a merge patch replaces it whole). Taints
 * are unique by key and effect (the API server refuses a second os:NoSchedule): one with another
 * value is replaced, as `kubectl taint --overwrite` does.
 */
export async function addTaint(
  kube: KubeClient,
  node: NodeObject,
  taint: NodeTaint,
  signal?: AbortSignal,
): Promise<void> {
  if (hasTaint(node, taint)) return;
  const others = (node.spec?.taints ?? []).filter((t) => !(t.key === taint.key && t.effect === taint.effect));
  await kube.patch(nodePath(node.metadata.name), { spec: { taints: [...others, taint] } }, 'merge', signal);
}

export async function deleteNode(kube: KubeClient, name: string, signal?: AbortSignal): Promise<void> {
  await kube.delete(nodePath(name), signal);
}
