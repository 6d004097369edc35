// The row of a cluster that could not be connected: its cause in one line, when it is tried again, and
// the whole message in the tooltip; clicking (or the row's Retry) tries at once.
import type { ClusterErrorItem } from '../../cluster/errors';
import type { TreeNode } from '../cluster-item';
import type { NextTry } from '../reconnects';
import { errorNode, shortReason } from './error';
import { md } from '../markdown';

/** hh:mm:ss, local time: when the next try runs. */
const clock = (at: number): string => new Date(at).toTimeString().slice(0, 8);

export function clusterErrorNode(id: string, e: ClusterErrorItem, next: NextTry | undefined): TreeNode {
  const node = errorNode(id, e);
  const cause = e.cause ?? shortReason(e);
  node.label = cause.charAt(0).toUpperCase() + cause.slice(1);
  node.description = next ? `retrying at ${clock(next.at)}` : 'click to retry';
  const when = next
    ? `Next try by itself at ${clock(next.at)} (failure ${next.failures} in a row: the wait doubles after each one).`
    : '';
  node.tooltip = [`**${md(node.label)}**`, md(e.message), when, '_Click to retry now._'].filter(Boolean).join('\n\n');
  return node;
}
