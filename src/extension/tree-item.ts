// Maps the views' plain items (src/views/item.ts) to VS Code TreeItems. Takes the vscode API as a
// parameter so that unit tests can pass a fake one.
import type * as vscode from 'vscode';
import type { ViewItem } from '../views/item';

type Api = Pick<typeof vscode, 'TreeItem' | 'ThemeIcon' | 'ThemeColor' | 'MarkdownString' | 'TreeItemCollapsibleState'>;

export function toTreeItem(node: ViewItem, api: Api): vscode.TreeItem {
  const state =
    node.collapsible === 'expanded'
      ? api.TreeItemCollapsibleState.Expanded
      : node.collapsible === 'collapsed'
        ? api.TreeItemCollapsibleState.Collapsed
        : api.TreeItemCollapsibleState.None;
  const item = new api.TreeItem(node.label, state);
  item.id = node.id;
  if (node.description !== undefined) item.description = node.description;
  const tooltip = new api.MarkdownString(node.tooltip);
  tooltip.supportThemeIcons = true;
  item.tooltip = tooltip;
  item.iconPath = node.icon.color
    ? new api.ThemeIcon(node.icon.id, new api.ThemeColor(node.icon.color))
    : new api.ThemeIcon(node.icon.id);
  item.contextValue = node.contextValue;
  if (node.command)
    item.command = { command: node.command.id, title: node.command.title, arguments: node.command.args };
  return item;
}
