// The node services of a Windows node (kubelet, containerd, kube-proxy, hybrid-overlay-node,
// windows_exporter, csi-proxy, WICD): their state in one round trip, and a restart of one of them.
// Only those services can be restarted from here: the engine is not a general service manager.

import {
  isNodeService,
  NODE_SERVICES,
  nodeServicesState,
  restartService,
  type NodeServiceState,
} from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';
import { addressProblem } from '../core/windows/join-input';
import type { NodeObject } from '../cluster/nodes';
import type { NodeServicesAnswer } from '../cluster/windows-nodes';
import type { SshConnectorOptions } from '../remote/ssh';

export { NODE_SERVICES, isNodeService, type NodeServiceState };

/** The state of every node service (absent ones with exists: false), in NODE_SERVICES order. */
export async function nodeServices(host: WindowsHost, signal?: AbortSignal): Promise<NodeServiceState[]> {
  return (await host.run(nodeServicesState(), signal)).services;
}

/** Restarts one node service and answers its status afterwards; other names are refused. */
export async function restartNodeService(
  host: WindowsHost,
  name: string,
  signal?: AbortSignal,
): Promise<{ name: string; status: string }> {
  if (!isNodeService(name))
    throw new RangeError(
      `"${name}" is not a node service kube-windows restarts; it restarts only ${NODE_SERVICES.join(', ')}.`,
    );
  const r = await host.run(restartService(name), signal);
  return { name, status: r.status };
}

/** A fixed-width table of the services (for the CLI; the tree shows them as items). */
export function servicesTable(services: readonly NodeServiceState[]): string {
  const rows = services.map((s) => [
    s.name,
    s.exists ? (s.status ?? '') : 'not installed',
    s.exists ? (s.startType ?? '') : '',
  ]);
  const head = ['SERVICE', 'STATUS', 'START TYPE'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(width[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}

/** The address SSH uses for a node (the terminal, reboot, logs, services): InternalIP, else ExternalIP. */
export function nodeAddress(node: NodeObject): string | undefined {
  // Anyone who may write node status chooses these strings: only an IP address or a DNS name is used.
  const addrs = (node.status?.addresses ?? []).filter(
    (a) => typeof a.address === 'string' && addressProblem(a.address, 'kubeadm') === undefined,
  );
  return addrs.find((a) => a.type === 'InternalIP')?.address ?? addrs.find((a) => a.type === 'ExternalIP')?.address;
}

/** What a read of the services that must not ask anything needs (the explorer's Services group). */
export interface QuietServicesRead {
  address: string;
  user: string;
  keyPath: string;
  /** The SSH port and known_hosts file (default 22 and ~/.ssh/known_hosts). */
  endpoint?: Pick<SshConnectorOptions, 'port' | 'knownHostsPath'>;
  /** A passphrase kept earlier, or undefined: then the user must connect once. */
  storedPassphrase(keyPath: string): Promise<string | undefined>;
  host(options: SshConnectorOptions): WindowsHost;
  read(host: WindowsHost): Promise<NodeServiceState[]>;
  /** A failure in the user's words (the cluster's error classification). */
  describe(err: unknown): Promise<string>;
}

/**
 * The services of a node read without a question: only a stored passphrase, only a known host key.
 * Whatever would need the user (a passphrase, an unknown host key, another user) becomes "connect".
 */
export async function quietNodeServices(q: QuietServicesRead): Promise<NodeServicesAnswer> {
  let needsUser = false;
  const host = q.host({
    host: q.address,
    username: q.user,
    privateKeyPath: q.keyPath,
    ...q.endpoint,
    ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
    askPassphrase: async (path, attempt) => {
      const stored = attempt === 1 ? await q.storedPassphrase(path) : undefined;
      if (stored === undefined) needsUser = true;
      return stored;
    },
    confirmUnknownHost: async () => {
      needsUser = true;
      return false;
    },
    connectTimeoutMs: 10_000,
  });
  try {
    return { services: await q.read(host) };
  } catch (err) {
    const first = (text: string): string => text.split('\n')[0]?.trim() ?? '';
    if (needsUser || (err instanceof Error && err.name === 'AuthenticationError'))
      return {
        connect: `Connecting to ${q.address} needs your answer (key passphrase, host key or another user): ${first(err instanceof Error ? err.message : String(err))}`,
      };
    return { error: first(await q.describe(err)) };
  } finally {
    host.close();
  }
}
