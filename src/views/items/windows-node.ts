// A Windows node row, and the rows under it that say what the node reports (conditions, taints).
import type { WindowsNodeView } from '../../cluster/windows-nodes';
import { enc, type TreeNode } from '../cluster-item';
import { COLORS, type TreeIcon } from '../item';
import { md } from '../markdown';

export const windowsNodeId = (ctxId: string, name: string): string => `${ctxId}/node/${enc(name)}`;

export function windowsNodeNode(id: string, n: WindowsNodeView, yaml?: () => Promise<object>): TreeNode {
  const readiness = n.ready === true ? 'Ready' : 'NotReady';
  const extras: string[] = [];
  if (n.wmco.upgrading) extras.push('upgrading');
  if (n.cordoned) extras.push('cordoned');
  if (n.provisioning === 'byoh') extras.push('BYOH');
  const description = [n.windowsVersion ?? 'Windows', readiness, ...extras].join(' · ');
  const icon: TreeIcon =
    n.ready === true
      ? { id: n.wmco.upgrading ? 'sync' : 'vm-active', color: COLORS.ok }
      : n.ready === false
        ? { id: 'vm-outline', color: COLORS.error }
        : { id: 'vm-outline', color: COLORS.warning };
  const lines = [`**${md(n.name)}** · ${readiness}`, ''];
  if (n.windowsVersion) lines.push(`- ${md(n.windowsVersion)}${n.build ? ` (build ${md(n.build)})` : ''}`);
  if (n.osImage) lines.push(`- OS image: ${md(n.osImage)}`);
  if (n.kernelVersion) lines.push(`- Kernel: ${md(n.kernelVersion)}`);
  if (n.kubeletVersion) lines.push(`- Kubelet: ${md(n.kubeletVersion)}`);
  if (n.containerRuntimeVersion) lines.push(`- Runtime: ${md(n.containerRuntimeVersion)}`);
  lines.push(`- Provisioning: ${n.provisioning === 'byoh' ? 'BYOH instance' : 'Machine'}`);
  if (n.wmco.version || n.wmco.desiredVersion) {
    lines.push(
      `- WMCO: ${md(n.wmco.version ?? 'not configured yet')}${n.wmco.upgrading ? ` → ${md(n.wmco.desiredVersion ?? '?')} (upgrading)` : ''}`,
    );
  }
  if (n.wmco.rebootRequired) lines.push('- Reboot required');
  if (n.cordoned) lines.push('- Cordoned (unschedulable)');
  if (n.problems.length) lines.push(`- Problems: ${n.problems.map(md).join(', ')}`);
  if (n.addresses.length) lines.push(`- Addresses: ${n.addresses.map((a) => md(a.address)).join(', ')}`);
  const node: TreeNode = {
    id,
    label: n.name,
    description,
    tooltip: lines.join('\n'),
    icon,
    contextValue: n.cordoned ? 'windowsNode.cordoned' : 'windowsNode',
    collapsible: 'collapsed',
  };
  if (yaml) node.yaml = yaml;
  return node;
}

/** The node's conditions (a bad one with a warning icon), then its taints. */
export function nodeFactNodes(id: string, n: WindowsNodeView): TreeNode[] {
  const out: TreeNode[] = [];
  for (const c of n.conditions) {
    const bad = c.type === 'Ready' ? c.status !== 'True' : c.status === 'True';
    out.push({
      id: `${id}/condition/${enc(c.type)}`,
      label: `${c.type}: ${c.status}`,
      ...(c.reason ? { description: c.reason } : {}),
      tooltip: `**${md(c.type)}** ${md(c.status)}${c.reason ? ` (${md(c.reason)})` : ''}${c.message ? `\n\n${md(c.message)}` : ''}`,
      icon: bad ? { id: 'warning', color: COLORS.warning } : { id: 'pass', color: COLORS.ok },
      contextValue: 'info',
      collapsible: 'none',
    });
  }
  n.taints.forEach((t, i) => {
    const text = `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
    out.push({
      id: `${id}/taint/${i}`,
      label: text,
      description: 'taint',
      tooltip: `Taint \`${text.replace(/`/g, "'")}\``,
      icon: { id: 'tag' },
      contextValue: 'info',
      collapsible: 'none',
    });
  });
  return out;
}
