// `kube-windows nodes reboot|logs|services NODE`: the node operations of the bootstrap engine from a
// terminal, over SSH to the node's InternalIP (or ExternalIP) with the SSH options and host-key rules
// every command shares (./kit).

import { getNode, type NodeObject } from '../cluster/nodes';
import { collectNodeLogs, DEFAULT_LOG_CAP_BYTES } from '../bootstrap/node-logs';
import { isNodeService, NODE_SERVICES, nodeAddress, nodeServices, restartNodeService, servicesTable } from '../bootstrap/node-services';
import { buildRebootPlan, DEFAULT_REBOOT_TIMEOUT_MINUTES, rebootSummary, type RebootContext, type RebootNode } from '../bootstrap/reboot';
import { renderPlan } from '../bootstrap/render';
import { runPlan, type RunEvent } from '../bootstrap/runner';
import { RemoteError } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import {
  CLUSTER_HELP,
  clusterFor,
  confirm,
  DRY_RUN_HELP,
  EXIT,
  EXIT_CODES_HELP,
  hostFor,
  out,
  parse,
  PLAN_COMMAND_OPTIONS,
  positiveInteger,
  positiveNumber,
  progressLine,
  refuse,
  SSH_HELP,
  sshOptions,
  UsageError,
  userMessage,
  warn,
  withCancel,
  YES_HELP,
} from './kit';

const NODES_HELP = `Usage:
  kube-windows nodes reboot NODE --context C [options] [--delete-emptydir-data] [--disable-eviction] [--timeout MIN] [--dry-run]
  kube-windows nodes logs NODE --context C [options] [--out DIR] [--max-size MB]
  kube-windows nodes services NODE --context C [options] [--restart NAME] [--yes]

reboot    cordon, drain (Eviction API, PodDisruptionBudgets honoured, DaemonSet pods left), Restart-Computer,
          wait for NotReady, on AWS re-add the 169.254.169.254 route, wait for Ready, uncordon, verify.
          Run it again to resume after a failure or Ctrl-C.
  --delete-emptydir-data    evict pods with emptyDir volumes too (their emptyDir data is lost)
  --disable-eviction        delete pods directly, bypassing PodDisruptionBudgets (asks for confirmation)
  --timeout MIN             wait for the host and for NotReady/Ready at most MIN minutes each (default ${DEFAULT_REBOOT_TIMEOUT_MINUTES})
  --eviction-retry SEC      retry evictions refused by a PodDisruptionBudget for SEC seconds (default 60)
${DRY_RUN_HELP} (reboot only)
logs      C:\\var\\log and C:\\k\\log over SFTP, service states and System event log errors into DIR/<node>-<time>/
  --out DIR                 default: the current folder
  --max-size MB             download at most MB megabytes of log files (default ${DEFAULT_LOG_CAP_BYTES / 1048576}); the listing is checked first
services  the state of ${NODE_SERVICES.join(', ')}
  --restart NAME            restart one of them (asks first)
${YES_HELP}

Cluster options:
${CLUSTER_HELP}
SSH options (to the node's InternalIP, else its ExternalIP):
  --address A               SSH to A instead
${SSH_HELP}
${EXIT_CODES_HELP}`;

export async function runNodes(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      ...PLAN_COMMAND_OPTIONS,
      address: { type: 'string' },
      'delete-emptydir-data': { type: 'boolean', default: false },
      'disable-eviction': { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'eviction-retry': { type: 'string' },
      out: { type: 'string', default: '.' },
      'max-size': { type: 'string' },
      restart: { type: 'string' },
    },
    true,
  );
  const [action, nodeName, ...extra] = positionals;
  if (values.help || action === 'help') {
    process.stdout.write(NODES_HELP);
    return EXIT.OK;
  }
  if (action !== 'reboot' && action !== 'logs' && action !== 'services')
    throw new UsageError(`nodes takes reboot, logs or services${action ? `, not "${action}"` : ''}; try "kube-windows nodes --help"`);
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
  const ssh = sshOptions(values);

  const cluster = clusterFor(values);
  let node: NodeObject | undefined;
  try {
    node = await getNode(cluster.kube, nodeName);
  } catch (err) {
    warn(userMessage(err, cluster.context));
    return EXIT.USAGE;
  }
  if (!node) {
    warn(`there is no node "${nodeName}" in context ${cluster.context}`);
    return EXIT.USAGE;
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
            dir: values.out,
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
        const plan = buildRebootPlan(opts);
        if (values['dry-run']) {
          out(renderPlan(plan as never));
          return EXIT.OK;
        }
        const ctx: RebootContext = { opts, state: {} };
        const result = await runPlan(plan, ctx, {
          signal,
          onEvent: (e: RunEvent) => {
            if (e.type === 'plan-end') return;
            const line = progressLine('', e);
            if (line) out(line);
          },
        });
        out(rebootSummary(result, nodeName));
        if (ctx.state.blockedBy && !values['disable-eviction']) out('To delete the blocked pods anyway: the same command with --disable-eviction (it asks for confirmation).');
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
