// The first question of a multi-step command: which cluster (a kubeconfig context, the current one first). Not
// asked when the command runs on a tree item, which names its cluster.
import * as vscode from 'vscode';
import { firstLine, parseItem, type ContextList } from './command-kit';
import type { PickStep } from './multi-step-input';

/**
 * The context step, or the context the item names. Undefined when there is nothing to pick (an error message said
 * why).
 */
export async function contextStart<S extends { context: string }>(
  contexts: () => Promise<ContextList>,
  arg: unknown,
): Promise<{ known: Partial<S>; steps: PickStep<S, 'context'>[] } | undefined> {
  const fromItem = parseItem(arg).context;
  if (fromItem) return { known: { context: fromItem } as Partial<S>, steps: [] };
  const list = await contexts();
  if (!list.ok) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(list.message)}`);
    return undefined;
  }
  if (list.names.length === 0) {
    void vscode.window.showErrorMessage(
      'kube-windows: the kubeconfig has no contexts. Log in to a cluster first (for example `oc login`).',
    );
    return undefined;
  }
  const names = [...list.names].sort((a, b) => (a === list.current ? -1 : b === list.current ? 1 : 0));
  const step: PickStep<S, 'context'> = {
    kind: 'pick',
    key: 'context',
    title: 'kube-windows: which cluster?',
    placeholder: 'A context of your kubeconfig',
    items: () =>
      names.map((name) => ({
        value: name as S['context'],
        label: name,
        ...(name === list.current ? { description: 'current context' } : {}),
      })),
  };
  return { known: {}, steps: [step] };
}
