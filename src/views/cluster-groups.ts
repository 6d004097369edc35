// The groups under a connected cluster, in the order shown. Adding a group is one entry here and one
// item builder in items/ (what the rows look like); the tree does the rest (ids, refs, refresh, retry).
import type { ClusterSession, SessionInfo } from '../cluster/session';
import type { MachineApiObject } from '../core/openshift/windows-machineset';
import type { GroupKey, GroupScope, TreeNode } from './cluster-item';
import { byohItems } from './items/byoh';
import type { GroupRow } from './items/group';
import { machineItems, machineSetItem, machineSetItems } from './items/machine-set';
import { mirrorSetItems } from './items/mirror-set';
import { runtimeClassItems } from './items/runtime-class';

/** What a group's children are read with. */
export interface GroupContext extends GroupScope {
  session: ClusterSession;
  /** Makes a row expandable: the view asks `resolve` for its children. */
  expandable(id: string, resolve: () => Promise<TreeNode[]>): void;
  /** The Windows nodes of the cluster: the tree's own rows, kept up to date by its node watch. */
  windowsNodes(): Promise<TreeNode[]>;
}

export interface ClusterGroup extends GroupRow {
  key: GroupKey;
  /** Shown only on the clusters where this holds (default: every cluster). */
  shownOn?: (info: SessionInfo) => boolean;
  children(g: GroupContext): Promise<TreeNode[]>;
}

export const CLUSTER_GROUPS: readonly ClusterGroup[] = [
  {
    key: 'nodes',
    label: 'Windows nodes',
    icon: 'vm',
    tooltip: 'Nodes labelled `kubernetes.io/os=windows`, kept up to date by a watch.',
    expanded: true,
    children: (g) => g.windowsNodes(),
  },
  {
    key: 'machineSets',
    label: 'Windows MachineSets',
    icon: 'server-process',
    tooltip:
      'MachineSets in `openshift-machine-api` whose Machines are Windows ones (label `machine.openshift.io/os-id` or a Windows image), with their Machines.',
    // Only OpenShift has the Machine API: elsewhere the group is not shown at all.
    shownOn: (info) => info.flavour === 'openshift',
    children: async (g) => machineSetItems(g, await g.session.windowsMachineSets(), (ms) => machineSetRow(g, ms)),
  },
  {
    key: 'byoh',
    label: 'BYOH instances',
    icon: 'remote',
    tooltip: 'Entries of the `windows-instances` ConfigMap (bring-your-own-host Windows instances).',
    children: async (g) => byohItems(g, await g.session.byohInstances()),
  },
  {
    key: 'mirrors',
    label: 'Mirror sets',
    icon: 'mirror',
    tooltip: 'ImageDigestMirrorSets and ImageTagMirrorSets.',
    children: async (g) => mirrorSetItems(g, await g.session.mirrorSets()),
  },
  {
    key: 'runtimeClasses',
    label: 'Windows RuntimeClasses',
    icon: 'symbol-class',
    tooltip: 'RuntimeClasses that schedule onto Windows nodes.',
    children: async (g) => runtimeClassItems(g, await g.session.runtimeClasses()),
  },
];

/** The row of one MachineSet, expandable into its Machines (also what a refresh of that MachineSet refills). */
export function machineSetRow(g: Omit<GroupContext, 'gid'>, ms: MachineApiObject): TreeNode {
  const item = machineSetItem(g, ms);
  const name = ms.metadata.name;
  g.expandable(item.id, async () => machineItems(g, item.id, name, await g.session.machines(name), Date.now()));
  return item;
}
