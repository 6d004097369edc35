// What kube-windows says about a cluster's proxy and a node's proxy environment: the cluster row's
// lines, the support verdict for Windows nodes, and the per-service table of `nodes proxy` and
// "Show proxy settings". Pure.
import { featureVerdict, FEATURE_SUPPORT, parseOpenShiftRelease } from '../openshift/windows-support';
import { counted } from '../plural';
import { driftPhrases, type NodeProxyComparison, type VariableCheck } from './node-env';
import { noProxyEntries, proxySummary, type ClusterProxyFacts } from './settings';

/** Whether the cluster's OpenShift release supports a cluster-wide proxy on Windows nodes, in words. */
export function proxySupport(openshiftVersion: string | undefined): { supported?: boolean; text: string } {
  const since = FEATURE_SUPPORT.clusterWideProxy.since;
  const r = openshiftVersion ? parseOpenShiftRelease(openshiftVersion) : undefined;
  if (!r)
    return {
      text: `supported on Windows nodes from OpenShift ${since} (WMCO 9.0.0); the cluster's release is unknown`,
    };
  const v = featureVerdict('clusterWideProxy', r);
  return v.supported
    ? {
        supported: true,
        text: `supported on Windows nodes on OpenShift ${r.major}.${r.minor} (from ${since}, WMCO 9.0.0)`,
      }
    : { supported: false, text: `${v.reason}: WMCO does not configure it on Windows nodes` };
}

/** The cluster row's proxy lines (Markdown-free; the caller escapes). */
export function clusterProxyLines(p: ClusterProxyFacts, openshiftVersion?: string): string[] {
  const no = noProxyEntries(p.noProxy);
  return [
    `Cluster-wide proxy: ${[p.httpProxy && `HTTP ${p.httpProxy}`, p.httpsProxy && `HTTPS ${p.httpsProxy}`].filter(Boolean).join(', ')}${p.credentials ? ' (with credentials, not shown)' : ''}`,
    `NO_PROXY: ${no.length > 0 ? `${no.join(', ')} (${counted(no.length, 'entry', 'entries')})` : 'none'}`,
    `Trusted CA bundle: ${p.trustedCA ? `ConfigMap openshift-config/${p.trustedCA}` : 'none (the proxy is trusted through the default bundle)'}`,
    `On Windows: ${proxySupport(openshiftVersion).text}; WMCO sets HTTP_PROXY, HTTPS_PROXY and NO_PROXY on each Windows node and reconciles them periodically. Workloads and PowerShell sessions do not inherit them.`,
  ];
}

/** The short form for the row's label. */
export const clusterProxyLabel = (p: ClusterProxyFacts): string => proxySummary(p);

const cell = (v: VariableCheck): string => {
  const actual = v.actual === undefined ? '(unset)' : v.actual;
  if (v.equal) return `${actual}${v.source === 'service' ? ' [service]' : ''}`;
  return `${actual}${v.source === 'service' ? ' [service]' : ''}  ≠ expected ${v.expected ?? '(unset)'}`;
};

/** When a node was last seen equal to what the cluster expects, in words. */
function lastSeenWords(lastEqual: string | undefined, now: Date): string {
  if (!lastEqual) return 'never seen equal by kube-windows';
  const mins = Math.max(0, Math.round((now.getTime() - Date.parse(lastEqual)) / 60_000));
  const ago =
    mins < 1
      ? 'just now'
      : mins < 120
        ? `${counted(mins, 'minute')} ago`
        : `${counted(Math.round(mins / 60), 'hour')} ago`;
  return `last seen equal ${lastEqual} (${ago})`;
}

/** One line: in step with the cluster, or which settings drifted. */
export function driftLine(
  c: NodeProxyComparison,
  managedBy: 'wmco' | 'kubeadm',
  lastEqual?: string,
  now = new Date(),
): string {
  if (c.equal) return 'The proxy settings match what the cluster expects.';
  const what = driftPhrases(c);
  const who =
    managedBy === 'wmco'
      ? 'WMCO reconciles this periodically'
      : 'run `kube-windows join --via kubeadm --proxy …` again to set them';
  return `Drift: ${what.join(', ')} ${what.length === 1 ? 'differs' : 'differ'} from what the cluster expects (${who}; ${lastSeenWords(lastEqual, now)}).`;
}

/**
 * The one-line verdict of "Show proxy settings" on `node`: its drift (as driftLine says it), that it matches
 * what the cluster expects, or that neither side has a proxy.
 */
export function proxyVerdict(
  node: string,
  expected: {
    variables: Record<string, unknown>;
    thumbprints: readonly string[];
    from: string;
    managedBy: 'wmco' | 'kubeadm';
  },
  c: NodeProxyComparison,
  lastEqual?: string,
): string {
  if (!c.equal) return `${node}: ${driftLine(c, expected.managedBy, lastEqual)}`;
  const none = Object.keys(expected.variables).length === 0 && expected.thumbprints.length === 0;
  return none
    ? `${node} has no proxy settings, and ${expected.from.replace(/^the cluster has/, 'its cluster has')}.`
    : `the proxy settings of ${node} match what the cluster expects (${expected.from}).`;
}

/** The report of `nodes proxy` / "Show proxy settings": expected values, machine and per-service values, CA. */
export function nodeProxyReport(o: {
  node: string;
  expected: { HTTP_PROXY?: string; HTTPS_PROXY?: string; NO_PROXY?: string };
  expectedFrom: string;
  comparison: NodeProxyComparison;
  managedBy: 'wmco' | 'kubeadm';
  lastEqual?: string;
  caProblem?: string;
  now?: Date;
}): string {
  const c = o.comparison;
  const lines = [`Proxy settings of ${o.node}`, '', `Expected (${o.expectedFrom}):`];
  for (const v of c.machine) lines.push(`  ${v.name.padEnd(11)} ${v.expected ?? '(unset)'}`);
  lines.push('', 'Machine environment (HKLM\\...\\Session Manager\\Environment):');
  for (const v of c.machine) lines.push(`  ${v.name.padEnd(11)} ${cell(v)}`);
  for (const s of c.services) {
    lines.push(
      '',
      `Service ${s.name}${s.exists ? " (effective: its own Environment, else the machine's)" : ': not installed'}`,
    );
    if (s.exists) for (const v of s.variables) lines.push(`  ${v.name.padEnd(11)} ${cell(v)}`);
  }
  lines.push('');
  if (o.caProblem) lines.push(`Trusted CA bundle: not checked (${o.caProblem}).`);
  else if (c.expectedCertificates === 0) lines.push('Trusted CA bundle: none expected.');
  else if (c.missingCertificates.length === 0)
    lines.push(`Trusted CA bundle: all ${counted(c.expectedCertificates, 'certificate')} in LocalMachine\\Root.`);
  else
    lines.push(
      `Trusted CA bundle: ${counted(c.missingCertificates.length, 'certificate')} of ${c.expectedCertificates} missing from LocalMachine\\Root (${c.missingCertificates.join(', ')}).`,
    );
  lines.push('', driftLine(c, o.managedBy, o.lastEqual, o.now));
  lines.push(
    "Workloads do not inherit these settings: set HTTP_PROXY, HTTPS_PROXY and NO_PROXY in a container's env (rule OCP005).",
  );
  return lines.join('\n') + '\n';
}

/**
 * Why `join --via byoh` takes no --proxy or --no-proxy: WMCO applies the cluster-wide proxy itself.
 * One line, naming where the proxy is set and the command that shows it.
 */
export function byohProxyRefusal(option: '--proxy' | '--no-proxy'): string {
  return `${option} is for --via kubeadm: on OpenShift, WMCO gives Windows nodes the cluster-wide proxy of proxies.config.openshift.io/cluster (change it there: oc edit proxy/cluster); \`kube-windows nodes proxy NODE --context C\` and the cluster's row in the explorer show it`;
}
