// The Kubernetes and OpenShift API calls of the join plans, typed and named for what they mean.
// Every write is idempotent at the call site (create-if-missing, merge patches of one key).

import { ApiError } from '../cluster/errors';
import type { KubeClient } from '../cluster/client';

export const WMCO_NAMESPACE = 'openshift-windows-machine-config-operator';
export const WMCO_PACKAGE = 'windows-machine-config-operator';
export const INSTANCES_CONFIGMAP = 'windows-instances';
export const KEY_SECRET = 'cloud-private-key';
export const KEY_SECRET_KEY = 'private-key.pem';

const enc = encodeURIComponent;

export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
}

export interface NodeObject {
  metadata: Meta;
  spec?: { taints?: { key: string; value?: string; effect: string }[]; unschedulable?: boolean };
  status?: {
    addresses?: { type: string; address: string }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    nodeInfo?: { kubeletVersion?: string; osImage?: string };
  };
}

export interface CsrObject {
  metadata: Meta;
  spec: { signerName?: string; username?: string; request?: string };
  status?: { conditions?: { type: string; status?: string; reason?: string; message?: string }[] };
}

export interface CsvObject {
  metadata: Meta;
  spec?: { version?: string };
  status?: { phase?: string; message?: string; reason?: string };
}

/** GET that answers undefined for 404. */
export async function getOrUndefined<T>(kube: KubeClient, path: string, signal?: AbortSignal): Promise<T | undefined> {
  try {
    return await kube.get<T>(path, undefined, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** POST that treats "already exists" (409) as success: a re-run creates nothing twice. */
export async function createIfMissing(kube: KubeClient, collection: string, body: unknown, signal?: AbortSignal): Promise<'created' | 'exists'> {
  try {
    await kube.create(collection, body, signal);
    return 'created';
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return 'exists';
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// WMCO and OLM

export async function wmcoCsv(kube: KubeClient, signal?: AbortSignal, namespace = WMCO_NAMESPACE): Promise<CsvObject | undefined> {
  const list = await getOrUndefined<{ items?: CsvObject[] }>(kube, `/apis/operators.coreos.com/v1alpha1/namespaces/${enc(namespace)}/clusterserviceversions`, signal);
  return (list?.items ?? []).find((c) => c.metadata.name.startsWith(WMCO_PACKAGE));
}

/** The WMCO version a CSV installs (spec.version, else from the name `...v10.18.0`). */
export function csvVersion(csv: CsvObject): string | undefined {
  return csv.spec?.version ?? /\.v(\d+\.\d+\.\d+)/.exec(csv.metadata.name)?.[1];
}

// ---------------------------------------------------------------------------------------------
// windows-instances

export async function windowsInstances(kube: KubeClient, signal?: AbortSignal, namespace = WMCO_NAMESPACE): Promise<Record<string, string> | undefined> {
  const cm = await getOrUndefined<{ data?: Record<string, string> }>(kube, `/api/v1/namespaces/${enc(namespace)}/configmaps/${INSTANCES_CONFIGMAP}`, signal);
  return cm ? (cm.data ?? {}) : undefined;
}

/**
 * Adds `address: username=<user>` to the windows-instances ConfigMap: creates the ConfigMap when it
 * is missing, otherwise merge-patches that one key, so other entries are never touched.
 */
export async function addInstance(kube: KubeClient, address: string, user: string, signal?: AbortSignal, namespace = WMCO_NAMESPACE): Promise<void> {
  const value = `username=${user}`;
  const path = `/api/v1/namespaces/${enc(namespace)}/configmaps/${INSTANCES_CONFIGMAP}`;
  const existing = await windowsInstances(kube, signal, namespace);
  if (existing === undefined) {
    const created = await createIfMissing(
      kube,
      `/api/v1/namespaces/${enc(namespace)}/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: INSTANCES_CONFIGMAP, namespace }, data: { [address]: value } },
      signal,
    );
    if (created === 'created') return;
  }
  await kube.patch(path, { data: { [address]: value } }, 'merge', signal);
}

/** Removes one entry (a merge patch with null deletes only that key). */
export async function removeInstance(kube: KubeClient, address: string, signal?: AbortSignal, namespace = WMCO_NAMESPACE): Promise<void> {
  const existing = await windowsInstances(kube, signal, namespace);
  if (!existing || !(address in existing)) return;
  await kube.patch(`/api/v1/namespaces/${enc(namespace)}/configmaps/${INSTANCES_CONFIGMAP}`, { data: { [address]: null } }, 'merge', signal);
}

// ---------------------------------------------------------------------------------------------
// Nodes and CSRs

export async function getNode(kube: KubeClient, name: string, signal?: AbortSignal): Promise<NodeObject | undefined> {
  return getOrUndefined<NodeObject>(kube, `/api/v1/nodes/${enc(name)}`, signal);
}

/** The Node whose addresses include `address`, or whose name is `name`. */
export async function findNode(kube: KubeClient, address: string, name: string | undefined, signal?: AbortSignal): Promise<NodeObject | undefined> {
  const list = await kube.get<{ items?: NodeObject[] }>('/api/v1/nodes', { labelSelector: 'kubernetes.io/os=windows' }, signal);
  const items = list.items ?? [];
  return items.find((n) => (n.status?.addresses ?? []).some((a) => a.address === address)) ?? (name ? items.find((n) => n.metadata.name === name) : undefined);
}

export function isReady(node: NodeObject): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

export function readyMessage(node: NodeObject): string {
  const c = (node.status?.conditions ?? []).find((x) => x.type === 'Ready');
  return c ? `Ready=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}` : 'no Ready condition yet';
}

/**
 * CSRs for a node: the serving ones are requested as system:node:<name>; the first client CSR is
 * requested by the bootstrap identity, so its node is read from the subject CN of the request.
 */
export async function csrsForNode(kube: KubeClient, nodeName: string, signal?: AbortSignal): Promise<CsrObject[]> {
  const list = await kube.get<{ items?: CsrObject[] }>('/apis/certificates.k8s.io/v1/certificatesigningrequests', undefined, signal);
  const cn = `system:node:${nodeName}`;
  return (list.items ?? []).filter((c) => c.spec.username === cn || csrCommonName(c.spec.request) === cn);
}

/**
 * The subject common name of a PKCS#10 request (spec.request: base64 of PEM). Reads the first
 * attribute with OID 2.5.4.3 and a short-form length, which is what certificate requests carry.
 */
export function csrCommonName(request: string | undefined): string | undefined {
  if (!request) return undefined;
  let der: Buffer;
  try {
    const pem = Buffer.from(request, 'base64').toString('latin1');
    const body = /-----BEGIN [A-Z ]*REQUEST-----([\s\S]*?)-----END/.exec(pem)?.[1];
    der = body ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : Buffer.from(request, 'base64');
  } catch {
    return undefined;
  }
  const oid = Buffer.from([0x06, 0x03, 0x55, 0x04, 0x03]);
  const at = der.indexOf(oid);
  if (at < 0) return undefined;
  const tag = der[at + 5];
  const len = der[at + 6];
  if (tag === undefined || len === undefined || len > 127 || ![0x0c, 0x13, 0x14, 0x16].includes(tag)) return undefined;
  return der.subarray(at + 7, at + 7 + len).toString('utf8');
}

export function csrState(csr: CsrObject): 'Approved' | 'Denied' | 'Failed' | 'Pending' {
  const types = (csr.status?.conditions ?? []).filter((c) => c.status !== 'False').map((c) => c.type);
  if (types.includes('Denied')) return 'Denied';
  if (types.includes('Failed')) return 'Failed';
  if (types.includes('Approved')) return 'Approved';
  return 'Pending';
}

// ---------------------------------------------------------------------------------------------
// Cluster configuration (OpenShift)

export interface OperatorNetwork {
  spec?: { defaultNetwork?: { type?: string; ovnKubernetesConfig?: { hybridOverlayConfig?: { hybridClusterNetwork?: { cidr: string; hostPrefix?: number }[]; hybridOverlayVXLANPort?: number } } } };
}

export interface ConfigNetwork {
  spec?: { clusterNetwork?: { cidr: string; hostPrefix?: number }[]; serviceNetwork?: string[]; networkType?: string };
}

export interface ClusterProxy {
  spec?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  status?: { httpProxy?: string; httpsProxy?: string };
}

export const operatorNetwork = (kube: KubeClient, signal?: AbortSignal) => getOrUndefined<OperatorNetwork>(kube, '/apis/operator.openshift.io/v1/networks/cluster', signal);
export const configNetwork = (kube: KubeClient, signal?: AbortSignal) => getOrUndefined<ConfigNetwork>(kube, '/apis/config.openshift.io/v1/networks/cluster', signal);
export const clusterProxy = (kube: KubeClient, signal?: AbortSignal) => getOrUndefined<ClusterProxy>(kube, '/apis/config.openshift.io/v1/proxies/cluster', signal);
/** The Infrastructure's status: note the internal API URL's field is `apiServerInternalURI` (sic), beside `apiServerURL`. */
export const infrastructure = (kube: KubeClient, signal?: AbortSignal) =>
  getOrUndefined<{ status?: { apiServerInternalURI?: string; apiServerURL?: string; platform?: string } }>(kube, '/apis/config.openshift.io/v1/infrastructures/cluster', signal);

/** Whether the cluster serves OpenShift's config API (then BYOH is the way to join). */
export async function isOpenShift(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  const groups = await kube.get<{ groups?: { name: string }[] }>('/apis', undefined, signal);
  return (groups.groups ?? []).some((g) => g.name === 'config.openshift.io');
}

/** Hashes of the SSH public keys in MachineConfig 99-worker-ssh: the keys the cluster was installed with. */
export async function installKeyHashes(kube: KubeClient, hash: (line: string) => string, signal?: AbortSignal): Promise<string[]> {
  type MachineConfig = { spec?: { config?: { passwd?: { users?: { sshAuthorizedKeys?: string[] }[] } } } };
  let mc: MachineConfig | undefined;
  try {
    mc = await getOrUndefined<MachineConfig>(kube, '/apis/machineconfiguration.openshift.io/v1/machineconfigs/99-worker-ssh', signal);
  } catch {
    return []; // not readable (RBAC) or not served: the warning is a courtesy, never a failure
  }
  return (mc?.spec?.config?.passwd?.users ?? [])
    .flatMap((u) => u.sshAuthorizedKeys ?? [])
    .filter((l) => l.trim())
    .map(hash);
}
