// `kube-windows pods logs|describe|restart|delete POD` and `kube-windows nodes events|taints NODE`:
// the explorer's pod and node actions from a terminal, through the same calls
// (src/cluster/pod-actions.ts) and texts (src/core/live/describe.ts, src/core/workload-actions.ts).
import { deletePodNamed, getPod, logContainers, nodeEvents, podEvents, restartTargetOf, restartWorkload, setNodeTaints, streamPodLog } from '../cluster/pod-actions';
import { getNode } from '../cluster/nodes';
import { ApiError } from '../cluster/errors';
import { describeNodeEvents, describePod } from '../core/live/describe';
import { nodeFactsOf } from '../core/live/explain';
import { parseTaints, taintChanges, taintText } from '../core/workload-actions';
import {
  CLUSTER_HELP,
  CLUSTER_OPTIONS,
  confirm,
  EXIT,
  EXIT_CODES_HELP,
  HELP_OPTION,
  out,
  parse,
  positiveInteger,
  refuse,
  UsageError,
  userMessage,
  warn,
  withCancel,
  YES_HELP,
  YES_OPTION,
} from './kit';
import { clusterFor, type Cluster } from './kit-remote';

const PODS_HELP = `Usage:
  kube-windows pods logs POD [-n NS] [-c CONTAINER] --context C [--follow] [--previous] [--tail N]
  kube-windows pods describe POD [-n NS] --context C
  kube-windows pods restart POD [-n NS] --context C [--yes]
  kube-windows pods delete POD [-n NS] --context C [--yes]

logs      a container's log (pods/log): the only container, else -c (the pod's containers are listed)
  --follow                  keep following until the container stops (Ctrl-C ends it)
  --previous                the instance before the last restart
  --tail N                  only the last N lines
describe  the pod's failure explanation (WINF signatures), status, conditions, containers and events
restart   rollout restart of the workload that owns the pod (Deployment through its ReplicaSet,
          DaemonSet, StatefulSet): a new kubectl.kubernetes.io/restartedAt on its pod template;
          bare pods and Jobs are refused
delete    delete the pod (its controller, if any, creates a new one)
  -n, --namespace NS        the pod's namespace (default: the context's, else default)
${YES_HELP}
${CLUSTER_HELP}
${EXIT_CODES_HELP}`;

const NODE_ACTIONS_HELP = `Usage:
  kube-windows nodes events NODE --context C
  kube-windows nodes taints NODE --context C [--set "key=value:Effect,..." [--yes]]

events    the node's events, oldest first
taints    the node's taints; --set replaces them (validated as the API server validates taints;
          written with the resourceVersion read, so a crossing change is refused); --set "" removes all
${YES_HELP}
${CLUSTER_HELP}
${EXIT_CODES_HELP}`;

const ACTIONS = ['logs', 'describe', 'restart', 'delete'] as const;

export async function runPods(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      ...CLUSTER_OPTIONS,
      ...HELP_OPTION,
      ...YES_OPTION,
      namespace: { type: 'string', short: 'n' },
      container: { type: 'string', short: 'c' },
      follow: { type: 'boolean', short: 'f', default: false },
      previous: { type: 'boolean', short: 'p', default: false },
      tail: { type: 'string' },
    },
    true,
  );
  const [action, podName, ...extra] = positionals;
  if (values.help || action === 'help') {
    process.stdout.write(PODS_HELP);
    return EXIT.OK;
  }
  if (!action || !(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`pods takes ${ACTIONS.join(', ')}${action ? `, not "${action}"` : ''}; try "kube-windows pods --help"`);
  if (!podName) throw new UsageError(`pods ${action} needs the pod name`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const tail = positiveInteger('tail', values.tail);
  if (action !== 'logs') for (const o of ['container', 'tail'] as const) refuse(values[o], `--${o} goes with pods logs`);
  if (action !== 'logs') for (const o of ['follow', 'previous'] as const) refuse(values[o], `--${o} goes with pods logs`);
  if (values.follow && values.previous) throw new UsageError('--follow and --previous do not go together (a previous instance has ended)');
  const cluster = clusterFor(values);
  const namespace = values.namespace ?? cluster.namespace ?? 'default';
  try {
    const pod = await getPod(cluster.kube, namespace, podName);
    if (!pod) {
      warn(`there is no pod "${podName}" in namespace "${namespace}"`);
      return EXIT.FAILED;
    }
    const where = `${namespace}/${podName}`;
    switch (action) {
      case 'logs': {
        const containers = logContainers(pod);
        const container = values.container ?? (containers.length === 1 ? containers[0]?.name : undefined);
        if (!container) throw new UsageError(`${where} has several containers: pick one with -c (${containers.map((c) => c.name).join(', ')})`);
        return await withCancel('the log read stops', async (signal) => {
          await streamPodLog(
            cluster.kube,
            { namespace, pod: podName, container, follow: values.follow, previous: values.previous, ...(tail !== undefined ? { tailLines: tail } : {}) },
            (c) => process.stdout.write(c),
            signal,
          );
          return EXIT.OK;
        });
      }
      case 'describe': {
        const events = await podEvents(cluster.kube, pod).catch(() => []);
        const node = pod.spec?.nodeName ? await getNode(cluster.kube, pod.spec.nodeName).catch(() => undefined) : undefined;
        process.stdout.write(describePod({ pod, events, ...(node ? { node: nodeFactsOf(node) } : {}), now: new Date() }));
        return EXIT.OK;
      }
      case 'restart': {
        const target = await restartTargetOf(cluster.kube, pod);
        if ('refuse' in target) {
          warn(target.refuse);
          return EXIT.FAILED;
        }
        const what = `${target.kind} ${target.namespace}/${target.name}`;
        if (!(await confirm(`Restart ${what} (rollout restart)?`, values.yes))) return notDone('Not restarted.');
        await restartWorkload(cluster.kube, target);
        out(`${what} is restarting.`);
        return EXIT.OK;
      }
      default: {
        const owner = (pod.metadata.ownerReferences ?? []).find((o) => o.controller);
        if (!(await confirm(`Delete the pod ${where}? ${owner ? `${owner.kind} ${owner.name} creates a new one.` : 'It is a bare pod: nothing creates it again.'}`, values.yes)))
          return notDone('Not deleted.');
        out((await deletePodNamed(cluster.kube, namespace, podName)) ? `${where} is being deleted.` : `${where} was already gone.`);
        return EXIT.OK;
      }
    }
  } catch (err) {
    return failed(err, cluster);
  }
}

function notDone(line: string): number {
  out(line);
  return EXIT.FAILED;
}

function failed(err: unknown, cluster: Cluster): number {
  if (err instanceof UsageError) throw err;
  warn(userMessage(err, cluster.context));
  return EXIT.FAILED;
}

/** `nodes events NODE` and `nodes taints NODE [--set …]`. */
export async function runNodeActions(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...CLUSTER_OPTIONS, ...HELP_OPTION, ...YES_OPTION, set: { type: 'string' } }, true);
  const [action, nodeName, ...extra] = positionals;
  if (values.help) {
    process.stdout.write(NODE_ACTIONS_HELP);
    return EXIT.OK;
  }
  if (!nodeName) throw new UsageError(`nodes ${action ?? ''} needs the node name`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (action !== 'taints') refuse(values.set, '--set goes with nodes taints');
  const parsed = values.set === undefined ? undefined : parseTaints(values.set);
  if (parsed && 'error' in parsed) throw new UsageError(`--set: ${parsed.error}`);
  const cluster = clusterFor(values);
  try {
    const node = await getNode(cluster.kube, nodeName);
    if (!node) {
      warn(`there is no node "${nodeName}"`);
      return EXIT.FAILED;
    }
    if (action === 'events') {
      process.stdout.write(describeNodeEvents(nodeName, await nodeEvents(cluster.kube, nodeName), new Date()));
      return EXIT.OK;
    }
    const before = node.spec?.taints ?? [];
    if (!parsed) {
      for (const t of before) out(taintText(t));
      return EXIT.OK;
    }
    const { added, removed } = taintChanges(before, parsed.taints);
    if (added.length === 0 && removed.length === 0) return (out(`The taints of ${nodeName} are unchanged.`), EXIT.OK);
    const change = [added.length ? `add ${added.join(', ')}` : '', removed.length ? `remove ${removed.join(', ')}` : ''].filter(Boolean).join('; ');
    if (!(await confirm(`Change the taints of ${nodeName}: ${change}?`, values.yes))) return notDone('Not changed.');
    try {
      await setNodeTaints(cluster.kube, node, parsed.taints);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        warn(`${nodeName} changed while its taints were read; nothing was written. Run the command again.`);
        return EXIT.FAILED;
      }
      throw err;
    }
    out(`The taints of ${nodeName} are set (${change}).`);
    return EXIT.OK;
  } catch (err) {
    return failed(err, cluster);
  }
}
