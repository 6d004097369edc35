// The Windows MachineSets group (OpenShift's Machine API): one row per MachineSet, its Machines below.
import type { ClusterErrorItem } from '../../cluster/errors';
import { isErrorItem } from '../../cluster/extras';
import { machinePath, machineSetPath, type WindowsMachineSets } from '../../cluster/machinesets';
import {
  age,
  machineSetView,
  machineView,
  type MachineSetView,
  type MachineView,
} from '../../core/openshift/machine-state';
import type { MachineApiObject } from '../../core/openshift/windows-machineset';
import { platformTitle } from '../../core/openshift/machines';
import { enc, withRef, type GroupScope, type TreeNode } from '../cluster-item';
import { COLORS, type TreeIcon } from '../item';
import { md } from '../markdown';
import { errorNode } from './error';
import { placeholder } from './placeholder';

/** A MachineSet's item id: under its context (MachineSets live in one namespace, openshift-machine-api). */
export const machineSetId = (ctxId: string, name: string): string => `${ctxId}/machineSet/${enc(name)}`;

/** The group's rows; `item` makes the row of one MachineSet (the tree makes it expandable). */
export function machineSetItems(
  g: GroupScope,
  read: WindowsMachineSets | ClusterErrorItem,
  item: (ms: MachineApiObject) => TreeNode,
): TreeNode[] {
  if (isErrorItem(read)) return [errorNode(`${g.gid}/error`, read)];
  if (!read.available)
    return [
      placeholder(
        `${g.gid}/none`,
        'Not available',
        'This cluster serves no Machine API (`machine.openshift.io`): its Windows nodes are not made from MachineSets.',
      ),
    ];
  if (!read.sets.length) {
    return [
      placeholder(
        `${g.gid}/none`,
        'No Windows MachineSets',
        'No MachineSet in `openshift-machine-api` makes Windows Machines. Right-click the cluster: **Create Windows MachineSet…**',
      ),
    ];
  }
  return read.sets.map(item);
}

export function machineSetItem(g: Omit<GroupScope, 'gid'>, ms: MachineApiObject): TreeNode {
  const name = ms.metadata.name;
  return withRef(
    { kind: 'machineSet', context: g.context, machineSet: name },
    machineSetNode(machineSetId(g.ctxId, name), machineSetView(ms), g.yamlOf(machineSetPath(name))),
  );
}

/** The Machines of one MachineSet (`msId` is its item's id); ages as of `nowMs`. */
export function machineItems(
  g: Omit<GroupScope, 'gid'>,
  msId: string,
  machineSet: string,
  machines: MachineApiObject[] | ClusterErrorItem,
  nowMs: number,
): TreeNode[] {
  if (isErrorItem(machines)) return [errorNode(`${msId}/error`, machines)];
  if (!machines.length)
    return [
      placeholder(
        `${msId}/none`,
        'No Machines',
        `MachineSet ${md(machineSet)} has no Machines (0 replicas, or the machine controller has not made them yet).`,
      ),
    ];
  return machines.map((m) => {
    const name = m.metadata.name;
    return withRef(
      { kind: 'machine', context: g.context, machineSet, machine: name },
      machineNode(`${msId}/machine/${enc(name)}`, machineView(m), nowMs, g.yamlOf(machinePath(name))),
    );
  });
}

export function machineSetNode(id: string, v: MachineSetView, yaml?: () => Promise<object>): TreeNode {
  const complete = v.ready >= v.desired;
  const description = [
    `${v.ready}/${v.desired} ready`,
    v.platform ? platformTitle(v.platform) : '',
    v.deleting ? 'deleting' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const lines = [
    `**${md(v.name)}** · Windows MachineSet`,
    '',
    `- Replicas: ${v.desired} desired, ${v.ready} ready, ${v.available} available`,
    `- Platform: ${v.platform ? platformTitle(v.platform) : 'unknown'}`,
  ];
  if (v.deleting) lines.push('- Being deleted');
  const node: TreeNode = {
    id,
    label: v.name,
    description,
    tooltip: lines.join('\n'),
    icon: complete ? { id: 'server-process', color: COLORS.ok } : { id: 'server-process', color: COLORS.warning },
    contextValue: 'machineSet',
    collapsible: 'expanded',
  };
  if (yaml) node.yaml = yaml;
  return node;
}

export function machineNode(id: string, m: MachineView, nowMs: number, yaml?: () => Promise<object>): TreeNode {
  const since = age(m.created, nowMs);
  const description = [m.deleting ? 'Deleting' : m.phase, m.node ? `node ${m.node}` : '', since, m.error ?? '']
    .filter(Boolean)
    .join(' · ');
  const lines = [`**${md(m.name)}** · ${md(m.phase)}`, ''];
  if (m.machineSet) lines.push(`- MachineSet: ${md(m.machineSet)}`);
  lines.push(`- Node: ${m.node ? md(m.node) : 'none yet'}`);
  if (since) lines.push(`- Age: ${since}`);
  if (m.error) lines.push(`- Error: ${md(m.error)}`);
  if (m.deleting) lines.push('- Being deleted: the machine controller drains the node and deletes the VM');
  const icon: TreeIcon =
    m.error || m.phase === 'Failed'
      ? { id: 'error', color: COLORS.error }
      : m.deleting
        ? { id: 'trash', color: COLORS.warning }
        : m.phase === 'Running'
          ? { id: 'vm-running', color: COLORS.ok }
          : { id: 'vm-outline', color: COLORS.warning };
  const node: TreeNode = {
    id,
    label: m.name,
    description,
    tooltip: lines.join('\n'),
    icon,
    contextValue: 'machine',
    collapsible: 'none',
  };
  if (yaml) node.yaml = yaml;
  return node;
}
