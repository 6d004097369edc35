import { getAt, isObj, type Obj, type Path } from './path';

/** Where the pod template's spec sits in each workload kind. */
export const POD_SPEC_PATHS: Readonly<Record<string, Path>> = {
  Pod: ['spec'],
  PodTemplate: ['template', 'spec'],
  Deployment: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  ReplicationController: ['spec', 'template', 'spec'],
  DeploymentConfig: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

export const WORKLOAD_KINDS = Object.keys(POD_SPEC_PATHS);

export type ContainerGroup = 'initContainers' | 'containers' | 'ephemeralContainers';
export const CONTAINER_GROUPS: ContainerGroup[] = ['initContainers', 'containers', 'ephemeralContainers'];

export interface ContainerView {
  group: ContainerGroup;
  index: number;
  /** Path of the container object within the document. */
  path: Path;
  value: Obj;
  name: string;
  image: string | undefined;
}

/** A Kubernetes object found in a document (the document itself, or an item of a List). */
export interface ObjectView {
  /** Path of the object within the document value ([] for the document root). */
  path: Path;
  value: Obj;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | undefined;
}

/** One pod spec with everything rules need to read it without re-walking the document. */
export interface PodSpecView {
  object: ObjectView;
  /** Path of the pod spec within the document. */
  path: Path;
  spec: Obj;
  /** Path of the pod (template) metadata, a sibling of `spec`. */
  metadataPath: Path;
  metadata: Obj;
  containers: ContainerView[];
  /** Field path prefix the API server uses in its messages, e.g. `spec.template.spec`. */
  apiPrefix: string;
}

/** Lists the Kubernetes objects of a document, expanding `kind: List` and `*List` items. */
export function objectsOf(value: unknown, basePath: Path = [], depth = 0): ObjectView[] {
  if (!isObj(value) || depth > 4) return [];
  const kind = typeof value.kind === 'string' ? value.kind : '';
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const out: ObjectView[] = [];
  if ((kind === 'List' || kind.endsWith('List')) && Array.isArray(value.items)) {
    value.items.forEach((item, i) => out.push(...objectsOf(item, [...basePath, 'items', i], depth + 1)));
    return out;
  }
  if (!kind) {
    if (looksLikeInstallConfig(value))
      out.push({
        path: basePath,
        value,
        apiVersion,
        kind: INSTALL_CONFIG_KIND,
        name: nameOf(value),
        namespace: undefined,
      });
    return out;
  }
  const meta = isObj(value.metadata) ? value.metadata : {};
  out.push({
    path: basePath,
    value,
    apiVersion,
    kind,
    name: typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? meta.generateName : '',
    namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
  });
  return out;
}

/** OpenShift install-config files carry no `kind`; they are presented as objects of this kind. */
export const INSTALL_CONFIG_KIND = 'InstallConfig';

/**
 * An OpenShift install-config: `apiVersion: v1`, no `kind`, a `platform` map and at least one of
 * the other top-level fields every install-config has. Every Kubernetes object has a `kind`, so
 * this cannot match one.
 */
export function looksLikeInstallConfig(value: unknown): boolean {
  if (!isObj(value) || (value.kind !== undefined && value.kind !== null && value.kind !== '')) return false;
  if (value.apiVersion !== 'v1' || !isObj(value.platform)) return false;
  return (
    typeof value.baseDomain === 'string' ||
    isObj(value.networking) ||
    isObj(value.controlPlane) ||
    Array.isArray(value.compute) ||
    value.pullSecret !== undefined
  );
}

function nameOf(value: Obj): string {
  const meta = value.metadata;
  return isObj(meta) && typeof meta.name === 'string' ? meta.name : '';
}

export function podSpecOf(object: ObjectView): PodSpecView | undefined {
  const rel = POD_SPEC_PATHS[object.kind];
  if (!rel) return undefined;
  const spec = getAt(object.value, rel);
  if (!isObj(spec)) return undefined;
  const metaRel = rel.slice(0, -1).concat('metadata');
  const metadata = getAt(object.value, metaRel);
  const path = [...object.path, ...rel];
  const containers: ContainerView[] = [];
  for (const group of CONTAINER_GROUPS) {
    const list = spec[group];
    if (!Array.isArray(list)) continue;
    list.forEach((c, index) => {
      if (!isObj(c)) return;
      containers.push({
        group,
        index,
        path: [...path, group, index],
        value: c,
        name: typeof c.name === 'string' ? c.name : `#${index}`,
        image: typeof c.image === 'string' ? c.image : undefined,
      });
    });
  }
  return {
    object,
    path,
    spec,
    metadataPath: [...object.path, ...metaRel],
    metadata: isObj(metadata) ? metadata : {},
    containers,
    apiPrefix: rel.join('.'),
  };
}
