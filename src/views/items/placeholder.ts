// Rows that stand for no object: "No pods", and the loading row of children still being read.
import type { TreeNode } from '../cluster-item';
import { md } from '../markdown';

export function placeholder(id: string, label: string, tooltip: string): TreeNode {
  return { id, label, tooltip, icon: { id: 'info' }, contextValue: 'info', collapsible: 'none' };
}

/** Stands in for children still being read; the parent's change event replaces it. */
export function loadingNode(id: string, parent: Pick<TreeNode, 'contextValue' | 'label' | 'description'>): TreeNode {
  const connecting = parent.contextValue.startsWith('cluster');
  const label = connecting ? 'Connecting…' : 'Loading…';
  return {
    id,
    label,
    tooltip: connecting ? `Connecting to ${md(parent.label)}…` : `Reading ${md(parent.label)}…`,
    icon: { id: 'loading~spin' },
    contextValue: 'info',
    collapsible: 'none',
  };
}
