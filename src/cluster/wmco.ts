// WMCO on a cluster: its ClusterServiceVersion, the windows-instances ConfigMap (BYOH), the
// cloud-private-key Secret, and installing it through OLM (namespace, OperatorGroup, Subscription,
// InstallPlan approval). The namespace is a parameter everywhere: clusters may install WMCO elsewhere.
import {
  CATALOG_SOURCE_NAMESPACE,
  CLUSTER_MONITORING_LABEL,
  INSTANCES_CONFIGMAP,
  KEY_SECRET,
  KEY_SECRET_KEY,
  WMCO_CATALOG_SOURCE,
  WMCO_CHANNEL,
  WMCO_NAMESPACE,
  WMCO_OKD_CATALOG_SOURCE,
  WMCO_PACKAGE,
} from '../core/well-known';
import { createIfMissing, enc, getOrUndefined, type ApiCall, type Meta } from './api';
import type { KubeClient } from './kube-client';
import { clusterVersion, CLUSTER_VERSION_PATH } from './openshift';

export interface CsvObject {
  metadata: Meta;
  spec?: { version?: string };
  status?: { phase?: string; message?: string; reason?: string };
}

export interface InstallPlan {
  metadata: { name: string };
  spec?: { approved?: boolean; approval?: string; clusterServiceVersionNames?: string[] };
  status?: { phase?: string };
}

/** Where WMCO lives and how OLM installs it: the defaults, or a cluster's own catalog and channel. */
export interface WmcoLocation {
  namespace: string;
  /** OLM CatalogSource; undefined: redhat-operators, community-operators on OKD. */
  source?: string;
  channel: string;
}

export function wmcoLocation(o: { namespace?: string; source?: string; channel?: string } = {}): WmcoLocation {
  return {
    namespace: o.namespace?.trim() || WMCO_NAMESPACE,
    ...(o.source?.trim() ? { source: o.source.trim() } : {}),
    channel: o.channel?.trim() || WMCO_CHANNEL,
  };
}

const csvsPath = (ns: string) => `/apis/operators.coreos.com/v1alpha1/namespaces/${enc(ns)}/clusterserviceversions`;
const instancesPath = (ns: string) => `/api/v1/namespaces/${enc(ns)}/configmaps/${INSTANCES_CONFIGMAP}`;
const secretsPath = (ns: string) => `/api/v1/namespaces/${enc(ns)}/secrets`;
const operatorGroupsPath = (ns: string) => `/apis/operators.coreos.com/v1/namespaces/${enc(ns)}/operatorgroups`;
const subscriptionsPath = (ns: string) => `/apis/operators.coreos.com/v1alpha1/namespaces/${enc(ns)}/subscriptions`;
const installPlansPath = (ns: string) => `/apis/operators.coreos.com/v1alpha1/namespaces/${enc(ns)}/installplans`;

/** The calls of each WMCO concern, for the plans' dry runs. */
export const wmcoCalls = {
  csv: (ns: string): ApiCall => ({ verb: 'GET', path: csvsPath(ns) }),
  keySecret: (ns: string): ApiCall => ({ verb: 'GET', path: `${secretsPath(ns)}/${KEY_SECRET}` }),
  createKeySecret: (ns: string, shown: unknown): ApiCall => ({
    verb: 'POST',
    path: secretsPath(ns),
    body: keySecretBody(ns, shown),
  }),
  instances: (ns: string): ApiCall => ({ verb: 'GET', path: instancesPath(ns) }),
  setInstance: (ns: string, address: string, value: string | null): ApiCall => ({
    verb: 'PATCH',
    path: instancesPath(ns),
    body: { data: { [address]: value } },
  }),
  namespace: (ns: string): ApiCall => ({ verb: 'POST', path: '/api/v1/namespaces', body: namespaceBody(ns) }),
  operatorGroup: (ns: string): ApiCall => ({ verb: 'POST', path: operatorGroupsPath(ns), body: operatorGroupBody(ns) }),
  subscription: (ns: string, l: WmcoLocation, approval: string): ApiCall => ({
    verb: 'POST',
    path: subscriptionsPath(ns),
    body: subscriptionBody(ns, l, approval, l.source ?? '<catalog>'),
  }),
  clusterVersion: (): ApiCall => ({ verb: 'GET', path: CLUSTER_VERSION_PATH }),
  approveInstallPlan: (ns: string): ApiCall => ({
    verb: 'PATCH',
    path: `${installPlansPath(ns)}/<first>`,
    body: { spec: { approved: true } },
  }),
};

// ---- ClusterServiceVersion -----------------------------------------------------------------------

export async function wmcoCsv(
  kube: KubeClient,
  signal?: AbortSignal,
  namespace = WMCO_NAMESPACE,
): Promise<CsvObject | undefined> {
  const list = await getOrUndefined<{ items?: CsvObject[] }>(kube, csvsPath(namespace), signal);
  return wmcoCsvOf(list?.items ?? []);
}

/** Pure: WMCO's own CSV among a namespace's (OLM copies other operators' CSVs into every namespace). */
function wmcoCsvOf(items: readonly CsvObject[]): CsvObject | undefined {
  return items.find((c) => c.metadata.name.startsWith(WMCO_PACKAGE));
}

/** The collection the explorer watches for WMCO's state: the CSVs of its namespace. */
export const wmcoCsvCollection = (namespace = WMCO_NAMESPACE) => ({ path: csvsPath(namespace), selector: {} });

/** The WMCO version a CSV installs (spec.version, else from the name `...v10.18.0`). */
export function csvVersion(csv: CsvObject): string | undefined {
  return csv.spec?.version ?? /\.v(\d+\.\d+\.\d+)/.exec(csv.metadata.name)?.[1];
}

// ---- windows-instances -------------------------------------------------------------------------

/** The entries of the windows-instances ConfigMap; undefined when there is no such ConfigMap. */
export async function windowsInstances(
  kube: KubeClient,
  signal?: AbortSignal,
  namespace = WMCO_NAMESPACE,
): Promise<Record<string, string> | undefined> {
  const cm = await getOrUndefined<{ data?: Record<string, string> }>(kube, instancesPath(namespace), signal);
  return cm ? (cm.data ?? {}) : undefined;
}

/**
 * Adds `address: username=<user>` to the windows-instances ConfigMap: creates the ConfigMap when it
 * is missing, otherwise merge-patches that one key, so other entries are never touched.
 */
export async function addInstance(
  kube: KubeClient,
  address: string,
  user: string,
  signal?: AbortSignal,
  namespace = WMCO_NAMESPACE,
): Promise<void> {
  const value = `username=${user}`;
  const existing = await windowsInstances(kube, signal, namespace);
  if (existing === undefined) {
    const created = await createIfMissing(
      kube,
      `/api/v1/namespaces/${enc(namespace)}/configmaps`,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: INSTANCES_CONFIGMAP, namespace },
        data: { [address]: value },
      },
      signal,
    );
    if (created === 'created') return;
  }
  await kube.patch(instancesPath(namespace), { data: { [address]: value } }, 'merge', signal);
}

/** Removes one entry (a merge patch with null deletes only that key). */
export async function removeInstance(
  kube: KubeClient,
  address: string,
  signal?: AbortSignal,
  namespace = WMCO_NAMESPACE,
): Promise<void> {
  const existing = await windowsInstances(kube, signal, namespace);
  if (!existing || !(address in existing)) return;
  await kube.patch(instancesPath(namespace), { data: { [address]: null } }, 'merge', signal);
}

// ---- cloud-private-key -------------------------------------------------------------------------

/** Whether cloud-private-key exists, and the private key (PEM) under private-key.pem when it has one. */
export async function keySecret(
  kube: KubeClient,
  signal?: AbortSignal,
  namespace = WMCO_NAMESPACE,
): Promise<{ present: boolean; pem?: string }> {
  const secret = await getOrUndefined<{ data?: Record<string, string> }>(
    kube,
    `${secretsPath(namespace)}/${KEY_SECRET}`,
    signal,
  );
  const data = secret?.data?.[KEY_SECRET_KEY];
  return { present: secret !== undefined, ...(data ? { pem: Buffer.from(data, 'base64').toString('utf8') } : {}) };
}

/** The Secret; `data` is the base64 of the key (a preview passes a placeholder that prints as such). */
function keySecretBody(namespace: string, data: unknown): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: KEY_SECRET, namespace },
    type: 'Opaque',
    data: { [KEY_SECRET_KEY]: data },
  };
}

/** Creates cloud-private-key with the key; an existing Secret is left as it is. */
export async function createKeySecret(
  kube: KubeClient,
  pem: string,
  signal?: AbortSignal,
  namespace = WMCO_NAMESPACE,
): Promise<'created' | 'exists'> {
  return createIfMissing(
    kube,
    secretsPath(namespace),
    keySecretBody(namespace, Buffer.from(pem, 'utf8').toString('base64')),
    signal,
  );
}

// ---- installing through OLM ----------------------------------------------------------------------

function namespaceBody(ns: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns, labels: { [CLUSTER_MONITORING_LABEL]: 'true' } },
  };
}

function operatorGroupBody(ns: string): object {
  return {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name: WMCO_PACKAGE, namespace: ns },
    spec: { targetNamespaces: [ns] },
  };
}

function subscriptionBody(ns: string, l: WmcoLocation, approval: string, source: string): object {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: WMCO_PACKAGE, namespace: ns },
    spec: {
      channel: l.channel,
      installPlanApproval: approval,
      name: WMCO_PACKAGE,
      source,
      sourceNamespace: CATALOG_SOURCE_NAMESPACE,
    },
  };
}

/** Whether the namespace exists with the cluster-monitoring label. */
export async function operatorNamespaceState(
  kube: KubeClient,
  ns: string,
  signal?: AbortSignal,
): Promise<'missing' | 'unlabelled' | 'ready'> {
  const found = await getOrUndefined<{ metadata: { labels?: Record<string, string> } }>(
    kube,
    `/api/v1/namespaces/${enc(ns)}`,
    signal,
  );
  if (!found) return 'missing';
  return found.metadata.labels?.[CLUSTER_MONITORING_LABEL] === 'true' ? 'ready' : 'unlabelled';
}

/** Creates the namespace with the cluster-monitoring label, or adds the label to an existing one. */
export async function ensureOperatorNamespace(kube: KubeClient, ns: string, signal?: AbortSignal): Promise<void> {
  if ((await createIfMissing(kube, '/api/v1/namespaces', namespaceBody(ns), signal)) === 'exists') {
    await kube.patch(
      `/api/v1/namespaces/${enc(ns)}`,
      { metadata: { labels: { [CLUSTER_MONITORING_LABEL]: 'true' } } },
      'merge',
      signal,
    );
  }
}

export async function hasOperatorGroup(kube: KubeClient, ns: string, signal?: AbortSignal): Promise<boolean> {
  return ((await getOrUndefined<{ items?: unknown[] }>(kube, operatorGroupsPath(ns), signal))?.items?.length ?? 0) > 0;
}

export async function createOperatorGroup(kube: KubeClient, ns: string, signal?: AbortSignal): Promise<void> {
  await createIfMissing(kube, operatorGroupsPath(ns), operatorGroupBody(ns), signal);
}

export async function hasSubscription(kube: KubeClient, ns: string, signal?: AbortSignal): Promise<boolean> {
  return (await getOrUndefined(kube, `${subscriptionsPath(ns)}/${WMCO_PACKAGE}`, signal)) !== undefined;
}

/** Subscribes to WMCO; without a catalog in `l`, redhat-operators (community-operators on OKD). */
export async function createSubscription(
  kube: KubeClient,
  l: WmcoLocation,
  approval: string,
  signal?: AbortSignal,
): Promise<string> {
  const source = l.source ?? ((await isOkd(kube, signal)) ? WMCO_OKD_CATALOG_SOURCE : WMCO_CATALOG_SOURCE);
  await createIfMissing(
    kube,
    subscriptionsPath(l.namespace),
    subscriptionBody(l.namespace, l, approval, source),
    signal,
  );
  return source;
}

/** Approves WMCO's first unapproved InstallPlan; the plan's name, or undefined when none waits. */
export async function approveWmcoInstallPlan(
  kube: KubeClient,
  ns: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const plans = await getOrUndefined<{ items?: InstallPlan[] }>(kube, installPlansPath(ns), signal);
  const waiting = (plans?.items ?? []).find(
    (p) =>
      p.spec?.approved === false && (p.spec.clusterServiceVersionNames ?? []).some((n) => n.startsWith(WMCO_PACKAGE)),
  );
  if (!waiting) return undefined;
  await kube.patch(
    `${installPlansPath(ns)}/${enc(waiting.metadata.name)}`,
    { spec: { approved: true } },
    'merge',
    signal,
  );
  return waiting.metadata.name;
}

/** OKD announces itself in the ClusterVersion (its release image and version carry "okd"). */
async function isOkd(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  const cv = await clusterVersion(kube, signal);
  const d = cv?.status?.desired;
  return /okd|origin/i.test(`${d?.image ?? ''} ${d?.version ?? ''}`);
}
