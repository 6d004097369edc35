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
import { admissionPolicyItems } from './items/admission-policy';
import { version } from '../../package.json';

/** What a group's children are read with. */
export interface GroupContext extends GroupScope {
  session: ClusterSession;
  /** Makes a row expandable: the view asks `resolve` for its children. */
  expandable(id: string, resolve: () => Promise<TreeNode[]>): void;
  /** The Windows nodes of the cluster: the tree's own rows, kept up to date by its node watch. */
  windowsNodes(): Promise<TreeNode[]>;
}

/** The kind of cluster, as its APIs say (OpenShift when it serves OpenShift's API groups). */
export type Distribution = SessionInfo['flavour'];

export interface ClusterGroup extends GroupRow {
  key: GroupKey;
  /**
   * The distributions this group belongs to: elsewhere it is not shown at all (a kubeadm cluster has no
   * WMCO to read BYOH instances, no Machine API, no mirror set API, and "not installed" rows would be noise).
   */
  distributions: readonly Distribution[];
  children(g: GroupContext): Promise<TreeNode[]>;
}

const EVERY: readonly Distribution[] = ['openshift', 'kubernetes'];
const OPENSHIFT: readonly Distribution[] = ['openshift'];

export const CLUSTER_GROUPS: readonly ClusterGroup[] = [
  {
    key: 'nodes',
    label: 'Windows nodes',
    icon: 'vm',
    tooltip: 'Nodes labelled `kubernetes.io/os=windows`, kept up to date by a watch.',
    expanded: true,
    distributions: EVERY,
    children: (g) => g.windowsNodes(),
  },
  {
    key: 'machineSets',
    label: 'Windows MachineSets',
    icon: 'server-process',
    tooltip:
      'MachineSets in `openshift-machine-api` whose Machines are Windows ones (label `machine.openshift.io/os-id` or a Windows image), with their Machines.',
    distributions: OPENSHIFT,
    children: async (g) => machineSetItems(g, await g.session.windowsMachineSets(), (ms) => machineSetRow(g, ms)),
  },
  {
    key: 'byoh',
    label: 'BYOH instances',
    icon: 'remote',
    tooltip: 'Entries of the `windows-instances` ConfigMap (bring-your-own-host Windows instances).',
    // WMCO's Bring-Your-Own-Host: an OpenShift operator.
    distributions: OPENSHIFT,
    children: async (g) => byohItems(g, await g.session.byohInstances()),
  },
  {
    key: 'mirrors',
    label: 'Mirror sets',
    icon: 'mirror',
    tooltip: 'ImageDigestMirrorSets and ImageTagMirrorSets.',
    // config.openshift.io: kubeadm's Windows nodes take mirrors from each host's containerd configuration.
    distributions: OPENSHIFT,
    children: async (g) => mirrorSetItems(g, await g.session.mirrorSets()),
  },
  {
    key: 'runtimeClasses',
    label: 'Windows RuntimeClasses',
    icon: 'symbol-class',
    tooltip: 'RuntimeClasses that schedule onto Windows nodes.',
    distributions: EVERY,
    children: async (g) => runtimeClassItems(g, await g.session.runtimeClasses()),
  },
  {
    key: 'policies',
    label: 'Admission policies',
    icon: 'shield',
    tooltip:
      "kube-windows's ValidatingAdmissionPolicies: the Windows rules enforced by the API server itself (right-click the cluster → Enforce Windows rules…).",
    distributions: EVERY,
    children: async (g) => admissionPolicyItems(g, await g.session.admissionPolicies(version), version),
  },
];

/** The groups shown under a cluster of this distribution, in order. */
export function groupsOf(distribution: Distribution): ClusterGroup[] {
  return CLUSTER_GROUPS.filter((g) => g.distributions.includes(distribution));
}

/** The row of one MachineSet, expandable into its Machines (also what a refresh of that MachineSet refills). */
export function machineSetRow(g: Omit<GroupContext, 'gid'>, ms: MachineApiObject): TreeNode {
  const item = machineSetItem(g, ms);
  const name = ms.metadata.name;
  g.expandable(item.id, async () => machineItems(g, item.id, name, await g.session.machines(name), Date.now()));
  return item;
}
