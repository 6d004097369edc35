// What can be checked of a cluster-wide proxy before any Windows host exists (a MachineSet's Machines
// are made later) and before a BYOH host is reached: that its URLs are URLs a node can use, that the
// NO_PROXY WMCO gives the node keeps the cluster's own traffic (cluster, service and machine networks,
// the API endpoints) away from the proxy, and that the trusted CA bundle it names is there for WMCO
// to import. Proxy URLs may carry credentials: they are parsed here, never repeated. Pure.
import { ipv4Range } from '../cidr';
import { counted } from '../plural';
import type { Finding } from '../windows/findings';
import { bypassesProxy } from './no-proxy';
import { noProxyEntries, redactProxyUrl } from './settings';

export interface ProxySanityInput {
  /** The proxy URLs as the Proxy holds them (may carry credentials). */
  httpProxy?: string;
  httpsProxy?: string;
  /** The effective NO_PROXY (the Proxy's status: what WMCO sets on the node). */
  noProxy?: string;
  clusterNetworks: readonly string[];
  serviceNetworks: readonly string[];
  machineNetworks?: readonly string[];
  /** Host names of the API endpoints nodes talk to (api-int). */
  apiHosts: readonly string[];
  /** spec.trustedCA.name, with how many certificates its ConfigMap holds or why it cannot be used. */
  trustedCA?: { name: string; certificates: number; problem?: string };
}

/** Why a proxy URL cannot be used, or undefined when it can. */
export function proxyUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `scheme ${u.protocol.replace(/:$/, '')}, not http or https`;
  if (!u.hostname) return 'no host';
  if (u.pathname !== '/' && u.pathname !== '') return `a path (${u.pathname}), which a proxy URL does not take`;
  return undefined;
}

/** Whether NO_PROXY sends a network (an IPv4 CIDR: within an entry's range; anything else: the entry itself). */
function networkBypassed(cidr: string, noProxy: string | undefined): boolean {
  const want = ipv4Range(cidr);
  return noProxyEntries(noProxy).some((raw) => {
    const entry = raw.toLowerCase();
    if (entry === '*' || entry === cidr.toLowerCase()) return true;
    const r = want && entry.includes('/') ? ipv4Range(entry) : undefined;
    return Boolean(want && r && want.first >= r.first && want.last <= r.last);
  });
}

/** The sanity findings of a cluster's proxy: URLs, NO_PROXY coverage, the trusted CA bundle. */
export function proxySanity(i: ProxySanityInput): Finding[] {
  const out: Finding[] = [];
  for (const [field, url] of [
    ['httpProxy', i.httpProxy],
    ['httpsProxy', i.httpsProxy],
  ] as const) {
    if (!url) continue;
    const problem = proxyUrlProblem(url);
    out.push(
      problem
        ? {
            id: 'proxy-url',
            severity: 'error',
            title: `The Proxy's ${field} ${redactProxyUrl(url)} cannot be used by a node: ${problem}`,
            fix: `Set ${field} of proxies.config.openshift.io/cluster to http://host:port (or http://user:password@host:port).`,
          }
        : { id: 'proxy-url', severity: 'info', title: `The Proxy's ${field} ${redactProxyUrl(url)} is a usable URL` },
    );
  }
  const networks = [
    ...i.clusterNetworks.map((n) => ({ n, what: 'cluster network' })),
    ...i.serviceNetworks.map((n) => ({ n, what: 'service network' })),
    ...(i.machineNetworks ?? []).map((n) => ({ n, what: 'machine network' })),
  ];
  const missing = [
    ...networks.filter((x) => !networkBypassed(x.n, i.noProxy)).map((x) => `the ${x.what} ${x.n}`),
    ...i.apiHosts.filter((h) => !bypassesProxy(h, i.noProxy)).map((h) => `the API endpoint ${h}`),
  ];
  const checked = networks.length + i.apiHosts.length;
  out.push(
    missing.length > 0
      ? {
          id: 'no-proxy',
          severity: 'error',
          title: `NO_PROXY (the Proxy's status) leaves ${missing.join(', ')} to the proxy: the node's kubelet and containerd would send the cluster's own traffic through it`,
          fix: `Add them to spec.noProxy of proxies.config.openshift.io/cluster (OpenShift adds its own networks to status.noProxy once the network operator has reconciled: check that it has).`,
        }
      : {
          id: 'no-proxy',
          severity: 'info',
          title: `NO_PROXY keeps the cluster's networks and API endpoints away from the proxy (${counted(checked, 'address', 'addresses')} checked)`,
        },
  );
  const ca = i.trustedCA;
  if (!ca)
    out.push({
      id: 'trusted-ca',
      severity: 'info',
      title: 'No trusted CA bundle: the proxy is trusted through the default bundle',
    });
  else if (ca.problem || ca.certificates === 0)
    out.push({
      id: 'trusted-ca',
      severity: 'error',
      title: `The trusted CA bundle ConfigMap openshift-config/${ca.name} cannot be used: ${ca.problem ?? 'no certificate under ca-bundle.crt'}`,
      fix: `Create it with the proxy's CA under the key ca-bundle.crt (oc create configmap ${ca.name} --from-file=ca-bundle.crt=<file> -n openshift-config): WMCO imports it into each Windows node's LocalMachine\\Root.`,
    });
  else
    out.push({
      id: 'trusted-ca',
      severity: 'info',
      title: `The trusted CA bundle openshift-config/${ca.name} holds ${counted(ca.certificates, 'certificate')} for WMCO to import`,
    });
  return out;
}
