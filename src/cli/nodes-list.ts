// `kube-windows nodes [list]` (and `kubectl windows nodes`): the cluster's Windows nodes, read with
// one server-side filtered list, printed as kubectl prints nodes (core/node-listing.ts words the
// table, -o name and the v1 List). Nothing found is said on stderr, as kubectl's "No resources
// found", so that -o name and the table's stdout stay empty for a script.
import { windowsNodes } from '../cluster/nodes';
import { writeYaml } from '../core/manifest/yaml-writer';
import { alignColumns, NODE_OUTPUTS, nodeList, nodeNames, nodeTable, type ListedNode } from '../core/node-listing';
import { EXIT, oneOf, out, userMessage, warn } from './kit';
import { clusterFor } from './kit-remote';

export async function listNodes(values: {
  context?: string | undefined;
  kubeconfig?: string | undefined;
  output?: string | undefined;
}): Promise<number> {
  const output = oneOf('output', values.output, NODE_OUTPUTS);
  const cluster = clusterFor(values);
  let nodes: ListedNode[];
  try {
    nodes = (await windowsNodes(cluster.kube)) as ListedNode[];
  } catch (err) {
    warn(userMessage(err, cluster.context));
    return EXIT.USAGE;
  }
  if (output === 'json') process.stdout.write(`${JSON.stringify(nodeList(nodes), null, 4)}\n`);
  else if (output === 'yaml') process.stdout.write(writeYaml(nodeList(nodes)));
  else if (nodes.length === 0) warn(`no Windows nodes (kubernetes.io/os=windows) in context ${cluster.context}`);
  else if (output === 'name') out(nodeNames(nodes));
  else out(alignColumns(nodeTable(nodes, Date.now(), output === 'wide')));
  return EXIT.OK;
}
