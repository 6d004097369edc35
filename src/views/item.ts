// The one item type of every view (the Clusters tree, the workload problems view): what a row shows,
// as plain data. src/extension/tree-item.ts turns it into a vscode.TreeItem.

export interface TreeIcon {
  /** A codicon name. */
  id: string;
  /** A theme color id. */
  color?: string;
}

export interface ViewItem<C extends string = string> {
  /** VS Code's handle, stable across refreshes; never parsed. */
  id: string;
  label: string;
  description?: string;
  /** Markdown. */
  tooltip: string;
  icon: TreeIcon;
  /** What menus' `viewItem` when-clauses match. */
  contextValue: C;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { id: string; title: string; args: unknown[] };
}

/** The theme colors the views' icons use. */
export const COLORS = {
  ok: 'testing.iconPassed',
  error: 'problemsErrorIcon.foreground',
  warning: 'problemsWarningIcon.foreground',
  info: 'problemsInfoIcon.foreground',
} as const;
