// The cluster reads and writes of Windows networking on kubeadm clusters: the facts the cluster
// preflight evaluates (GET /version, control-plane nodes, Calico's operator Installation, the
// DaemonSets of the CNI namespaces, flannel's net-conf.json), and create-or-verify of the Windows
// networking objects (DaemonSets, ConfigMaps, ServiceAccounts, RBAC), the RuntimeClass and the
// probe pod. What they mean is decided in core/windows/kubeadm-cluster.ts and windows-networking.ts.
import type { ClusterFacts, DaemonSetFacts } from '../core/windows/kubeadm-cluster';
import type { Manifest } from '../core/windows/kubeadm-networking';
import {
  CALICO_INSTALLATIONS_PATH,
  CALICO_NAMESPACES,
  CONTROL_PLANE_LABEL,
  FLANNEL_CONFIGMAP,
  FLANNEL_NAMESPACES,
  FLANNEL_NET_CONF_KEY,
  KUBEADM_CONFIG_NAMESPACE,
  KUBEADM_CONFIGMAP,
  KUBE_PROXY_CONFIGMAP,
} from '../core/well-known';
import { createIfMissing, enc, getOrUndefined, listAll, type ApiCall, type Meta } from './api';
import type { KubeClient } from './kube-client';
import { ApiError } from './errors';

const VERSION_CALL: ApiCall = { verb: 'GET', path: '/version' };

const dsPath = (ns: string) => `/apis/apps/v1/namespaces/${enc(ns)}/daemonsets`;
const cmPath = (ns: string, name: string) => `/api/v1/namespaces/${enc(ns)}/configmaps/${enc(name)}`;
const CNI_NAMESPACES = [...new Set([...CALICO_NAMESPACES, ...FLANNEL_NAMESPACES])];

/** The reads of the cluster preflight, in order, for the dry run. */
export const CLUSTER_FACTS_CALLS: ApiCall[] = [
  VERSION_CALL,
  { verb: 'GET', path: `/api/v1/nodes?labelSelector=${CONTROL_PLANE_LABEL}` },
  { verb: 'GET', path: CALICO_INSTALLATIONS_PATH },
  ...CNI_NAMESPACES.map((ns): ApiCall => ({ verb: 'GET', path: dsPath(ns) })),
  ...FLANNEL_NAMESPACES.map((ns): ApiCall => ({ verb: 'GET', path: cmPath(ns, FLANNEL_CONFIGMAP) })),
  { verb: 'GET', path: cmPath(KUBEADM_CONFIG_NAMESPACE, KUBEADM_CONFIGMAP) },
  { verb: 'GET', path: cmPath(KUBEADM_CONFIG_NAMESPACE, KUBE_PROXY_CONFIGMAP) },
];

/** The API server's version (gitVersion of GET /version). */
async function serverVersion(kube: KubeClient, signal?: AbortSignal): Promise<string> {
  return (await kube.get<{ gitVersion?: string }>('/version', undefined, signal)).gitVersion ?? '';
}

export interface DaemonSetObject {
  metadata: Meta & { uid?: string };
  spec?: {
    selector?: { matchLabels?: Record<string, string> };
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        nodeSelector?: Record<string, string>;
        containers?: { name: string; image?: string }[];
        initContainers?: { name: string; image?: string }[];
      };
    };
  };
  status?: { desiredNumberScheduled?: number; numberReady?: number };
}

/** A list that answers [] when the namespace or the API group is not there (404). */
async function listOrEmpty<T>(
  kube: KubeClient,
  path: string,
  query: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<T[]> {
  try {
    return await listAll<T>(kube, path, query, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return [];
    throw err;
  }
}

const daemonSetImages = (d: DaemonSetObject): string[] =>
  [...(d.spec?.template?.spec?.initContainers ?? []), ...(d.spec?.template?.spec?.containers ?? [])].map(
    (c) => c.image ?? '',
  );

const daemonSetFacts = (d: DaemonSetObject, namespace: string): DaemonSetFacts => ({
  namespace,
  name: d.metadata.name,
  images: daemonSetImages(d),
  ...(d.spec?.template?.spec?.nodeSelector ? { nodeSelector: d.spec.template.spec.nodeSelector } : {}),
});

/** The DaemonSets of a namespace ([] when the namespace does not exist). */
async function daemonSetsIn(kube: KubeClient, namespace: string, signal?: AbortSignal): Promise<DaemonSetObject[]> {
  return listOrEmpty<DaemonSetObject>(kube, dsPath(namespace), {}, signal);
}

/** The DaemonSets of every namespace a CNI or kube-proxy runs in (to reuse what exists). */
export async function networkingDaemonSets(kube: KubeClient, signal?: AbortSignal): Promise<DaemonSetFacts[]> {
  const out: DaemonSetFacts[] = [];
  for (const ns of CNI_NAMESPACES)
    for (const d of await daemonSetsIn(kube, ns, signal)) out.push(daemonSetFacts(d, ns));
  return out;
}

/** Everything the cluster preflight evaluates; only reads. */
export async function readClusterFacts(kube: KubeClient, signal?: AbortSignal): Promise<ClusterFacts> {
  const version = await serverVersion(kube, signal);
  const cp = await listOrEmpty<{ metadata: Meta }>(
    kube,
    '/api/v1/nodes',
    { labelSelector: CONTROL_PLANE_LABEL },
    signal,
  );
  const installations = await listOrEmpty<{
    metadata: Meta;
    spec?: { variant?: string; calicoNetwork?: { windowsDataplane?: string } };
  }>(kube, CALICO_INSTALLATIONS_PATH, {}, signal);
  const daemonSets = await networkingDaemonSets(kube, signal);
  const flannelNetConf: ClusterFacts['flannelNetConf'] = [];
  for (const ns of FLANNEL_NAMESPACES) {
    const cm = await getOrUndefined<{ data?: Record<string, string> }>(kube, cmPath(ns, FLANNEL_CONFIGMAP), signal);
    if (cm)
      flannelNetConf.push({
        namespace: ns,
        ...(cm.data?.[FLANNEL_NET_CONF_KEY] !== undefined ? { text: cm.data[FLANNEL_NET_CONF_KEY] } : {}),
      });
  }
  const kubeadmConfig = await getOrUndefined<{ data?: { ClusterConfiguration?: string } }>(
    kube,
    cmPath(KUBEADM_CONFIG_NAMESPACE, KUBEADM_CONFIGMAP),
    signal,
  ).catch(() => undefined);
  // kubeadm's kube-proxy configuration, which the Windows kube-proxy DaemonSet mounts (its feature gates matter).
  const kubeProxy = await getOrUndefined<{ data?: Record<string, string> }>(
    kube,
    cmPath(KUBEADM_CONFIG_NAMESPACE, KUBE_PROXY_CONFIGMAP),
    signal,
  ).catch(() => undefined);
  const kubeProxyConfig = kubeProxy?.data?.['config.conf'];
  return {
    serverVersion: version,
    ...(kubeProxyConfig !== undefined ? { kubeProxyConfig } : {}),
    ...(kubeadmConfig?.data?.ClusterConfiguration
      ? { clusterConfiguration: kubeadmConfig.data.ClusterConfiguration }
      : {}),
    controlPlane: cp.map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} })),
    calicoInstallations: installations.map((i) => ({
      name: i.metadata.name,
      ...(i.spec?.calicoNetwork?.windowsDataplane ? { windowsDataplane: i.spec.calicoNetwork.windowsDataplane } : {}),
      ...(i.spec?.variant ? { variant: i.spec.variant } : {}),
    })),
    daemonSets,
    flannelNetConf,
  };
}

// ---------------------------------------------------------------------------------------------
// Objects the join creates when missing (never replaced: what exists is reused)

/** The collection path and the object path of a manifest kube-windows generates. */
export function objectPaths(o: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): {
  collection: string;
  object: string;
} {
  const plural: Record<string, string> = {
    DaemonSet: 'daemonsets',
    ConfigMap: 'configmaps',
    ServiceAccount: 'serviceaccounts',
    ClusterRole: 'clusterroles',
    ClusterRoleBinding: 'clusterrolebindings',
    RuntimeClass: 'runtimeclasses',
    Pod: 'pods',
  };
  const p = plural[o.kind];
  if (!p) throw new Error(`objectPaths: no path for kind ${o.kind}`);
  const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const collection = `${base}${o.metadata.namespace ? `/namespaces/${enc(o.metadata.namespace)}` : ''}/${p}`;
  return { collection, object: `${collection}/${enc(o.metadata.name)}` };
}

/** The call that creates a manifest, for previews. */
export const createCall = (o: Manifest): ApiCall => ({ verb: 'POST', path: objectPaths(o).collection, body: o });

export async function getObject<T>(kube: KubeClient, o: Manifest, signal?: AbortSignal): Promise<T | undefined> {
  return getOrUndefined<T>(kube, objectPaths(o).object, signal);
}

/** Creates the object unless one with its name exists (409 counts as existing). */
export async function createObject(kube: KubeClient, o: Manifest, signal?: AbortSignal): Promise<'created' | 'exists'> {
  return createIfMissing(kube, objectPaths(o).collection, o, signal);
}

export async function deleteObject(kube: KubeClient, o: Manifest, signal?: AbortSignal): Promise<void> {
  await kube.delete(objectPaths(o).object, signal);
}
