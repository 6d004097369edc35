// The node services of a Windows node (kubelet, containerd, kube-proxy, hybrid-overlay-node,
// windows_exporter, csi-proxy, WICD): their state in one round trip, and a restart of one of them.
// Only those services can be restarted from here: the engine is not a general service manager.

import { isNodeService, NODE_SERVICES, nodeServicesState, restartService, type NodeServiceState } from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';
import type { NodeObject } from '../cluster/nodes';

export { NODE_SERVICES, isNodeService, type NodeServiceState };

/** The state of every node service (absent ones with exists: false), in NODE_SERVICES order. */
export async function nodeServices(host: WindowsHost, signal?: AbortSignal): Promise<NodeServiceState[]> {
  return (await host.run(nodeServicesState(), signal)).services;
}

/** Restarts one node service and answers its status afterwards; other names are refused. */
export async function restartNodeService(host: WindowsHost, name: string, signal?: AbortSignal): Promise<{ name: string; status: string }> {
  if (!isNodeService(name)) throw new RangeError(`"${name}" is not a node service kube-windows restarts; it restarts only ${NODE_SERVICES.join(', ')}.`);
  const r = await host.run(restartService(name), signal);
  return { name, status: r.status };
}

/** A fixed-width table of the services (for the CLI; the tree shows them as items). */
export function servicesTable(services: readonly NodeServiceState[]): string {
  const rows = services.map((s) => [s.name, s.exists ? (s.status ?? '') : 'not installed', s.exists ? (s.startType ?? '') : '']);
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
  const addrs = node.status?.addresses ?? [];
  return addrs.find((a) => a.type === 'InternalIP')?.address ?? addrs.find((a) => a.type === 'ExternalIP')?.address;
}
