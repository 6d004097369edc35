// What a kubeadm join reads and writes on the cluster: kube-public/cluster-info (the API endpoint
// and CA that `kubeadm join` discovers) and the bootstrap token Secret in kube-system.
import { BOOTSTRAP_TOKEN_NAMESPACE, CLUSTER_INFO_CONFIGMAP, CLUSTER_INFO_NAMESPACE } from '../core/well-known';
import { enc, getOrUndefined, type ApiCall } from './api';
import type { KubeClient } from './kube-client';

const SECRETS = `/api/v1/namespaces/${BOOTSTRAP_TOKEN_NAMESPACE}/secrets`;
const CLUSTER_INFO = `/api/v1/namespaces/${CLUSTER_INFO_NAMESPACE}/configmaps/${CLUSTER_INFO_CONFIGMAP}`;

export const CLUSTER_INFO_CALL: ApiCall = { verb: 'GET', path: CLUSTER_INFO };
export const bootstrapTokenCall = (secret: object): ApiCall => ({ verb: 'POST', path: SECRETS, body: secret });

/** The kubeconfig text published in cluster-info, or undefined when the ConfigMap or the key is missing. */
export async function clusterInfoKubeconfig(kube: KubeClient, signal?: AbortSignal): Promise<string | undefined> {
  const cm = await getOrUndefined<{ data?: { kubeconfig?: string } }>(kube, CLUSTER_INFO, signal);
  return cm?.data?.kubeconfig;
}

/** Creates a bootstrap token Secret (built by bootstrapTokenSecret()). */
export async function createBootstrapToken(kube: KubeClient, secret: object, signal?: AbortSignal): Promise<void> {
  await kube.create(SECRETS, secret, signal);
}

/** Deletes bootstrap-token-<id>; a token already gone is no error. */
export async function deleteBootstrapToken(kube: KubeClient, id: string): Promise<void> {
  await kube.delete(`${SECRETS}/bootstrap-token-${enc(id)}`).catch(() => undefined);
}
