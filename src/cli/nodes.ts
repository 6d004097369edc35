// `kube-windows nodes reboot|logs|services NODE`: the node operations of the bootstrap engine from a
// terminal, over SSH to the node's InternalIP (or ExternalIP) with the same host-key and key rules
// as `join` (the host is built by join.ts's hostFor).

import { parseArgs } from 'node:util';
import { getNode, type NodeObject } from '../cluster/nodes';
import { collectNodeLogs, DEFAULT_LOG_CAP_BYTES } from '../bootstrap/node-logs';
import { isNodeService, NODE_SERVICES, nodeAddress, nodeServices, restartNodeService, servicesTable } from '../bootstrap/node-services';
import { buildRebootPlan, DEFAULT_REBOOT_TIMEOUT_MINUTES, rebootSummary, type RebootContext, type RebootNode } from '../bootstrap/reboot';
import { renderPlan } from '../bootstrap/render';
import { runPlan, type RunEvent } from '../bootstrap/runner';
import { RemoteCommandError } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import { ask, clusterFor, hostFor, JoinUsageError, progressLine, userMessage } from './join';

export const NODES_HELP = `Usage:
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
logs      C:\\var\\log and C:\\k\\log over SFTP, service states and System event log errors into DIR/<node>-<time>/
  --out DIR                 default: the current folder
  --max-size MB             download at most MB megabytes of log files (default ${DEFAULT_LOG_CAP_BYTES / 1048576}); the listing is checked first
services  the state of ${NODE_SERVICES.join(', ')}
  --restart NAME            restart one of them (asks first; --yes does not)

SSH options (as for join):
  --user U                  the Windows account (default Administrator)
  --key FILE                private key (else the keys of ssh-agent, SSH_AUTH_SOCK)
  --address A               SSH to A instead of the node's InternalIP/ExternalIP
  --port N  --known-hosts FILE  --accept-new-host-key  --kubeconfig FILE
Exit codes: 0 done, 1 the operation failed or was cancelled, 2 usage or connection error.
`;

async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  const answer = await ask(`${question} [y/N] `, false);
  if (answer === undefined) throw new JoinUsageError(`${question.split('\n')[0]}: no terminal to ask on; pass --yes to confirm`);
  return /^y(es)?$/i.test(answer.trim());
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);

export async function runNodes(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      context: { type: 'string' },
      kubeconfig: { type: 'string' },
      user: { type: 'string', default: 'Administrator' },
      key: { type: 'string' },
      port: { type: 'string' },
      address: { type: 'string' },
      'known-hosts': { type: 'string' },
      'accept-new-host-key': { type: 'boolean', default: false },
      'delete-emptydir-data': { type: 'boolean', default: false },
      'disable-eviction': { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'eviction-retry': { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'poll-interval': { type: 'string' },
      out: { type: 'string', default: '.' },
      'max-size': { type: 'string' },
      restart: { type: 'string' },
      yes: { type: 'boolean', short: 'y', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [action, nodeName, ...extra] = positionals;
  if (values.help || action === 'help') {
    process.stdout.write(NODES_HELP);
    return 0;
  }
  if (action !== 'reboot' && action !== 'logs' && action !== 'services')
    throw new JoinUsageError(`nodes takes reboot, logs or services${action ? `, not "${action}"` : ''}; try "kube-windows nodes --help"`);
  if (!nodeName) throw new JoinUsageError(`nodes ${action} needs the node name`);
  if (extra.length > 0) throw new JoinUsageError(`unexpected argument "${extra[0]}"`);
  const positive = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new JoinUsageError(`--${name} takes a positive number`);
    return n;
  };
  const timeoutMin = positive('timeout', values.timeout);
  const evictionRetry = values['eviction-retry'] === '0' ? 0 : positive('eviction-retry', values['eviction-retry']);
  const maxSize = positive('max-size', values['max-size']);
  const pollMs = positive('poll-interval', values['poll-interval']);
  if (values.restart !== undefined && action !== 'services') throw new JoinUsageError('--restart goes with nodes services');
  if (values.restart !== undefined && !isNodeService(values.restart)) throw new JoinUsageError(`--restart takes one of ${NODE_SERVICES.join(', ')}`);

  const cluster = clusterFor(values);
  let node: NodeObject | undefined;
  try {
    node = await getNode(cluster.kube, nodeName);
  } catch (err) {
    process.stderr.write(`kube-windows: ${userMessage(err, cluster.context)}\n`);
    return 2;
  }
  if (!node) {
    process.stderr.write(`kube-windows: there is no node "${nodeName}" in context ${cluster.context}\n`);
    return 2;
  }
  const address = values.address ?? nodeAddress(node);
  if (!address) {
    process.stderr.write(`kube-windows: the node ${nodeName} has no InternalIP or ExternalIP address; pass --address\n`);
    return 2;
  }
  const host = hostFor(address, values.user, values);
  const ctl = new AbortController();
  const onSigint = (): void => {
    process.stderr.write('kube-windows: cancelling (run the same command again to resume)\n');
    ctl.abort(new Error('cancelled by the user'));
  };
  process.once('SIGINT', onSigint);
  try {
    if (action === 'services') return await services(host, nodeName, values.restart, values.yes, ctl.signal);
    if (action === 'logs') {
      const r = await collectNodeLogs({
        host,
        nodeName,
        dir: values.out,
        ...(maxSize ? { maxBytes: Math.floor(maxSize * 1048576) } : {}),
        signal: ctl.signal,
        onProgress: (m, f) => out(`  ${f === undefined ? m : `${Math.round(f * 100)}% ${m}`}`),
      });
      out(r.message);
      return 0;
    }
    // reboot
    if (values['disable-eviction'] && !values['dry-run']) {
      const ok = await confirm(`--disable-eviction deletes the pods of ${nodeName} directly, bypassing their PodDisruptionBudgets: the workloads they protect may go down.\nContinue?`, values.yes);
      if (!ok) {
        out('Not rebooted.');
        return 1;
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
      return 0;
    }
    const ctx: RebootContext = { opts, state: {} };
    const result = await runPlan(plan, ctx, {
      signal: ctl.signal,
      onEvent: (e: RunEvent) => {
        if (e.type === 'plan-end') return;
        const line = progressLine('', e);
        if (line) out(line);
      },
    });
    out(rebootSummary(result, nodeName));
    if (ctx.state.blockedBy && !values['disable-eviction']) out('To delete the blocked pods anyway: the same command with --disable-eviction (it asks for confirmation).');
    return result.outcome === 'done' ? 0 : 1;
  } catch (err) {
    if (ctl.signal.aborted) {
      process.stderr.write('kube-windows: cancelled\n');
      return 1;
    }
    if (err instanceof JoinUsageError) throw err;
    process.stderr.write(`kube-windows: ${userMessage(err, cluster.context)}\n`);
    // A command that ran on the host and failed is the operation failing; anything else (connection, authentication, host key) is 2.
    return err instanceof RemoteCommandError ? 1 : 2;
  } finally {
    process.removeListener('SIGINT', onSigint);
    host.close();
  }
}

async function services(host: WindowsHost, nodeName: string, restart: string | undefined, yes: boolean, signal: AbortSignal): Promise<number> {
  if (restart !== undefined) {
    if (!(await confirm(`Restart the ${restart} service on ${nodeName}?`, yes))) {
      out('Not restarted.');
      return 1;
    }
    const r = await restartNodeService(host, restart, signal);
    out(`${r.name} restarted on ${nodeName}: ${r.status}`);
  }
  process.stdout.write(servicesTable(await nodeServices(host, signal)));
  return 0;
}
