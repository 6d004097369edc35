// `kube-windows nodes reboot|logs|services|cordon|uncordon|drain NODE`: the node operations of the
// bootstrap engine from a terminal. Logs go through the API first (the kubelet's log folder and log
// query behind the node proxy: no SSH); reboot and services, and logs when the node does not serve
// them, go over SSH to the node's InternalIP (or ExternalIP) with the SSH options and host-key rules
// every command shares (./kit). cordon, uncordon and drain are the reboot plan's own steps.

import { getNode, type NodeObject } from '../cluster/nodes';
import { NodeLogRefusedError, nodeLogCall, streamNodeLog, type NodeLogRequest } from '../cluster/node-logs';
import { NodeLogInputError } from '../core/node-log-query';
import { collectNodeLogs, collectNodeLogsOverApi, DEFAULT_LOG_CAP_BYTES } from '../bootstrap/node-logs';
import { drainPreview, schedulingPlanFor, schedulingSummary, type SchedulingAction } from '../bootstrap/drain';
import { isNodeService, NODE_SERVICES, nodeAddress, nodeServices, restartNodeService, servicesTable } from '../bootstrap/node-services';
import { DEFAULT_REBOOT_TIMEOUT_MINUTES, rebootPlanFor, rebootSummary, type RebootNode } from '../bootstrap/reboot';
import { renderPlan } from '../bootstrap/render';
import { runNodeActions } from './pods';
import type { RunEvent } from '../bootstrap/runner';
import { RemoteError } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import {
  CLUSTER_HELP,
  confirm,
  DRY_RUN_HELP,
  EXIT,
  EXIT_CODES_HELP,
  out,
  parse,
  PLAN_COMMAND_OPTIONS,
  positiveInteger,
  positiveNumber,
  progressLine,
  refuse,
  SSH_HELP,
  UsageError,
  userMessage,
  warn,
  withCancel,
  YES_HELP,
} from './kit';
import { canSsh, clusterFor, type Cluster, type Ssh, hostFor, sshOptions } from './kit-remote';

const NODES_HELP = `Usage:
  kube-windows nodes reboot NODE --context C [options] [--delete-emptydir-data] [--disable-eviction] [--timeout MIN] [--dry-run]
  kube-windows nodes logs NODE --context C --path kubelet/kubelet.log
  kube-windows nodes logs NODE --context C --query kubelet [--tail N] [--since 1h] [--pattern RE]
  kube-windows nodes logs NODE --context C [options] [--out DIR] [--max-size MB]
  kube-windows nodes services NODE --context C [options] [--restart NAME] [--yes]
  kube-windows nodes cordon|uncordon NODE --context C
  kube-windows nodes drain NODE --context C [--delete-emptydir-data] [--timeout MIN] [--yes]
  kube-windows nodes events|taints NODE --context C   (kube-windows nodes taints --help)

reboot    cordon, drain (Eviction API, PodDisruptionBudgets honoured, DaemonSet pods left), Restart-Computer,
          wait for NotReady, on AWS re-add the 169.254.169.254 route, wait for Ready, uncordon, verify.
          Run it again to resume after a failure or Ctrl-C.
  --delete-emptydir-data    evict pods with emptyDir volumes too (their emptyDir data is lost)
  --disable-eviction        delete pods directly, bypassing PodDisruptionBudgets (asks for confirmation)
  --timeout MIN             wait for the host and for NotReady/Ready at most MIN minutes each (default ${DEFAULT_REBOOT_TIMEOUT_MINUTES})
  --eviction-retry SEC      retry evictions refused by a PodDisruptionBudget for SEC seconds (default 60)
${DRY_RUN_HELP} (reboot only)
logs      without SSH, through the API server's node proxy to the kubelet (GET /api/v1/nodes/NODE/proxy/logs/...):
  --path P                  a file of the node's log folder (C:\\var\\log on Windows) to standard output; P/ lists a folder
  --query SERVICE           the kubelet's log query (feature gate NodeLogQuery) for a service: kubelet, containerd, kube-proxy ...
    --tail N                its last N lines (tailLines, at most 100000)
    --since D               since a duration ago (30s, 15m, 1h, 2h30m, 1d) or an RFC 3339 time (sinceTime)
    --pattern RE            only the lines that match RE (pattern)
  --out DIR                 the whole log folder into DIR/<node>-<time>/ (default: the current folder): through the API
                            when the kubelet serves it, else over SSH (C:\\var\\log and C:\\k\\log over SFTP, service states
                            and System event log errors)
  --max-size MB             download at most MB megabytes of log files (default ${DEFAULT_LOG_CAP_BYTES / 1048576})
services  the state of ${NODE_SERVICES.join(', ')}
  --restart NAME            restart one of them (asks first)
cordon    mark the node unschedulable (spec.unschedulable); uncordon: schedulable again
drain     cordon, then evict its pods as reboot does (Eviction API, PodDisruptionBudgets honoured, DaemonSet and
          mirror pods left); asks first, naming the pods whose emptyDir data is lost; the node stays cordoned
  --delete-emptydir-data    evict pods with emptyDir volumes too (their emptyDir data is lost)
  --timeout MIN             wait at most MIN minutes for the evicted pods to go (default 10)
${YES_HELP}

Cluster options:
${CLUSTER_HELP}
SSH options (to the node's InternalIP, else its ExternalIP):
  --address A               SSH to A instead
${SSH_HELP}
${EXIT_CODES_HELP}`;

export async function runNodes(args: string[]): Promise<number> {
  if (args[0] === 'events' || args[0] === 'taints') return runNodeActions(args);
  const { values, positionals } = parse(
    args,
    {
      ...PLAN_COMMAND_OPTIONS,
      address: { type: 'string' },
      'delete-emptydir-data': { type: 'boolean', default: false },
      'disable-eviction': { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'eviction-retry': { type: 'string' },
      out: { type: 'string' },
      'max-size': { type: 'string' },
      restart: { type: 'string' },
      path: { type: 'string' },
      query: { type: 'string' },
      tail: { type: 'string' },
      since: { type: 'string' },
      pattern: { type: 'string' },
    },
    true,
  );
  const [action, nodeName, ...extra] = positionals;
  if (values.help || action === 'help') {
    process.stdout.write(NODES_HELP);
    return EXIT.OK;
  }
  if (!action || !(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`nodes takes ${ACTIONS.join(', ')}${action ? `, not "${action}"` : ''}; try "kube-windows nodes --help"`);
  if (!nodeName) throw new UsageError(`nodes ${action} needs the node name`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const timeoutMin = positiveNumber('timeout', values.timeout);
  const evictionRetry = positiveNumber('eviction-retry', values['eviction-retry'], true);
  const maxSize = positiveNumber('max-size', values['max-size']);
  const pollMs = positiveInteger('poll-interval', values['poll-interval']);
  // Only reboot has a plan to show: --dry-run elsewhere would run the operation for real.
  if (action !== 'reboot') refuse(values['dry-run'], `--dry-run goes with nodes reboot; nodes ${action} has no plan to show`);
  if (values.restart !== undefined && action !== 'services') throw new UsageError('--restart goes with nodes services');
  if (values.restart !== undefined && !isNodeService(values.restart)) throw new UsageError(`--restart takes one of ${NODE_SERVICES.join(', ')}`);
  for (const o of ['path', 'query', 'tail', 'since', 'pattern', 'out', 'max-size'] as const) if (action !== 'logs') refuse(values[o], `--${o} goes with nodes logs`);
  const scheduling = action === 'cordon' || action === 'uncordon' || action === 'drain';
  if (!scheduling && action !== 'reboot') refuse(values['delete-emptydir-data'], '--delete-emptydir-data goes with nodes drain and nodes reboot');
  if (scheduling && action !== 'drain') for (const o of ['delete-emptydir-data', 'timeout', 'eviction-retry'] as const) refuse(values[o], `--${o} goes with nodes drain`);
  if (scheduling) refuse(values['disable-eviction'], '--disable-eviction goes with nodes reboot');
  const ssh = sshOptions(values);

  if (action === 'logs' && (values.path !== undefined || values.query !== undefined)) return await logsOverApi(nodeName, values);
  const cluster = clusterFor(values);
  if (scheduling) return await schedule(action, nodeName, cluster, values, { timeoutMin, evictionRetry, pollMs });
  const node = await readNode(cluster, nodeName);
  if (typeof node === 'number') return node;
  if (action === 'logs') {
    const viaApi = await logsFolderOverApi(nodeName, cluster, values.out ?? '.', maxSize, ssh);
    if (viaApi !== undefined) return viaApi;
  }
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
          const ok = await confirm(`--disable-eviction deletes the pods of ${nodeName} directly, bypassing their PodDisruptionBudgets: the workloads they protect may go down.\nContinue?`, values.yes);
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
        if (plan.state.blockedBy && !values['disable-eviction']) out('To delete the blocked pods anyway: the same command with --disable-eviction (it asks for confirmation).');
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

const ACTIONS = ['reboot', 'logs', 'services', 'cordon', 'uncordon', 'drain'] as const;

/** How to collect over SSH instead, for the messages of the API paths. */
const sshHint = (node: string): string =>
  `Over SSH instead: kube-windows nodes logs ${node} --context C --out DIR --key FILE (C:\\var\\log and C:\\k\\log, service states and System event log errors).`;

/** --path / --query: one GET through the node proxy, its text to stdout as it arrives. */
async function logsOverApi(
  nodeName: string,
  values: { context?: string; kubeconfig?: string; path?: string; query?: string; tail?: string; since?: string; pattern?: string; out?: string; 'max-size'?: string; address?: string },
): Promise<number> {
  if (values.path !== undefined && values.query !== undefined) throw new UsageError('--path and --query read different things: give one');
  if (values.path !== undefined) for (const o of ['tail', 'since', 'pattern'] as const) refuse(values[o], `--${o} goes with --query (the kubelet takes no options with a file)`);
  refuse(values.out, '--out collects the whole log folder: without --path or --query');
  refuse(values['max-size'], '--max-size goes with --out');
  refuse(values.address, '--address is for SSH: --path and --query go through the API');
  let tail: number | undefined;
  if (values.tail !== undefined) {
    tail = Number(values.tail);
    if (values.tail.trim() === '' || !Number.isInteger(tail) || tail < 0) throw new UsageError('--tail must be a whole number of lines');
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

/** --out through the API: the exit code, or undefined when the node does not serve its logs and SSH may collect them. */
async function logsFolderOverApi(nodeName: string, cluster: Cluster, dir: string, maxSize: number | undefined, ssh: Ssh): Promise<number | undefined> {
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
    ...(t.evictionRetry !== undefined ? { evictionRetryMs: Math.round(t.evictionRetry * 1000) } : timeoutMs ? { evictionRetryMs: Math.min(60_000, timeoutMs) } : {}),
    ...(t.pollMs ? { pollMs: t.pollMs } : {}),
  };
  return withCancel(action === 'drain' ? 'the node stays cordoned; run the drain again to resume' : 'nothing else changes', async (signal) => {
    try {
      if (action === 'drain') {
        const p = await drainPreview(opts, signal);
        for (const s of p.skipped) out(`leaving ${s}`);
        if (p.emptyDir.length > 0 && !values['delete-emptydir-data']) {
          warn(`Not drained: ${p.emptyDir.join(', ')} use emptyDir volumes, whose data is deleted with the pod; pass --delete-emptydir-data if that data may be lost.`);
          return EXIT.FAILED;
        }
        if (p.evict.length > 0) {
          const lost = p.emptyDir.length > 0 ? `\nThe emptyDir data of ${p.emptyDir.join(', ')} is lost.` : '';
          if (!(await confirm(`Cordon ${nodeName} and evict ${p.evict.length} pod(s): ${p.evict.join(', ')}?${lost}\nContinue?`, values.yes))) {
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
      return result.outcome === 'done' ? EXIT.OK : EXIT.FAILED;
    } catch (err) {
      if (signal.aborted || err instanceof UsageError) throw err;
      warn(userMessage(err, cluster.context));
      return EXIT.FAILED;
    }
  });
}

async function services(host: WindowsHost, nodeName: string, restart: string | undefined, yes: boolean, signal: AbortSignal): Promise<number> {
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
