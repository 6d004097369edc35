// The proxy preflight of the WMCO joins on a proxy-enabled cluster (a step of the BYOH join and of
// the MachineSet follow, and the check before a MachineSet is created). The cluster's side first:
// the Proxy's URLs, its NO_PROXY against the cluster's networks and API endpoints, the trusted CA
// bundle. Then, for a BYOH host reached over SSH, the way out: the host reaches the proxy and,
// through it, each registry the node will pull from (the pause image's, the release payload's,
// every mirror of the cluster's mirror sets), each failure naming its endpoint and where it failed.
// A MachineSet has no host yet: what only the machine can show is said as such.
import type { KubeClient } from '../cluster/kube-client';
import { CLUSTER_CONFIG_CALLS, clusterProxy, MIRROR_SET_PATHS } from '../cluster/openshift';
import { readProxyPreflightFacts, type ProxyPreflightFacts } from '../cluster/proxy';
import { nodeRegistries, splitByNoProxy, type NodeRegistry } from '../core/proxy/node-registries';
import { reachFindings, registryProbeUrl } from '../core/proxy/reach';
import { proxySanity } from '../core/proxy/sanity';
import { proxyFacts, redactProxyUrl } from '../core/proxy/settings';
import { reachThroughProxy } from '../core/windows/proxy-ops';
import type { Finding } from '../core/windows/findings';
import type { WindowsHost } from '../remote/windows-host';
import type { Step } from './plan';
import { blocking, findingLine, PreflightError } from './preflight';

const CREDENTIALS_WHERE =
  'Give the user and password in the proxy URL of proxies.config.openshift.io/cluster (http://user:password@proxy:port): WMCO passes the URL on to the node as it is.';

const registryList = (rs: readonly NodeRegistry[]): string => rs.map((r) => `${r.host} (${r.why})`).join(', ');

/** The cluster's side: what holds whatever host joins (empty when the cluster has no proxy). */
function clusterProxyFindings(f: ProxyPreflightFacts): Finding[] {
  const { facts, raw, thumbprints, caProblem } = f.proxy;
  if (!facts) return [];
  return proxySanity({
    ...(raw?.httpProxy ? { httpProxy: raw.httpProxy } : {}),
    ...(raw?.httpsProxy ? { httpsProxy: raw.httpsProxy } : {}),
    ...(facts.noProxy ? { noProxy: facts.noProxy } : {}),
    clusterNetworks: f.clusterNetworks,
    serviceNetworks: f.serviceNetworks,
    apiHosts: f.apiHosts,
    ...(facts.trustedCA
      ? {
          trustedCA: {
            name: facts.trustedCA,
            certificates: thumbprints.length,
            ...(caProblem ? { problem: caProblem } : {}),
          },
        }
      : {}),
  });
}

/** The registries the node pulls from, by how it reaches them. */
function registries(f: ProxyPreflightFacts): { through: NodeRegistry[]; direct: NodeRegistry[] } {
  return splitByNoProxy(
    nodeRegistries({ ...(f.releaseImage ? { releaseImage: f.releaseImage } : {}), mirrorSets: f.mirrorSets }),
    f.proxy.facts?.noProxy,
  );
}

/** The direct registries and a missing HTTPS proxy, in words (info). */
function directFindings(f: ProxyPreflightFacts, direct: readonly NodeRegistry[]): Finding[] {
  const out: Finding[] = [];
  if (direct.length > 0)
    out.push({
      id: 'registry-direct',
      severity: 'info',
      title: `NO_PROXY sends ${registryList(direct)} direct, not through the proxy: not checked through it`,
    });
  if (!f.proxy.raw?.httpsProxy)
    out.push({
      id: 'registry-direct',
      severity: 'info',
      title: 'The Proxy has no httpsProxy: registry pulls (HTTPS) do not go through it',
    });
  return out;
}

/** Everything checked for a BYOH host: the cluster's side, then the way out from the host. */
async function byohProxyFindings(kube: KubeClient, host: WindowsHost, signal?: AbortSignal): Promise<Finding[]> {
  const f = await readProxyPreflightFacts(kube, signal);
  if (!f.proxy.facts) return [];
  const out = clusterProxyFindings(f);
  const { through, direct } = registries(f);
  out.push(...directFindings(f, direct));
  const proxy = f.proxy.raw?.httpsProxy;
  if (!proxy || through.length === 0 || blocking(out).some((x) => x.id === 'proxy-url')) return out;
  const { results } = await host.run(
    reachThroughProxy(
      proxy,
      through.map((r) => registryProbeUrl(r.host)),
    ),
    signal,
  );
  out.push(
    ...reachFindings(proxy, results, {
      credentialsWhere: CREDENTIALS_WHERE,
      ...(f.proxy.facts.trustedCA ? { trustedCA: f.proxy.facts.trustedCA } : {}),
    }),
  );
  return out;
}

/** Everything checked for a MachineSet: the cluster's side, and what waits for the Machines (info). */
export async function machineSetProxyFindings(kube: KubeClient, signal?: AbortSignal): Promise<Finding[]> {
  const f = await readProxyPreflightFacts(kube, signal);
  if (!f.proxy.facts) return [];
  const out = clusterProxyFindings(f);
  const { through, direct } = registries(f);
  out.push(...directFindings(f, direct));
  const proxy = f.proxy.raw?.httpsProxy ?? f.proxy.raw?.httpProxy;
  out.push({
    id: 'proxy-reach-later',
    severity: 'info',
    title: `Not checked until a Machine exists: that its VM reaches the proxy ${redactProxyUrl(proxy ?? '')} and, through it, ${through.length > 0 ? registryList(through) : 'no registry (all are direct)'}; WMCO configures the proxy on it, and \`kube-windows nodes proxy NODE\` shows what the node got`,
  });
  return out;
}

/** What the step's dry run shows it reads. */
const READS = [
  ...CLUSTER_CONFIG_CALLS,
  ...Object.values(MIRROR_SET_PATHS).map((path) => ({ verb: 'GET', path })),
  { verb: 'GET', path: '/apis/operator.openshift.io/v1alpha1/imagecontentsourcepolicies' },
];

/**
 * The proxy preflight as a plan step: read-only; done at once on a cluster without a cluster-wide
 * proxy (nothing to check), else run every time, stopping the plan with the blocking findings as the
 * other preflights do. With a host (BYOH) the way out from it is checked, without one (a MachineSet)
 * what waits for the Machines is said. `record` keeps the findings with the plan's state (what VS
 * Code's failure summary reads).
 */
export function proxyPreflightStep<Ctx>(o: {
  kube: (ctx: Ctx) => KubeClient;
  host?: (ctx: Ctx) => WindowsHost;
  record?: (ctx: Ctx, findings: Finding[]) => void;
}): Step<Ctx> {
  const host = o.host;
  return {
    id: 'proxy-preflight',
    title: host
      ? "Check the cluster's proxy, and that the host reaches it and the registries through it"
      : "Check the cluster's proxy for the Windows Machines",
    description: host
      ? "On a cluster with a cluster-wide proxy: its URLs, NO_PROXY against the cluster's networks and API endpoints, the trusted CA bundle; then, from the host, the proxy and each registry the node pulls from through it (the pause image's, the release payload's, every mirror)."
      : "On a cluster with a cluster-wide proxy: its URLs, NO_PROXY against the cluster's networks and API endpoints, the trusted CA bundle. That a Machine's VM reaches the proxy can only be seen once it exists.",
    preview: {
      check: 'done when the cluster has no cluster-wide proxy (nothing to check); else it runs, and only reads',
      ...(host ? { powershell: [reachThroughProxy('<proxy>', [registryProbeUrl('<registry>')]).script] } : {}),
      api: READS,
    },
    check: async (ctx, signal) => (proxyFacts(await clusterProxy(o.kube(ctx), signal)) ? 'todo' : 'done'),
    apply: async (ctx, signal, report) => {
      const findings = host
        ? await byohProxyFindings(o.kube(ctx), host(ctx), signal)
        : await machineSetProxyFindings(o.kube(ctx), signal);
      o.record?.(ctx, findings);
      for (const f of findings) report(findingLine(f));
      if (blocking(findings).length > 0) throw new PreflightError(findings);
    },
    verify: async () => true,
    timeoutMs: 180_000,
  };
}
