// An error row: what failed and why in a few words, the whole message beside it; clicking retries.
import type { ClusterErrorItem } from '../../cluster/errors';
import type { TreeNode } from '../cluster-item';
import { COLORS } from '../item';
import { md } from '../markdown';

const RETRY_COMMAND = 'kubeWindows.retry';

export function errorNode(id: string, e: ClusterErrorItem): TreeNode {
  if (e.reconnecting) return reconnectingNode(id, e);
  return {
    id,
    label: e.what ? `${e.what}: ${e.cause ?? shortReason(e)}` : (e.cause ?? shortReason(e)),
    description: e.message,
    tooltip: `**${md(e.what ?? 'Error')}**\n\n${md(e.message)}\n\n_Click to retry._`,
    icon: { id: 'error', color: COLORS.error },
    contextValue: 'error',
    collapsible: 'none',
    command: { id: RETRY_COMMAND, title: 'Retry', args: [id] },
  };
}

/**
 * A watched collection whose watch failed and retries by itself (the server restarts, the network drops):
 * what the view shows of it is as it was until the server answers again; then the rows are listed afresh.
 */
function reconnectingNode(id: string, e: ClusterErrorItem): TreeNode {
  return {
    id,
    label: `${e.what ?? 'Watch'}: reconnecting (${shortReason(e)})`,
    description: e.message,
    tooltip:
      `**${md(e.what ?? 'Watch')}: reconnecting**\n\n${md(e.message)}\n\n` +
      'kube-windows retries by itself and lists again once the server answers; until then the rows shown are as they were. ' +
      '_Click to retry now._',
    icon: { id: 'sync~spin', color: COLORS.warning },
    contextValue: 'error',
    collapsible: 'none',
    command: { id: RETRY_COMMAND, title: 'Retry', args: [id] },
  };
}

/** An unexpected failure of a resolver (they return error items for what they expect). */
export function failedNode(id: string, err: unknown): TreeNode {
  return errorNode(id, { kind: 'error', reason: 'other', message: err instanceof Error ? err.message : String(err) });
}

/** The kind of failure in a few words, when the error has no cause of its own. */
export function shortReason(e: ClusterErrorItem): string {
  switch (e.reason) {
    case 'forbidden':
      return 'permission denied';
    case 'unauthorized':
      return 'not logged in';
    case 'timeout':
    case 'unreachable':
      return 'cluster does not answer';
    case 'exec':
      return 'credential plugin failed';
    case 'tls':
      return 'TLS error';
    case 'config':
      return 'kubeconfig problem';
    default:
      return 'failed';
  }
}
