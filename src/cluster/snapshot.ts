// The small, plain ClusterSnapshot the language server takes: Windows node builds and taints, the
// RuntimeClasses that schedule onto Windows, and on OpenShift what the cluster says about itself
// (version, platform, network, WMCO). No client objects cross this line.
import type { ClusterSnapshot, OpenShiftFacts } from '../core/rules/facts';
import { storageFacts, type StorageObjects } from './storage';
import { BUILD_LABEL, KEY_SECRET, WMCO_NAMESPACE } from '../core/well-known';
import { enc, getOrUndefined } from './api';
import type { KubeClient } from './kube-client';
import type { ClusterRuntimeClass } from './extras';
import { clusterProxy, clusterVersion, infrastructure, infrastructurePlatform, operatorNetwork } from './openshift';
import { proxyFacts } from '../core/proxy/settings';
import type { WindowsNodeView } from './windows-nodes';
import { wmcoCsv } from './wmco';

/**
 * Reads the OpenShift facts: ClusterVersion, Infrastructure, the operator Network, WMCO's CSV, the
 * cloud-private-key secret (its presence only) and the cluster-wide proxy (without credentials). Each read on its own: one that is forbidden (403),
 * absent or failing leaves its fields out and never fails the others.
 */
export async function readOpenShiftFacts(
  kube: KubeClient,
  wmcoNamespace = WMCO_NAMESPACE,
  signal?: AbortSignal,
  /** Told when a read failed (its fact is then missing, not absent from the cluster). */
  failed?: (err: unknown) => void,
): Promise<OpenShiftFacts> {
  const quiet = <T>(p: Promise<T>): Promise<T | undefined> =>
    p.catch((err: unknown) => {
      failed?.(err);
      return undefined;
    });
  const [cv, infra, net, csv, key, proxy] = await Promise.all([
    quiet(clusterVersion(kube, signal)),
    quiet(infrastructure(kube, signal)),
    quiet(operatorNetwork(kube, signal)),
    quiet(wmcoCsv(kube, signal, wmcoNamespace).then((c) => ({ found: c !== undefined }))),
    quiet(
      getOrUndefined<unknown>(kube, `/api/v1/namespaces/${enc(wmcoNamespace)}/secrets/${KEY_SECRET}`, signal).then(
        (s) => ({ found: s !== undefined }),
      ),
    ),
    quiet(clusterProxy(kube, signal)),
  ]);
  const facts: OpenShiftFacts = {};
  const version = cv?.status?.desired?.version;
  if (version) facts.version = version;
  const platform = infrastructurePlatform(infra);
  if (platform) facts.platform = platform;
  if (infra?.status?.infrastructureName) facts.infrastructureName = infra.status.infrastructureName;
  const network = net?.spec?.defaultNetwork;
  if (network?.type) facts.networkType = network.type;
  if (net) facts.hybridOverlay = Boolean(network?.ovnKubernetesConfig?.hybridOverlayConfig);
  if (csv) facts.wmcoInstalled = csv.found;
  if (key) facts.cloudPrivateKey = key.found;
  const p = proxyFacts(proxy);
  if (p) facts.proxy = p;
  return facts;
}

export function buildSnapshot(input: {
  name: string;
  flavour?: 'openshift' | 'kubernetes';
  nodes: WindowsNodeView[];
  runtimeClasses: ClusterRuntimeClass[];
  openshift?: OpenShiftFacts;
  /** `/version` gitVersion (v1.35.4): the release the rules decide by. */
  serverVersion?: string;
}): ClusterSnapshot {
  const snapshot: ClusterSnapshot = {
    name: input.name,
    windowsNodes: input.nodes
      .filter((n) => n.build)
      .map((n) => ({ name: n.name, build: n.build ?? '', taints: n.taints.map((t) => ({ ...t })) })),
    runtimeClasses: input.runtimeClasses.map((rc) => ({
      ...rc,
      nodeSelector: { ...rc.nodeSelector },
      tolerations: rc.tolerations.map((t) => ({ ...t })),
    })),
  };
  if (input.flavour) snapshot.flavour = input.flavour;
  if (input.openshift)
    snapshot.openshift = {
      ...input.openshift,
      ...(input.openshift.proxy ? { proxy: { ...input.openshift.proxy } } : {}),
    };
  if (input.serverVersion) snapshot.serverVersion = input.serverVersion;
  return snapshot;
}

/** Snapshot of a connected session; parts that failed are left empty (rules only get sharper with facts). */
export async function snapshotOf(session: {
  context: string;
  connect(): Promise<
    { status: 'connected'; info: { flavour: 'openshift' | 'kubernetes'; version?: string } } | { status: 'error' }
  >;
  windowsNodes(): Promise<{ nodes(): WindowsNodeView[] }>;
  runtimeClasses(): Promise<ClusterRuntimeClass[] | { kind: 'error' }>;
  /** Read once per cluster (the session keeps them). */
  openshiftFacts?(): Promise<OpenShiftFacts>;
  /** Read once per cluster too: CSI drivers register when a node joins, not on every node change. */
  storageObjects?(): Promise<StorageObjects>;
}): Promise<ClusterSnapshot | undefined> {
  const state = await session.connect();
  if (state.status !== 'connected') return undefined;
  const openshift =
    state.info.flavour === 'openshift' && session.openshiftFacts
      ? session.openshiftFacts().catch(() => undefined)
      : Promise.resolve(undefined);
  const storageRead = session.storageObjects
    ? session.storageObjects().catch(() => undefined)
    : Promise.resolve(undefined);
  const [model, rcs, facts, objects] = await Promise.all([
    session.windowsNodes(),
    session.runtimeClasses(),
    openshift,
    storageRead,
  ]);
  const nodes = model.nodes();
  const snapshot = buildSnapshot({
    name: session.context,
    flavour: state.info.flavour,
    nodes,
    runtimeClasses: Array.isArray(rcs) ? rcs : [],
    ...(facts ? { openshift: facts } : {}),
    ...(state.info.version ? { serverVersion: state.info.version } : {}),
  });
  // The storage facts read a node's name and build label, which the node views carry.
  const storage =
    objects &&
    storageFacts(
      objects,
      nodes.map((n) => ({ metadata: { name: n.name, labels: n.build ? { [BUILD_LABEL]: n.build } : {} } })),
    );
  if (storage) snapshot.storage = storage;
  return snapshot;
}
