// `kube-windows pods [list]` (and `kubectl windows pods`): the Windows pods (on Windows nodes, or not yet
// scheduled and asking for Windows), or every pod of one node with --node, in the context's namespace
// (-n, or every namespace with -A), printed as kubectl prints pods (core/pod-listing.ts). With --watch,
// kubectl's `get pods -w` through the API server's restarts (./watch.ts).
import { followPods, type PodScope } from '../cluster/listing-watch';
import { writeYaml } from '../core/manifest/yaml-writer';
import { alignColumns } from '../core/node-listing';
import { POD_OUTPUTS, podList, podNames, podTable, printedPod, type ListedPod } from '../core/pod-listing';
import { WatchPrinter, type WatchListing } from '../core/watch-printer';
import { EXIT, oneOf, out, refuse, userMessage, warn } from './kit';
import type { Cluster } from './kit-remote';
import { watchFormat } from './nodes-list';
import { watchAndPrint, watchTimeoutSeconds } from './watch';

export async function listPods(
  cluster: Cluster,
  values: {
    namespace?: string | undefined;
    'all-namespaces'?: boolean | undefined;
    node?: string | undefined;
    output?: string | undefined;
    watch?: boolean | undefined;
    'output-watch-events'?: boolean | undefined;
  },
): Promise<number> {
  const output = oneOf('output', values.output, POD_OUTPUTS);
  refuse(values['output-watch-events'] && !values.watch, '--output-watch-events goes with --watch');
  refuse(values['all-namespaces'] && values.namespace !== undefined, '-A and -n do not go together: give one');
  const namespace = values['all-namespaces'] ? undefined : (values.namespace ?? cluster.namespace ?? 'default');
  const scope: PodScope = {
    ...(namespace !== undefined ? { namespace } : {}),
    ...(values.node !== undefined ? { node: values.node } : {}),
  };
  const where = `${values.node !== undefined ? `on node ${values.node}` : 'on Windows nodes'} in ${namespace === undefined ? 'any namespace' : `namespace ${namespace}`} of context ${cluster.context}`;
  const listing: WatchListing<ListedPod> = {
    key: (p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`,
    table: (pods, now) => podTable(pods, now, { wide: output === 'wide', allNamespaces: namespace === undefined }),
    name: (p) => podNames([p]),
    printed: printedPod,
  };
  const timeout = watchTimeoutSeconds();
  const follow = (on: Parameters<typeof followPods>[2]) =>
    followPods(cluster.kube, scope, on, timeout ? { watchTimeoutSeconds: timeout } : {});
  if (values.watch)
    return watchAndPrint({
      context: cluster.context,
      what: 'pods',
      nothing: `no pods ${where}`,
      printer: new WatchPrinter(listing, watchFormat(output), values['output-watch-events']),
      follow,
    });
  // One read: the same list-watch as --watch, stopped after its first list.
  const first = await new Promise<{ pods: ListedPod[] } | { err: unknown }>((resolve) => {
    const f = follow({
      listed: (pods) => resolve({ pods }),
      event: () => undefined,
      failed: (err) => resolve({ err }),
      recovered: () => undefined,
    });
    void f.start().finally(() => f.stop());
  });
  if ('err' in first) {
    warn(userMessage(first.err, cluster.context));
    return EXIT.USAGE;
  }
  const pods = first.pods;
  if (output === 'json') process.stdout.write(`${JSON.stringify(podList(pods), null, 4)}\n`);
  else if (output === 'yaml') process.stdout.write(writeYaml(podList(pods)));
  else if (pods.length === 0) warn(`no pods ${where}`);
  else if (output === 'name') out(podNames(pods));
  else
    out(alignColumns(podTable(pods, Date.now(), { wide: output === 'wide', allNamespaces: namespace === undefined })));
  return EXIT.OK;
}
