// The first row under a connected cluster: version, flavour, WMCO and node counts.
import type { SessionInfo } from '../../cluster/session';
import type { TreeNode } from '../cluster-item';
import { COLORS } from '../item';
import { md } from '../markdown';

function infoLine(info: SessionInfo): string {
  const parts = [info.version ?? 'version unknown', info.flavour === 'openshift' ? 'OpenShift' : 'Kubernetes'];
  if (info.wmco.present) parts.push(['WMCO', info.wmco.version, info.wmco.phase].filter(Boolean).join(' '));
  else if (!info.wmco.error) parts.push('no WMCO');
  if (info.nodes.linux !== undefined && info.nodes.windows !== undefined)
    parts.push(`${info.nodes.linux} Linux / ${info.nodes.windows} Windows nodes`);
  return parts.join(' · ');
}

export function infoNode(id: string, info: SessionInfo): TreeNode {
  const lines = [
    `**${md(info.context)}** at ${md(info.server)}`,
    '',
    `- Server version: ${md(info.version ?? 'unknown')}`,
    `- Flavour: ${info.flavour === 'openshift' ? 'OpenShift' : 'Kubernetes'}`,
    `- WMCO: ${info.wmco.present ? md([info.wmco.csv ?? 'installed', info.wmco.phase].filter(Boolean).join(', ')) : 'not installed'}`,
  ];
  if (info.nodes.windows !== undefined)
    lines.push(`- Nodes: ${info.nodes.linux ?? '?'} Linux, ${info.nodes.windows} Windows`);
  const wmcoBad = info.wmco.present && info.wmco.phase !== undefined && info.wmco.phase !== 'Succeeded';
  return {
    id,
    label: infoLine(info),
    tooltip: lines.join('\n'),
    icon: wmcoBad ? { id: 'warning', color: COLORS.warning } : { id: 'info' },
    contextValue: 'info',
    collapsible: 'none',
  };
}
