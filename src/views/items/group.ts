// A group row (Windows nodes, BYOH instances, a node's Pods, ...): what is below it is asked on expand.
import type { GroupKey, TreeNode } from '../cluster-item';

export interface GroupRow {
  label: string;
  /** A codicon name. */
  icon: string;
  /** Markdown. */
  tooltip: string;
  /** Expanded from the start (default: collapsed). */
  expanded?: boolean;
}

export function groupNode(
  id: string,
  row: GroupRow,
  ref: { context: string; group: GroupKey; node?: string },
): TreeNode {
  return {
    id,
    label: row.label,
    tooltip: row.tooltip,
    icon: { id: row.icon },
    contextValue: 'group',
    collapsible: row.expanded ? 'expanded' : 'collapsed',
    ref: { kind: 'group', ...ref },
  };
}
