// The Clusters view's items: the shared view item, with what each one stands for (typed) and, for the
// objects of the cluster, how to read them for the read-only YAML view.
import type { ViewItem } from './item';

export type ContextValue =
  | 'cluster'
  | 'cluster.openshift'
  | 'windowsNode'
  | 'windowsNode.cordoned'
  | 'windowsService'
  | 'windowsService.stopped'
  | 'byohInstance'
  | 'pod'
  | 'mirrorSet'
  | 'runtimeClass'
  | 'admissionPolicy'
  | 'machineSet'
  | 'machine'
  | 'error'
  | 'group'
  | 'info';

/** The groups a cluster or a node shows. */
export type GroupKey =
  'nodes' | 'machineSets' | 'byoh' | 'mirrors' | 'runtimeClasses' | 'policies' | 'pods' | 'services';

/**
 * What an item stands for, typed: commands read this, never the id (the id is only VS Code's handle).
 * `detail` is everything else under a cluster (info rows, conditions, taints, placeholders, errors).
 */
export type TreeRef =
  | { kind: 'kubeconfig' }
  | { kind: 'cluster'; context: string }
  | { kind: 'group'; context: string; group: GroupKey; node?: string }
  | { kind: 'node'; context: string; node: string }
  | { kind: 'pod'; context: string; node: string; namespace: string; name: string }
  | { kind: 'service'; context: string; node: string; service: string }
  | { kind: 'byohInstance'; context: string; address: string }
  | { kind: 'mirrorSet'; context: string; setKind: string; name: string }
  | { kind: 'runtimeClass'; context: string; name: string }
  | { kind: 'machineSet'; context: string; machineSet: string }
  | { kind: 'machine'; context: string; machineSet: string; machine: string }
  | { kind: 'detail'; context: string; node?: string };

export interface TreeNode extends ViewItem<ContextValue> {
  /** What the item stands for (set by the tree for every item it hands out). */
  ref?: TreeRef;
  /** The object as the API server returns it (never a Secret), for a read-only YAML view. */
  yaml?: () => Promise<object>;
}

/** Reads one object of the cluster for the YAML view. */
export type ReadYaml = () => Promise<object>;

/** Item ids are path-like; the names in them are encoded. */
export const enc = encodeURIComponent;

export function withRef(ref: TreeRef, node: TreeNode): TreeNode {
  node.ref = ref;
  return node;
}

/** The reference of an item that is none of the named kinds: its parent's cluster (and node). */
export function detailRef(parent: TreeRef | undefined): TreeRef {
  if (!parent || parent.kind === 'kubeconfig') return { kind: 'kubeconfig' };
  const node = 'node' in parent ? parent.node : undefined;
  return node === undefined
    ? { kind: 'detail', context: parent.context }
    : { kind: 'detail', context: parent.context, node };
}

/** Where a group's rows go (its id, its cluster's id and context), and how to read an object of that cluster. */
export interface GroupScope {
  gid: string;
  ctxId: string;
  context: string;
  /** Reads the object at an API path (from the cluster module that owns it) for the YAML view. */
  yamlOf(path: string): ReadYaml;
}
