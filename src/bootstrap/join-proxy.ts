// What the join questions say about a proxy before anything runs. kubeadm: the NO_PROXY entries a join
// with --proxy always gives containerd and the kubelet (loopback, the cluster's domains, its Service and
// Pod networks from kubeadm's ClusterConfiguration, the API endpoint and the host), the same list the
// proxy step computes, so the question can show them as "always included". BYOH: the cluster-wide
// proxy WMCO applies to the node instead (nothing is asked). Only reads.
import type { KubeClient } from '../cluster/kube-client';
import { readClusterFacts } from '../cluster/networking';
import { readClusterProxy } from '../cluster/proxy';
import { kubeadmNoProxy } from '../core/proxy/no-proxy';
import { noProxyEntries, type ClusterProxyFacts } from '../core/proxy/settings';
import { evaluateCluster } from '../core/windows/kubeadm-cluster';

/** The NO_PROXY entries a kubeadm join of `address` with a proxy always sets, before the user's own. */
export async function kubeadmNoProxyIncluded(
  kube: KubeClient,
  address: string,
  signal?: AbortSignal,
): Promise<string[]> {
  // The evaluation the join's preflight makes, for its networks only (its findings are the preflight's to report).
  const cluster = evaluateCluster(await readClusterFacts(kube, signal), { cni: 'auto', containerdArchive: '' });
  return noProxyEntries(
    kubeadmNoProxy({
      serviceCidrs: [cluster.serviceSubnet],
      podCidrs: cluster.podSubnets ?? [],
      apiHost: new URL(kube.server).hostname,
      nodeAddress: address,
    }),
  );
}

/** The cluster-wide proxy WMCO gives a BYOH node, without credentials; undefined when the cluster has none. */
export async function byohClusterProxy(kube: KubeClient, signal?: AbortSignal): Promise<ClusterProxyFacts | undefined> {
  return (await readClusterProxy(kube, signal)).facts;
}
