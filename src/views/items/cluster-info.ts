// The first row under a connected cluster: version, flavour, WMCO, node counts and the cluster-wide proxy.
import type { SessionInfo } from '../../cluster/session';
import type { TreeNode } from '../cluster-item';
import { COLORS } from '../item';
import { md } from '../markdown';
import { clusterProxyLabel, clusterProxyLines, proxySupport } from '../../core/proxy/words';

function infoLine(info: SessionInfo): string {
  const parts = [info.version ?? 'version unknown', info.flavour === 'openshift' ? 'OpenShift' : 'Kubernetes'];
  if (info.wmco.present) parts.push(['WMCO', info.wmco.version, info.wmco.phase].filter(Boolean).join(' '));
  else if (!info.wmco.error) parts.push('no WMCO');
  if (info.nodes.linux !== undefined && info.nodes.windows !== undefined)
    parts.push(`${info.nodes.linux} Linux / ${info.nodes.windows} Windows nodes`);
  if (info.proxy) parts.push(clusterProxyLabel(info.proxy.facts));
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
  if (info.proxy)
    for (const l of clusterProxyLines(info.proxy.facts, info.proxy.openshiftVersion)) lines.push(`- ${md(l)}`);
  const wmcoBad = info.wmco.present && info.wmco.phase !== undefined && info.wmco.phase !== 'Succeeded';
  const proxyBad = info.proxy !== undefined && proxySupport(info.proxy.openshiftVersion).supported === false;
  return {
    id,
    label: infoLine(info),
    tooltip: lines.join('\n'),
    icon: wmcoBad || proxyBad ? { id: 'warning', color: COLORS.warning } : { id: 'info' },
    contextValue: 'info',
    collapsible: 'none',
  };
}
