// `kube-windows nodes [list]` (and `kubectl windows nodes`): the cluster's Windows nodes, read with
// one server-side filtered list, printed as kubectl prints nodes (core/node-listing.ts words the
// table, -o name and the v1 List). Nothing found is said on stderr, as kubectl's "No resources
// found", so that -o name and the table's stdout stay empty for a script. With --watch, kubectl's
// `get nodes -w` through the API server's restarts (./watch.ts).
import { windowsNodes } from '../cluster/nodes';
import { followWindowsNodes } from '../cluster/listing-watch';
import { writeYaml } from '../core/manifest/yaml-writer';
import {
  alignColumns,
  NODE_OUTPUTS,
  nodeList,
  nodeNames,
  nodeTable,
  printedNode,
  type ListedNode,
} from '../core/node-listing';
import { WatchPrinter, type WatchFormat, type WatchListing } from '../core/watch-printer';
import { EXIT, oneOf, out, refuse, userMessage, warn } from './kit';
import { clusterFor } from './kit-remote';
import { watchAndPrint, watchTimeoutSeconds } from './watch';

export async function listNodes(values: {
  context?: string | undefined;
  kubeconfig?: string | undefined;
  output?: string | undefined;
  watch?: boolean | undefined;
  'output-watch-events'?: boolean | undefined;
}): Promise<number> {
  const output = oneOf('output', values.output, NODE_OUTPUTS);
  refuse(values['output-watch-events'] && !values.watch, '--output-watch-events goes with --watch');
  const cluster = clusterFor(values);
  const nothing = `no Windows nodes (kubernetes.io/os=windows) in context ${cluster.context}`;
  if (values.watch) {
    const listing: WatchListing<ListedNode> = {
      key: (n) => n.metadata?.name ?? '',
      table: (nodes, now) => nodeTable(nodes, now, output === 'wide'),
      name: (n) => nodeNames([n]),
      printed: printedNode,
    };
    const timeout = watchTimeoutSeconds();
    return watchAndPrint({
      context: cluster.context,
      what: 'Windows nodes',
      nothing,
      printer: new WatchPrinter(listing, watchFormat(output), values['output-watch-events']),
      follow: (on) => followWindowsNodes(cluster.kube, on, timeout ? { watchTimeoutSeconds: timeout } : {}),
    });
  }
  let nodes: ListedNode[];
  try {
    nodes = (await windowsNodes(cluster.kube)) as ListedNode[];
  } catch (err) {
    warn(userMessage(err, cluster.context));
    return EXIT.USAGE;
  }
  if (output === 'json') process.stdout.write(`${JSON.stringify(nodeList(nodes), null, 4)}\n`);
  else if (output === 'yaml') process.stdout.write(writeYaml(nodeList(nodes)));
  else if (nodes.length === 0) warn(nothing);
  else if (output === 'name') out(nodeNames(nodes));
  else out(alignColumns(nodeTable(nodes, Date.now(), output === 'wide')));
  return EXIT.OK;
}

/** What a watch prints for -o: the table (plain or wide), names, or objects. */
export function watchFormat(output: string | undefined): WatchFormat {
  return output === 'json' || output === 'yaml' || output === 'name' ? output : 'table';
}
