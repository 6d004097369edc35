// A Windows node's proxy settings against what its cluster expects: on OpenShift the cluster-wide
// proxy that WMCO applies (and the trusted CA bundle it imports), on a node joined with
// `join --via kubeadm --proxy` what that join set (kept in the node's annotation). Read in one round
// trip over SSH, or through a HostProcess pod when SSH is not configured; credentials in the answers are taken out before anything leaves this module.
import type { KubeClient } from '../cluster/kube-client';
import type { NodeObject } from '../cluster/nodes';
import { readClusterProxy } from '../cluster/proxy';
import { compareNodeProxy, type NodeProxyComparison, type NodeProxyEnvironment } from '../core/proxy/node-env';
import { nodeProxyReport } from '../core/proxy/words';
import {
  PROXY_ANNOTATION,
  proxyVariables,
  readProxyAnnotation,
  withoutCredentials,
  type ProxyVariable,
} from '../core/proxy/settings';
import { nodeProxyEnvironment } from '../core/windows/proxy-ops';
import type { WindowsHost } from '../remote/windows-host';
import { podHost, type PodHostOptions } from '../cluster/pod-host';

/** The services whose proxy environment matters: they pull images or talk to the API server. */
const PROXY_SERVICES = [
  'containerd',
  'kubelet',
  'kube-proxy',
  'hybrid-overlay-node',
  'windows-instance-config-daemon',
] as const;

export interface NodeProxyExpectation {
  variables: Partial<Record<ProxyVariable, string>>;
  /** Where the expectation comes from, in words. */
  from: string;
  managedBy: 'wmco' | 'kubeadm';
  thumbprints: string[];
  caProblem?: string;
}

/** What the node should carry: kube-windows' own annotation (kubeadm joins), else the cluster-wide proxy. */
export async function proxyExpectation(
  kube: KubeClient,
  node: NodeObject,
  signal?: AbortSignal,
): Promise<NodeProxyExpectation> {
  const own = readProxyAnnotation(node.metadata.annotations?.[PROXY_ANNOTATION]);
  if (own)
    return {
      variables: proxyVariables(own),
      from: `what \`join --via kubeadm --proxy\` set, annotation ${PROXY_ANNOTATION}`,
      managedBy: 'kubeadm',
      thumbprints: [],
    };
  const read = await readClusterProxy(kube, signal);
  if (!read.facts)
    return { variables: {}, from: 'the cluster has no cluster-wide proxy', managedBy: 'wmco', thumbprints: [] };
  return {
    variables: proxyVariables(read.facts),
    from: 'proxies.config.openshift.io/cluster',
    managedBy: 'wmco',
    thumbprints: read.thumbprints,
    ...(read.caProblem ? { caProblem: read.caProblem } : {}),
  };
}

const clean = (v: string): string => withoutCredentials(v).url;

/** A node's answer with every user and password taken out of the URLs it holds. */
function withoutNodeCredentials(n: NodeProxyEnvironment): NodeProxyEnvironment {
  const machine: NodeProxyEnvironment['machine'] = {};
  for (const [k, v] of Object.entries(n.machine)) machine[k as ProxyVariable] = clean(v);
  return {
    machine,
    services: n.services.map((s) => ({
      ...s,
      environment: s.environment.map((e) => {
        const i = e.indexOf('=');
        return i > 0 ? `${e.slice(0, i + 1)}${clean(e.slice(i + 1))}` : e;
      }),
    })),
    certificates: { ...n.certificates },
  };
}

/** Reads the node's proxy environment and compares it with the expectation. */
export async function readNodeProxy(
  host: Pick<WindowsHost, 'run'>,
  expected: NodeProxyExpectation,
  signal?: AbortSignal,
): Promise<NodeProxyComparison> {
  const answer = await host.run(nodeProxyEnvironment(PROXY_SERVICES, expected.thumbprints), signal);
  return compareNodeProxy(expected.variables, withoutNodeCredentials(answer), expected.thumbprints);
}

/**
 * The same read without SSH: through a HostProcess pod pinned to the node (the terminal's fallback),
 * deleted before this returns, whatever happened.
 */
export async function readNodeProxyThroughPod(
  o: Omit<PodHostOptions, 'nodeName' | 'labels'> & { node: NodeObject },
  expected: NodeProxyExpectation,
  signal?: AbortSignal,
): Promise<NodeProxyComparison> {
  const { node, ...rest } = o;
  const host = podHost({ ...rest, nodeName: node.metadata.name, labels: node.metadata.labels ?? {} });
  try {
    return await readNodeProxy(host, expected, signal);
  } finally {
    await host.close();
  }
}

/** The report `nodes proxy` prints and "Show proxy settings" opens. */
export function nodeProxyText(
  node: string,
  expected: NodeProxyExpectation,
  comparison: NodeProxyComparison,
  lastEqual: string | undefined,
): string {
  return nodeProxyReport({
    node,
    expected: expected.variables,
    expectedFrom: expected.from,
    comparison: { ...comparison, services: comparison.services.filter((s) => s.exists) },
    managedBy: expected.managedBy,
    ...(lastEqual ? { lastEqual } : {}),
    ...(expected.caProblem ? { caProblem: expected.caProblem } : {}),
  });
}
