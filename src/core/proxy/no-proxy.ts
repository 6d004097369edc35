// NO_PROXY: whether a host bypasses the proxy (as Go's net/http/httpproxy reads the list, which
// containerd and the kubelet use: exact names, `.domain` and `domain` suffixes, `*`, IPs and CIDRs),
// and the list a kubeadm node needs so that the cluster's own traffic never goes through the proxy.
import { ipv4Range } from '../cidr';
import { noProxyEntries } from './settings';

const ipv4 = (s: string): number | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((n) => n > 255)) return undefined;
  return parts.reduce((a, n) => a * 256 + n, 0);
};

/** Whether `host` (a name or an IPv4 address, no port) bypasses the proxy under `noProxy`. */
export function bypassesProxy(host: string, noProxy: string | undefined): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const ip = ipv4(h);
  for (const raw of noProxyEntries(noProxy)) {
    const entry = raw.toLowerCase().replace(/:\d+$/, '');
    if (entry === '*') return true;
    if (ip !== undefined) {
      const range = entry.includes('/') ? ipv4Range(entry) : undefined;
      if (range && ip >= range.first && ip <= range.last) return true;
      if (entry === h) return true;
      continue;
    }
    const suffix = entry.replace(/^\*?\./, '');
    if (h === suffix || h.endsWith(`.${suffix}`)) return true;
  }
  return false;
}

/** Names that never leave a cluster: its services' and pods' DNS names, single-label names, loopback. */
export function isClusterLocalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.startsWith('127.') || h === '::1') return true;
  if (!h.includes('.') && ipv4(h) === undefined) return true;
  return /\.(svc|cluster\.local)$/.test(h) || /\.svc\.cluster\.local$/.test(h);
}

/** What a kubeadm node's NO_PROXY holds besides the user's entries. */
export interface KubeadmNoProxyInput {
  /** The cluster's Service CIDRs and Pod CIDRs. */
  serviceCidrs: readonly string[];
  podCidrs: readonly string[];
  /** The API server's host (name or address, no port). */
  apiHost?: string;
  /** The node's own address. */
  nodeAddress?: string;
  /** The cluster's DNS domain (default cluster.local). */
  clusterDomain?: string;
  /** What the user asked for (--no-proxy). */
  extra?: string;
}

/**
 * The NO_PROXY a kubeadm node's containerd and kubelet get: loopback, the cluster's domains, the
 * Service and Pod networks, the API endpoint and the node itself, then the user's own entries;
 * each once, in that order.
 */
export function kubeadmNoProxy(i: KubeadmNoProxyInput): string {
  const domain = i.clusterDomain ?? 'cluster.local';
  const entries = [
    'localhost',
    '127.0.0.1',
    '.svc',
    `.${domain}`,
    ...i.serviceCidrs,
    ...i.podCidrs,
    ...(i.apiHost ? [i.apiHost] : []),
    ...(i.nodeAddress ? [i.nodeAddress] : []),
    ...noProxyEntries(i.extra),
  ];
  const seen = new Set<string>();
  return entries.filter((e) => !seen.has(e.toLowerCase()) && seen.add(e.toLowerCase())).join(',');
}
