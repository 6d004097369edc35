// `kube-windows nodes reboot|logs|services|proxy|cordon|uncordon|drain NODE`: the node operations of the
// bootstrap engine from a terminal (and `nodes [list]`, the Windows nodes: ./nodes-list.ts). Logs go through
// the API first (the kubelet's log folder and log query behind the node proxy: no SSH); reboot and services, and logs when the node does not serve
// them, go over SSH to the node's InternalIP (or ExternalIP) with the SSH options and host-key rules
// every command shares (./kit). cordon, uncordon and drain are the reboot plan's own steps; events and
// taints go through the API. The options and help are declared in ./commands.

import { getNode, type NodeObject } from '../cluster/nodes';
import { NodeLogRefusedError, nodeLogCall, streamNodeLog, type NodeLogRequest } from '../cluster/node-logs';
import { NodeLogInputError } from '../core/node-log-query';
import { collectNodeLogs, collectNodeLogsOverApi, DEFAULT_LOG_CAP_BYTES } from '../bootstrap/node-logs';
import { drainPreview, schedulingPlanFor, schedulingSummary, type SchedulingAction } from '../bootstrap/drain';
import {
  isNodeService,
  NODE_SERVICES,
  nodeAddress,
  nodeServices,
  restartNodeService,
  servicesTable,
} from '../bootstrap/node-services';
import { DEFAULT_REBOOT_TIMEOUT_MINUTES, rebootPlanFor, rebootSummary, type RebootNode } from '../bootstrap/reboot';
import { renderPlan } from '../bootstrap/render';
import type { RunEvent } from '../bootstrap/runner';
import { RemoteError } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import {
  confirm,
  EXIT,
  out,
  positiveInteger,
  positiveNumber,
  progressLine,
  refuse,
  UsageError,
  userMessage,
  warn,
  withCancel,
  resumeLine,
} from './kit';
import { actionOf, commandHelp, parseCommand } from './declare';
import { NODES_COMMAND } from './commands';
import { nodeEvents, setNodeTaints } from '../cluster/pod-actions';
import { ApiError } from '../cluster/errors';
import { describeNodeEvents } from '../core/live/describe';
import { parseTaints, taintChanges, taintText } from '../core/workload-actions';
import { canSsh, clusterFor, type Cluster, type Ssh, hostFor, sshOptions } from './kit-remote';
import { counted } from '../core/plural';
import { listNodes } from './nodes-list';
import {
  nodeProxyText,
  proxyExpectation,
  readNodeProxy,
  readNodeProxyThroughPod,
  type NodeProxyExpectation,
} from '../bootstrap/node-proxy';
import type { NodeProxyComparison } from '../core/proxy/node-env';
import { recordProxySeen } from '../bootstrap/proxy-seen';

/** The defaults the help names, owned by the engine's modules. */
const HELP_FACTS = {
  rebootTimeout: DEFAULT_REBOOT_TIMEOUT_MINUTES,
  maxSize: DEFAULT_LOG_CAP_BYTES / 1048576,
  services: NODE_SERVICES.join(', '),
};

export async function runNodes(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(NODES_COMMAND, args);
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(commandHelp(NODES_COMMAND, HELP_FACTS));
    return EXIT.OK;
  }
  const { action, operand: nodeName } = actionOf(NODES_COMMAND, positionals, values);
  if (action === 'list') return listNodes(values);
  if (action === 'events' || action === 'taints') return nodeDetails(action, nodeName, values);
  const timeoutMin = positiveNumber('timeout', values.timeout);
  const evictionRetry = positiveNumber('eviction-retry', values['eviction-retry'], true);
  const maxSize = positiveNumber('max-size', values['max-size']);
  const pollMs = positiveInteger('poll-interval', values['poll-interval']);
  if (values.restart !== undefined && !isNodeService(values.restart))
    throw new UsageError(`--restart takes one of ${NODE_SERVICES.join(', ')}`);
  const scheduling = action === 'cordon' || action === 'uncordon' || action === 'drain';
  const ssh = sshOptions(values);

  if (action === 'logs' && (values.path !== undefined || values.query !== undefined))
    return await logsOverApi(nodeName, values);
  const cluster = clusterFor(values);
  if (scheduling) return await schedule(action, nodeName, cluster, values, { timeoutMin, evictionRetry, pollMs });
  const node = await readNode(cluster, nodeName);
  if (typeof node === 'number') return node;
  if (action === 'logs') {
    const viaApi = await logsFolderOverApi(nodeName, cluster, values.out ?? '.', maxSize, ssh);
    if (viaApi !== undefined) return viaApi;
  }
  // No SSH key or agent: the node's proxy settings are read through a HostProcess pod, as the terminal falls back.
  if (action === 'proxy' && !canSsh(ssh) && values.address === undefined) return proxySettingsThroughPod(cluster, node);
  const address = values.address ?? nodeAddress(node);
  if (!address) {
    warn(`the node ${nodeName} has no InternalIP or ExternalIP address; pass --address`);
    return EXIT.USAGE;
  }
  const host = hostFor(address, ssh);
  try {
    return await withCancel('run the same command again to resume', async (signal) => {
      try {
        if (action === 'services') return await services(host, nodeName, values.restart, values.yes, signal);
        if (action === 'proxy') return await proxySettings(host, cluster, node, signal);
        if (action === 'logs') {
          const r = await collectNodeLogs({
            host,
            nodeName,
            dir: values.out ?? '.',
            ...(maxSize ? { maxBytes: Math.floor(maxSize * 1048576) } : {}),
            signal,
            onProgress: (m, f) => out(`  ${f === undefined ? m : `${Math.round(f * 100)}% ${m}`}`),
          });
          out(r.message);
          return EXIT.OK;
        }
        // reboot
        if (values['disable-eviction'] && !values['dry-run']) {
          const ok = await confirm(
            `--disable-eviction deletes the pods of ${nodeName} directly, bypassing their PodDisruptionBudgets: the workloads they protect may go down.\nContinue?`,
            values.yes,
          );
          if (!ok) {
            out('Not rebooted.');
            return EXIT.FAILED;
          }
        }
        const opts = {
          kube: cluster.kube,
          host,
          node: node as RebootNode,
          ...(values['delete-emptydir-data'] ? { deleteEmptyDirData: true } : {}),
          ...(values['disable-eviction'] ? { disableEviction: true } : {}),
          ...(timeoutMin ? { timeoutMs: Math.round(timeoutMin * 60_000) } : {}),
          ...(evictionRetry !== undefined ? { evictionRetryMs: Math.round(evictionRetry * 1000) } : {}),
          ...(pollMs ? { pollMs } : {}),
        };
        const plan = await rebootPlanFor(opts, signal);
        if (values['dry-run']) {
          out(renderPlan(plan));
          return EXIT.OK;
        }
        const result = await plan.run({
          signal,
          onEvent: (e: RunEvent) => {
            if (e.type === 'plan-end') return;
            const line = progressLine('', e);
            if (line) out(line);
          },
        });
        out(rebootSummary(result, nodeName));
        const resume = resumeLine(result);
        if (resume) warn(resume);
        if (plan.state.blockedBy && !values['disable-eviction'])
          out(
            'To delete the blocked pods anyway: the same command with --disable-eviction (it asks for confirmation).',
          );
        return result.outcome === 'done' ? EXIT.OK : EXIT.FAILED;
      } catch (err) {
        if (signal.aborted || err instanceof UsageError) throw err;
        warn(userMessage(err, cluster.context));
        // Anything the host answered or failed to answer (SSH connection, host key, authentication, a
        // failed command) is the operation failing on that node, as for join; the rest is local.
        return err instanceof RemoteError ? EXIT.FAILED : EXIT.USAGE;
      }
    });
  } finally {
    host.close();
  }
}

/** The Node, or the exit code after saying why it cannot be read (no such node: a usage error, as a bad argument). */
async function readNode(cluster: Cluster, nodeName: string): Promise<NodeObject | number> {
  try {
    const node = await getNode(cluster.kube, nodeName);
    if (node) return node;
    warn(`there is no node "${nodeName}" in context ${cluster.context}`);
  } catch (err) {
    warn(userMessage(err, cluster.context));
  }
  return EXIT.USAGE;
}

/** How to collect over SSH instead, for the messages of the API paths. */
const sshHint = (node: string): string =>
  `Over SSH instead: kube-windows nodes logs ${node} --context C --out DIR --key FILE (C:\\var\\log and C:\\k\\log, service states and System event log errors).`;

/** --path / --query: one GET through the node proxy, its text to stdout as it arrives. */
async function logsOverApi(
  nodeName: string,
  values: {
    context?: string;
    kubeconfig?: string;
    path?: string;
    query?: string;
    tail?: string;
    since?: string;
    pattern?: string;
    out?: string;
    'max-size'?: string;
    address?: string;
  },
): Promise<number> {
  if (values.path !== undefined && values.query !== undefined)
    throw new UsageError('--path and --query read different things: give one');
  if (values.path !== undefined)
    for (const o of ['tail', 'since', 'pattern'] as const)
      refuse(values[o], `--${o} goes with --query (the kubelet takes no options with a file)`);
  refuse(values.out, '--out collects the whole log folder: without --path or --query');
  refuse(values['max-size'], '--max-size goes with --out');
  refuse(values.address, '--address is for SSH: --path and --query go through the API');
  let tail: number | undefined;
  if (values.tail !== undefined) {
    tail = Number(values.tail);
    if (values.tail.trim() === '' || !Number.isInteger(tail) || tail < 0)
      throw new UsageError('--tail must be a whole number of lines');
  }
  const request: NodeLogRequest =
    values.path !== undefined
      ? { path: values.path }
      : {
          query: values.query as string,
          ...(tail !== undefined ? { tail } : {}),
          ...(values.since !== undefined ? { since: values.since } : {}),
          ...(values.pattern !== undefined ? { pattern: values.pattern } : {}),
        };
  try {
    nodeLogCall(nodeName, request); // checks the input before anything is sent
  } catch (err) {
    if (err instanceof NodeLogInputError) throw new UsageError(err.message);
    throw err;
  }
  const cluster = clusterFor(values);
  return withCancel('nothing changes on the node', async (signal) => {
    try {
      await streamNodeLog(cluster.kube, nodeName, request, (chunk) => process.stdout.write(chunk), signal);
      return EXIT.OK;
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof NodeLogRefusedError) {
        warn(err.message);
        if (err.refusal.kind === 'no-node') return EXIT.USAGE;
        if (err.refusal.kind !== 'invalid' && err.refusal.kind !== 'not-found') warn(sshHint(nodeName));
        return EXIT.FAILED;
      }
      warn(userMessage(err, cluster.context));
      return EXIT.USAGE;
    }
  });
}

/** Said by logsFolderOverApi when the node does not serve its logs and SSH may collect them. */
const TRY_SSH = -1;

/**
 * --out through the API: the exit code, or undefined when the node does not serve its logs and SSH may collect them.
 */
async function logsFolderOverApi(
  nodeName: string,
  cluster: Cluster,
  dir: string,
  maxSize: number | undefined,
  ssh: Ssh,
): Promise<number | undefined> {
  const code = await withCancel('the files written so far stay', async (signal) => {
    try {
      const r = await collectNodeLogsOverApi({
        kube: cluster.kube,
        nodeName,
        dir,
        ...(maxSize ? { maxBytes: Math.floor(maxSize * 1048576) } : {}),
        signal,
        onProgress: (m) => out(`  ${m}`),
      });
      out(r.message);
      return EXIT.OK;
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof NodeLogRefusedError)) {
        warn(userMessage(err, cluster.context));
        return EXIT.USAGE;
      }
      warn(err.message);
      if (!canSsh(ssh)) {
        warn(`Collecting over SSH instead needs a key: pass --key FILE (or run ssh-agent). ${sshHint(nodeName)}`);
        return EXIT.FAILED;
      }
      warn(`Collecting over SSH instead (${ssh.user}@the node's address).`);
      return TRY_SSH;
    }
  });
  return code === TRY_SSH ? undefined : code;
}

/** cordon, uncordon, drain: the reboot plan's steps on their own. */
async function schedule(
  action: SchedulingAction,
  nodeName: string,
  cluster: Cluster,
  values: { yes: boolean; 'delete-emptydir-data': boolean; 'dry-run': boolean },
  t: { timeoutMin: number | undefined; evictionRetry: number | undefined; pollMs: number | undefined },
): Promise<number> {
  refuse(values['dry-run'], `--dry-run goes with nodes reboot`);
  const node = await readNode(cluster, nodeName);
  if (typeof node === 'number') return node;
  const timeoutMs = t.timeoutMin ? Math.round(t.timeoutMin * 60_000) : undefined;
  const opts = {
    kube: cluster.kube,
    node,
    ...(values['delete-emptydir-data'] ? { deleteEmptyDirData: true } : {}),
    ...(timeoutMs ? { drainTimeoutMs: timeoutMs } : {}),
    // The budget wait is part of the drain wait: --timeout bounds it too.
    ...(t.evictionRetry !== undefined
      ? { evictionRetryMs: Math.round(t.evictionRetry * 1000) }
      : timeoutMs
        ? { evictionRetryMs: Math.min(60_000, timeoutMs) }
        : {}),
    ...(t.pollMs ? { pollMs: t.pollMs } : {}),
  };
  return withCancel(
    action === 'drain' ? 'the node stays cordoned; run the drain again to resume' : 'nothing else changes',
    async (signal) => {
      try {
        if (action === 'drain') {
          const p = await drainPreview(opts, signal);
          for (const s of p.skipped) out(`leaving ${s}`);
          if (p.emptyDir.length > 0 && !values['delete-emptydir-data']) {
            warn(
              `Not drained: ${p.emptyDir.join(', ')} use emptyDir volumes, whose data is deleted with the pod; pass --delete-emptydir-data if that data may be lost.`,
            );
            return EXIT.FAILED;
          }
          if (p.evict.length > 0) {
            const lost = p.emptyDir.length > 0 ? `\nThe emptyDir data of ${p.emptyDir.join(', ')} is lost.` : '';
            if (
              !(await confirm(
                `Cordon ${nodeName} and evict ${counted(p.evict.length, 'pod')}: ${p.evict.join(', ')}?${lost}\nContinue?`,
                values.yes,
              ))
            ) {
              out('Not drained.');
              return EXIT.FAILED;
            }
          }
        }
        const result = await schedulingPlanFor(action, opts).run({
          signal,
          onEvent: (e: RunEvent) => {
            if (e.type === 'plan-end' || e.type === 'plan-start') return;
            const line = progressLine('', e);
            if (line) out(line);
          },
        });
        out(schedulingSummary(action, result, nodeName));
        const resume = resumeLine(result);
        if (resume) warn(resume);
        return result.outcome === 'done' ? EXIT.OK : EXIT.FAILED;
      } catch (err) {
        if (signal.aborted || err instanceof UsageError) throw err;
        warn(userMessage(err, cluster.context));
        return EXIT.FAILED;
      }
    },
  );
}

/** `nodes proxy` without SSH: the same report, read through a HostProcess pod pinned to the node. */
async function proxySettingsThroughPod(cluster: Cluster, node: NodeObject): Promise<number> {
  warn(`No SSH key given (--key or ssh-agent): reading ${node.metadata.name} through a HostProcess pod.`);
  return withCancel('the pod is deleted; nothing changes on the node', async (signal) => {
    try {
      return await proxySettings(
        (expected) =>
          readNodeProxyThroughPod(
            { kube: cluster.kube, config: cluster.kube.kubeConfig, node, onStatus: (t) => warn(t) },
            expected,
            signal,
          ),
        cluster,
        node,
        signal,
      );
    } catch (err) {
      if (signal.aborted) throw err;
      warn(userMessage(err, cluster.context));
      return EXIT.FAILED;
    }
  });
}

async function proxySettings(
  read: WindowsHost | ((expected: NodeProxyExpectation) => Promise<NodeProxyComparison>),
  cluster: Cluster,
  node: NodeObject,
  signal: AbortSignal,
): Promise<number> {
  const expected = await proxyExpectation(cluster.kube, node, signal);
  const comparison = typeof read === 'function' ? await read(expected) : await readNodeProxy(read, expected, signal);
  const lastEqual = recordProxySeen({ context: cluster.context, node: node.metadata.name }, comparison.equal);
  process.stdout.write(nodeProxyText(node.metadata.name, expected, comparison, lastEqual));
  return comparison.equal ? EXIT.OK : EXIT.FAILED;
}

async function services(
  host: WindowsHost,
  nodeName: string,
  restart: string | undefined,
  yes: boolean,
  signal: AbortSignal,
): Promise<number> {
  if (restart !== undefined) {
    if (!(await confirm(`Restart the ${restart} service on ${nodeName}?`, yes))) {
      out('Not restarted.');
      return EXIT.FAILED;
    }
    const r = await restartNodeService(host, restart, signal);
    out(`${r.name} restarted on ${nodeName}: ${r.status}`);
  }
  process.stdout.write(servicesTable(await nodeServices(host, signal)));
  return EXIT.OK;
}

/** `nodes events NODE` and `nodes taints NODE [--set …]`: through the API, no SSH. */
async function nodeDetails(
  action: 'events' | 'taints',
  nodeName: string,
  values: { context?: string; kubeconfig?: string; set?: string; yes: boolean },
): Promise<number> {
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
    const change = [added.length ? `add ${added.join(', ')}` : '', removed.length ? `remove ${removed.join(', ')}` : '']
      .filter(Boolean)
      .join('; ');
    if (!(await confirm(`Change the taints of ${nodeName}: ${change}?`, values.yes)))
      return (out('Not changed.'), EXIT.FAILED);
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
    if (err instanceof UsageError) throw err;
    warn(userMessage(err, cluster.context));
    return EXIT.FAILED;
  }
}
