// Per-cluster facts read on demand: BYOH instances (the windows-instances ConfigMap), registry mirror
// sets (IDMS/ITMS) and the RuntimeClasses that schedule onto Windows. Each returns data or an error item.
import type { V1RuntimeClassList } from '@kubernetes/client-node';
import { runtimeClassIsWindows, stringMap, type RuntimeClassFacts } from '../core/rules/facts';
import type { Obj } from '../core/manifest/path';
import { knownPolicy, specEntries } from '../core/mirrors/spec';
import { BUILD_LABEL, INSTANCES_CONFIGMAP, WMCO_NAMESPACE } from '../core/well-known';
import { MIRROR_SET_PATHS, type MirrorSetKind } from './openshift';
import type { KubeClient } from './kube-client';
import { ApiError, classifyError, type ClusterErrorItem, type ErrorContext } from './errors';
import type { WindowsNodeView } from './windows-nodes';

export interface ByohInstance {
  /** The ConfigMap key: an IPv4 address or a DNS name. */
  address: string;
  username?: string;
  /** Set when the value is not `username=<user>` (WMCO then rejects the whole ConfigMap). */
  invalid?: string;
  /** The node whose addresses include this one, if any. */
  node?: string;
  status: 'joined' | 'not joined';
}

export type ByohInstances = { configMap: boolean; instances: ByohInstance[] };

/** Pure: the entries of a windows-instances ConfigMap matched against the Windows nodes. */
export function byohInstancesOf(data: Record<string, string> | undefined, nodes: WindowsNodeView[]): ByohInstance[] {
  const out: ByohInstance[] = [];
  for (const [address, value] of Object.entries(data ?? {})) {
    const inst: ByohInstance = { address, status: 'not joined' };
    const eq = value.indexOf('=');
    if (eq < 0 || value.slice(0, eq) !== 'username') inst.invalid = 'the value must be username=<user>';
    else inst.username = value.slice(eq + 1);
    const lower = address.toLowerCase();
    const node = nodes.find(
      (n) => n.addresses.some((a) => a.address.toLowerCase() === lower) || n.name.toLowerCase() === lower,
    );
    if (node) {
      inst.node = node.name;
      inst.status = 'joined';
    }
    out.push(inst);
  }
  return out.sort((a, b) => a.address.localeCompare(b.address));
}

export interface MirrorSetView {
  kind: 'ImageDigestMirrorSet' | 'ImageTagMirrorSet';
  name: string;
  mirrors: { source: string; mirrors: string[]; mirrorSourcePolicy?: string }[];
}

export type MirrorSets = { available: boolean; sets: MirrorSetView[] };

/** Pure: the mirror sets of one kind (objects of a list), read as the renderer reads them. */
export function mirrorSetViewsOf(kind: MirrorSetKind, items: readonly Obj[]): MirrorSetView[] {
  return items.map((item) => {
    const meta = (item.metadata ?? {}) as Obj;
    // Entries without a source and blank mirrors do not count.
    const mirrors = specEntries(kind, item.spec).flatMap((e) => {
      if (e.source === undefined) return [];
      const policy = knownPolicy(e.policy);
      return [
        {
          source: e.source,
          mirrors: e.mirrors.map((m) => m.value),
          ...(policy ? { mirrorSourcePolicy: policy } : {}),
        },
      ];
    });
    return { kind, name: String(meta.name ?? ''), mirrors };
  });
}

/** The collections the explorer watches for mirror sets, one per kind. */
export const mirrorSetCollections = (): { kind: MirrorSetKind; path: string; selector: Record<string, never> }[] =>
  (Object.entries(MIRROR_SET_PATHS) as [MirrorSetKind, string][]).map(([kind, path]) => ({ kind, path, selector: {} }));

/** IDMS and ITMS of an OpenShift cluster; `available: false` when the API does not exist. */
export async function readMirrorSets(
  client: KubeClient,
  ctx: ErrorContext = {},
): Promise<MirrorSets | ClusterErrorItem> {
  const sets: MirrorSetView[] = [];
  let available = false;
  for (const { kind, path } of mirrorSetCollections()) {
    try {
      const list = await client.get<{ items?: Obj[] }>(path);
      available = true;
      sets.push(...mirrorSetViewsOf(kind, list.items ?? []));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) continue;
      return classifyError(err, { ...ctx, what: 'mirror sets' });
    }
  }
  return { available, sets };
}

const RUNTIME_CLASSES_PATH = '/apis/node.k8s.io/v1/runtimeclasses';
export const runtimeClassPath = (name: string): string => `${RUNTIME_CLASSES_PATH}/${encodeURIComponent(name)}`;
/** The collection the explorer watches for RuntimeClasses. */
export const runtimeClassCollection = { path: RUNTIME_CLASSES_PATH, selector: {} };

/** The collection the explorer watches for the windows-instances ConfigMap (only that one, by name). */
export const windowsInstancesCollection = (namespace = WMCO_NAMESPACE) => ({
  path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`,
  selector: { fieldSelector: `metadata.name=${INSTANCES_CONFIGMAP}` },
});

export type ClusterRuntimeClass = Omit<RuntimeClassFacts, 'source' | 'windows'>;

/** Pure: the RuntimeClasses (objects of a list) whose scheduling sends pods to Windows nodes. */
export function windowsRuntimeClassesOf(items: readonly V1RuntimeClassList['items'][number][]): ClusterRuntimeClass[] {
  const out: ClusterRuntimeClass[] = [];
  for (const rc of items) {
    const nodeSelector = stringMap(rc.scheduling?.nodeSelector);
    if (!runtimeClassIsWindows(rc.handler, nodeSelector)) continue;
    const item: ClusterRuntimeClass = {
      name: rc.metadata?.name ?? '',
      handler: rc.handler,
      nodeSelector,
      tolerations: (rc.scheduling?.tolerations ?? []).map((t) => ({ ...t }) as Obj),
    };
    const build = nodeSelector[BUILD_LABEL];
    if (build) item.build = build;
    out.push(item);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function isErrorItem(v: unknown): v is ClusterErrorItem {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'error';
}
