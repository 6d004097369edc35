// `kube-windows pods logs|describe|restart|delete POD`: the explorer's pod actions from a terminal,
// through the same calls (src/cluster/pod-actions.ts) and texts (src/core/live/describe.ts,
// src/core/workload-actions.ts). The options and help are declared in ./commands.
import {
  deletePodNamed,
  getPod,
  logContainers,
  podEvents,
  restartTargetOf,
  restartWorkload,
  streamPodLog,
} from '../cluster/pod-actions';
import { getNode } from '../cluster/nodes';
import { describePod } from '../core/live/describe';
import { nodeFactsOf } from '../core/live/explain';
import { confirm, EXIT, out, positiveInteger, UsageError, userMessage, warn, withCancel } from './kit';
import { actionOf, commandHelp, parseCommand } from './declare';
import { PODS_COMMAND } from './commands';
import { clusterFor, type Cluster } from './kit-remote';
import { listPods } from './pods-list';

export async function runPods(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(PODS_COMMAND, args);
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(commandHelp(PODS_COMMAND));
    return EXIT.OK;
  }
  const { action, operand: podName } = actionOf(PODS_COMMAND, positionals, values);
  if (action === 'list') return listPods(clusterFor(values), values);
  const tail = positiveInteger('tail', values.tail);
  if (values.follow && values.previous)
    throw new UsageError('--follow and --previous do not go together (a previous instance has ended)');
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
        if (!container)
          throw new UsageError(
            `${where} has several containers: pick one with -c (${containers.map((c) => c.name).join(', ')})`,
          );
        return await withCancel('the log read stops', async (signal) => {
          await streamPodLog(
            cluster.kube,
            {
              namespace,
              pod: podName,
              container,
              follow: values.follow,
              previous: values.previous,
              ...(tail !== undefined ? { tailLines: tail } : {}),
            },
            (c) => process.stdout.write(c),
            signal,
          );
          return EXIT.OK;
        });
      }
      case 'describe': {
        const events = await podEvents(cluster.kube, pod).catch(() => []);
        const node = pod.spec?.nodeName
          ? await getNode(cluster.kube, pod.spec.nodeName).catch(() => undefined)
          : undefined;
        process.stdout.write(
          describePod({ pod, events, ...(node ? { node: nodeFactsOf(node) } : {}), now: new Date() }),
        );
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
        if (
          !(await confirm(
            `Delete the pod ${where}? ${owner ? `${owner.kind} ${owner.name} creates a new one.` : 'It is a bare pod: nothing creates it again.'}`,
            values.yes,
          ))
        )
          return notDone('Not deleted.');
        out(
          (await deletePodNamed(cluster.kube, namespace, podName))
            ? `${where} is being deleted.`
            : `${where} was already gone.`,
        );
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
