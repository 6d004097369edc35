// A root of the Clusters view: one kubeconfig context; the current one is expanded.
import type { ContextInfo } from '../../cluster/kubeconfig';
import type { TreeNode } from '../cluster-item';
import { md } from '../markdown';

export const contextId = (context: string): string => `ctx/${encodeURIComponent(context)}`;

export function contextNode(c: ContextInfo, current: boolean, openshift: boolean): TreeNode {
  const tooltip = [
    `**${md(c.name)}**${current ? ' (current context)' : ''}`,
    '',
    `- Cluster: ${md(c.cluster)}`,
    `- User: ${md(c.user)}`,
    c.server ? `- Server: ${md(c.server)}` : '',
    c.namespace ? `- Namespace: ${md(c.namespace)}` : '',
    c.file ? `- From: ${md(c.file)}` : '',
  ].filter(Boolean);
  const node: TreeNode = {
    id: contextId(c.name),
    label: c.name,
    tooltip: tooltip.join('\n'),
    icon: { id: current ? 'server-environment' : 'server' },
    contextValue: openshift ? 'cluster.openshift' : 'cluster',
    collapsible: current ? 'expanded' : 'collapsed',
    ref: { kind: 'cluster', context: c.name },
  };
  const description = [current ? 'current' : '', c.server ?? ''].filter(Boolean).join(' · ');
  if (description) node.description = description;
  return node;
}
