// OpenShift/OKD cluster configuration: the one test of whether a cluster is OpenShift, its network,
// proxy and infrastructure, the SSH keys it was installed with, mirror sets (IDMS/ITMS) and the pull
// secret.
import { isOpenShiftGroups, PULL_SECRET, PULL_SECRET_NAMESPACE } from '../core/well-known';
import { enc, getOrUndefined, type ApiCall } from './api';
import type { KubeClient } from './kube-client';

export interface OperatorNetwork {
  spec?: {
    defaultNetwork?: {
      type?: string;
      ovnKubernetesConfig?: {
        hybridOverlayConfig?: {
          hybridClusterNetwork?: { cidr: string; hostPrefix?: number }[];
          hybridOverlayVXLANPort?: number;
        };
      };
    };
  };
}

export interface ConfigNetwork {
  spec?: { clusterNetwork?: { cidr: string; hostPrefix?: number }[]; serviceNetwork?: string[]; networkType?: string };
}

export interface ClusterProxy {
  spec?: { httpProxy?: string; httpsProxy?: string; noProxy?: string; trustedCA?: { name?: string } };
  status?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

/** The Infrastructure's status: the internal API URL's field is `apiServerInternalURI` (sic), beside `apiServerURL`. */
export interface Infrastructure {
  status?: {
    apiServerInternalURI?: string;
    apiServerURL?: string;
    /** Deprecated in favour of platformStatus.type, still set. */
    platform?: string;
    /** The `<infrastructureID>` of names and labels (MachineSets, cloud resources). */
    infrastructureName?: string;
    platformStatus?: {
      type?: string;
      aws?: { region?: string };
      azure?: { resourceGroupName?: string; networkResourceGroupName?: string };
      gcp?: { projectID?: string; region?: string };
    };
  };
}

/** The ClusterVersion's status: the version being rolled out (or reached) is status.desired. */
export interface ClusterVersion {
  status?: { desired?: { version?: string; image?: string }; history?: { state?: string; version?: string }[] };
}

/** The platform type of an Infrastructure: platformStatus.type, else the deprecated status.platform. */
export const infrastructurePlatform = (infra: Infrastructure | undefined): string | undefined =>
  infra?.status?.platformStatus?.type || infra?.status?.platform || undefined;

const PATHS = {
  operatorNetwork: '/apis/operator.openshift.io/v1/networks/cluster',
  configNetwork: '/apis/config.openshift.io/v1/networks/cluster',
  proxy: '/apis/config.openshift.io/v1/proxies/cluster',
  infrastructure: '/apis/config.openshift.io/v1/infrastructures/cluster',
  workerSsh: '/apis/machineconfiguration.openshift.io/v1/machineconfigs/99-worker-ssh',
  clusterVersion: '/apis/config.openshift.io/v1/clusterversions/version',
} as const;

export const CLUSTER_VERSION_PATH = PATHS.clusterVersion;

/** The reads of the cluster configuration, for previews (in the order of the functions below). */
export const CLUSTER_CONFIG_CALLS: ApiCall[] = [
  PATHS.operatorNetwork,
  PATHS.configNetwork,
  PATHS.proxy,
  PATHS.infrastructure,
].map((path) => ({ verb: 'GET', path }));
export const DISCOVERY_CALL: ApiCall = { verb: 'GET', path: '/apis' };

/** The API group names the server serves (`GET /apis`). */
export async function apiGroups(kube: KubeClient, signal?: AbortSignal): Promise<string[]> {
  const groups = await kube.get<{ groups?: { name: string }[] }>('/apis', undefined, signal);
  return (groups.groups ?? []).map((g) => g.name);
}

/** Whether the cluster is OpenShift or OKD (it serves config.openshift.io): then BYOH is the way to join. */
export async function isOpenShift(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  return isOpenShiftGroups(await apiGroups(kube, signal));
}

export const operatorNetwork = (kube: KubeClient, signal?: AbortSignal) =>
  getOrUndefined<OperatorNetwork>(kube, PATHS.operatorNetwork, signal);
export const configNetwork = (kube: KubeClient, signal?: AbortSignal) =>
  getOrUndefined<ConfigNetwork>(kube, PATHS.configNetwork, signal);
export const clusterProxy = (kube: KubeClient, signal?: AbortSignal) =>
  getOrUndefined<ClusterProxy>(kube, PATHS.proxy, signal);
export const infrastructure = (kube: KubeClient, signal?: AbortSignal) =>
  getOrUndefined<Infrastructure>(kube, PATHS.infrastructure, signal);
export const clusterVersion = (kube: KubeClient, signal?: AbortSignal) =>
  getOrUndefined<ClusterVersion>(kube, PATHS.clusterVersion, signal);

/** Hashes of the SSH public keys in MachineConfig 99-worker-ssh: the keys the cluster was installed with. */
export async function installKeyHashes(
  kube: KubeClient,
  hash: (line: string) => string,
  signal?: AbortSignal,
): Promise<string[]> {
  type MachineConfig = { spec?: { config?: { passwd?: { users?: { sshAuthorizedKeys?: string[] }[] } } } };
  let mc: MachineConfig | undefined;
  try {
    mc = await getOrUndefined<MachineConfig>(kube, PATHS.workerSsh, signal);
  } catch {
    return []; // not readable (RBAC) or not served: the warning is a courtesy, never a failure
  }
  return (mc?.spec?.config?.passwd?.users ?? [])
    .flatMap((u) => u.sshAuthorizedKeys ?? [])
    .filter((l) => l.trim())
    .map(hash);
}

// ---- mirror sets -------------------------------------------------------------------------------

export type MirrorSetKind = 'ImageDigestMirrorSet' | 'ImageTagMirrorSet';

/** Collections of the mirror set kinds, IDMS first (the order WMCO reads them in). */
export const MIRROR_SET_PATHS: Record<MirrorSetKind, string> = {
  ImageDigestMirrorSet: '/apis/config.openshift.io/v1/imagedigestmirrorsets',
  ImageTagMirrorSet: '/apis/config.openshift.io/v1/imagetagmirrorsets',
};

export const isMirrorSetKind = (kind: string): kind is MirrorSetKind =>
  Object.prototype.hasOwnProperty.call(MIRROR_SET_PATHS, kind);

export const mirrorSetPath = (kind: MirrorSetKind, name: string): string => `${MIRROR_SET_PATHS[kind]}/${enc(name)}`;

/** Every IDMS and ITMS of the cluster, each with its kind (IDMS first); empty when the API has none. */
export async function mirrorSetObjects(
  kube: KubeClient,
  signal?: AbortSignal,
): Promise<{ kind: MirrorSetKind; [k: string]: unknown }[]> {
  const out: { kind: MirrorSetKind; [k: string]: unknown }[] = [];
  for (const [kind, path] of Object.entries(MIRROR_SET_PATHS) as [MirrorSetKind, string][]) {
    const list = await getOrUndefined<{ items?: object[] }>(kube, path, signal);
    for (const item of list?.items ?? []) out.push({ ...item, kind });
  }
  return out;
}

export async function getMirrorSet(
  kube: KubeClient,
  kind: MirrorSetKind,
  name: string,
  signal?: AbortSignal,
): Promise<{ metadata: Record<string, unknown>; spec?: unknown } | undefined> {
  return getOrUndefined(kube, mirrorSetPath(kind, name), signal);
}

export async function createMirrorSet(
  kube: KubeClient,
  kind: MirrorSetKind,
  obj: object,
  signal?: AbortSignal,
): Promise<void> {
  await kube.create(MIRROR_SET_PATHS[kind], { ...obj, apiVersion: 'config.openshift.io/v1', kind }, signal);
}

/** PUT with the live resourceVersion: a concurrent edit fails (409) rather than being overwritten. */
export async function replaceMirrorSet(
  kube: KubeClient,
  kind: MirrorSetKind,
  live: object,
  signal?: AbortSignal,
): Promise<void> {
  const name = String(((live as { metadata?: { name?: unknown } }).metadata ?? {}).name ?? '');
  await kube.replace(mirrorSetPath(kind, name), live, signal);
}

/** The cluster pull secret's .dockerconfigjson (openshift-config/pull-secret), decoded; undefined when absent. */
export async function pullSecretJson(kube: KubeClient, signal?: AbortSignal): Promise<string | undefined> {
  const secret = await getOrUndefined<{ data?: Record<string, string> }>(
    kube,
    `/api/v1/namespaces/${PULL_SECRET_NAMESPACE}/secrets/${PULL_SECRET}`,
    signal,
  );
  const data = secret?.data?.['.dockerconfigjson'];
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}
