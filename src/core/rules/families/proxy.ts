// OCP005: on a cluster with a cluster-wide egress proxy, a Windows container that reaches outside the
// cluster without HTTP(S)_PROXY in its environment. WMCO applies the proxy to the node's services
// only: Windows workloads do not inherit the node's proxy variables (OKD, "Using Windows containers
// in a proxy-enabled cluster"), so such a request goes direct and, where egress is closed, fails.
import { getAt, isObj, type Path } from '../../manifest/path';
import type { ContainerView } from '../../manifest/workloads';
import { egressEvidence } from '../../proxy/egress';
import { noProxyEntries, type ClusterProxyFacts } from '../../proxy/settings';
import { inferredNote } from '../helpers';
import type { PodRule } from '../types';

/** Where a container names what it runs: its command and args, exec probes and hooks. */
const RUN_PLACES: Path[] = [
  ['command'],
  ['args'],
  ['lifecycle', 'postStart', 'exec', 'command'],
  ['lifecycle', 'preStop', 'exec', 'command'],
  ['livenessProbe', 'exec', 'command'],
  ['readinessProbe', 'exec', 'command'],
  ['startupProbe', 'exec', 'command'],
];

const PROXY_NAMES = new Set(['http_proxy', 'https_proxy']);

/** The container sets HTTP(S)_PROXY, or takes variables from elsewhere (envFrom) that may. */
function mayHaveProxy(c: ContainerView): boolean {
  const env = c.value.env;
  if (
    Array.isArray(env) &&
    env.some((e) => isObj(e) && typeof e.name === 'string' && PROXY_NAMES.has(e.name.toLowerCase()))
  )
    return true;
  const from = c.value.envFrom;
  return Array.isArray(from) && from.length > 0;
}

/** The NO_PROXY a workload needs: the cluster's list, else its own domains at least. */
const workloadNoProxy = (p: ClusterProxyFacts): string =>
  noProxyEntries(p.noProxy).length > 0 ? (p.noProxy as string) : '.cluster.local,.svc,localhost,127.0.0.1';

const OCP005: PodRule = {
  id: 'OCP005',
  admission: { enforceable: false, why: 'node-facts', detail: "needs the cluster's proxy configuration" },
  scope: 'pod',
  family: 'openshift',
  severity: 'info',
  title:
    "Windows container that reaches outside the cluster (URLs, Invoke-WebRequest, curl, package feeds) without HTTP_PROXY/HTTPS_PROXY on a cluster with a cluster-wide proxy: workloads do not inherit the node's proxy settings (with cluster facts).",
  check({ pod, target, facts }, report) {
    const proxy = facts.cluster?.openshift?.proxy;
    if (!proxy || !(proxy.httpProxy || proxy.httpsProxy) || target.os !== 'windows') return;
    const url = proxy.httpsProxy ?? proxy.httpProxy ?? '';
    for (const c of pod.containers) {
      if (mayHaveProxy(c)) continue;
      let where: Path | undefined;
      const evidence: string[] = [];
      for (const rel of RUN_PLACES) {
        const v = getAt(c.value, rel);
        const text = Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(' ') : '';
        const found = egressEvidence(text, proxy.noProxy);
        if (found.length === 0) continue;
        where ??= rel;
        for (const f of found) if (!evidence.includes(f.what)) evidence.push(f.what);
      }
      if (!where) continue;
      const shown = evidence.slice(0, 3).join(', ') + (evidence.length > 3 ? ', …' : '');
      const entries = [
        ...(proxy.httpProxy ? [{ name: 'HTTP_PROXY', value: proxy.httpProxy }] : []),
        ...(proxy.httpsProxy ? [{ name: 'HTTPS_PROXY', value: proxy.httpsProxy }] : []),
        { name: 'NO_PROXY', value: workloadNoProxy(proxy) },
      ];
      const credentials = proxy.credentials
        ? ' The proxy takes credentials, left out here: give the URL with them from a Secret (valueFrom.secretKeyRef).'
        : '';
      report({
        path: [...c.path, ...where],
        message: `Container "${c.name}" reaches outside the cluster (${shown}) but has no HTTP_PROXY or HTTPS_PROXY in its environment${inferredNote(target)}. This cluster sends egress through the proxy ${url} (proxies.config.openshift.io/cluster), which WMCO applies to the Windows node's services only: Windows workloads do not inherit it, so the request goes direct and fails where egress is closed. Add HTTP_PROXY, HTTPS_PROXY and NO_PROXY to the container's env; NO_PROXY keeps the cluster's own domains and service network off the proxy.${credentials}`,
        fixes: [
          {
            title: `Add HTTP_PROXY, HTTPS_PROXY and NO_PROXY for the cluster's proxy (${url})`,
            kind: 'rewrite',
            // One edit: the env list as it is, then the three entries.
            ops: [
              {
                op: 'set',
                path: [...c.path, 'env'],
                value: [...(Array.isArray(c.value.env) ? c.value.env : []), ...entries],
              },
            ],
          },
        ],
      });
    }
  },
};

export const proxyRules = [OCP005];
