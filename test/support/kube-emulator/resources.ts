// The resource kinds the emulator serves, with the discovery data the real API server reports for them.

export interface ResourceInfo {
  kind: string;
  plural: string;
  singular: string;
  group: string; // '' for core
  version: string;
  namespaced: boolean;
  shortNames?: string[];
  subresources: string[];
  /** Served only on OpenShift clusters. */
  openshift?: boolean;
  /** Served only where Calico's operator installed its CRDs (operator.tigera.io). */
  tigera?: boolean;
  /** Backed by a CustomResourceDefinition (list items then carry apiVersion and kind, as for unstructured objects). */
  crd?: boolean;
}

const STD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const RESOURCES: ResourceInfo[] = [
  {
    kind: 'Namespace',
    plural: 'namespaces',
    singular: 'namespace',
    group: '',
    version: 'v1',
    namespaced: false,
    shortNames: ['ns'],
    subresources: ['status', 'finalize'],
  },
  {
    kind: 'Node',
    plural: 'nodes',
    singular: 'node',
    group: '',
    version: 'v1',
    namespaced: false,
    shortNames: ['no'],
    subresources: ['status'],
  },
  {
    kind: 'Pod',
    plural: 'pods',
    singular: 'pod',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['po'],
    subresources: ['status', 'eviction', 'log', 'exec'],
  },
  {
    kind: 'ConfigMap',
    plural: 'configmaps',
    singular: 'configmap',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['cm'],
    subresources: [],
  },
  {
    kind: 'Secret',
    plural: 'secrets',
    singular: 'secret',
    group: '',
    version: 'v1',
    namespaced: true,
    subresources: [],
  },
  {
    kind: 'Event',
    plural: 'events',
    singular: 'event',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['ev'],
    subresources: [],
  },
  {
    kind: 'CertificateSigningRequest',
    plural: 'certificatesigningrequests',
    singular: 'certificatesigningrequest',
    group: 'certificates.k8s.io',
    version: 'v1',
    namespaced: false,
    shortNames: ['csr'],
    subresources: ['status', 'approval'],
  },
  {
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    group: 'policy',
    version: 'v1',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: ['status'],
  },
  {
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    singular: 'serviceaccount',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['sa'],
    subresources: ['token'],
  },
  {
    kind: 'DaemonSet',
    plural: 'daemonsets',
    singular: 'daemonset',
    group: 'apps',
    version: 'v1',
    namespaced: true,
    shortNames: ['ds'],
    subresources: ['status'],
  },
  {
    kind: 'ClusterRole',
    plural: 'clusterroles',
    singular: 'clusterrole',
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    namespaced: false,
    subresources: [],
  },
  {
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    singular: 'clusterrolebinding',
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    namespaced: false,
    subresources: [],
  },
  // Calico's operator API (tigera/operator's CRDs), served once the operator is installed.
  {
    kind: 'Installation',
    plural: 'installations',
    singular: 'installation',
    group: 'operator.tigera.io',
    version: 'v1',
    namespaced: false,
    subresources: ['status'],
    tigera: true,
    crd: true,
  },
  {
    kind: 'Deployment',
    plural: 'deployments',
    singular: 'deployment',
    group: 'apps',
    version: 'v1',
    namespaced: true,
    shortNames: ['deploy'],
    subresources: ['status', 'scale'],
  },
  {
    kind: 'StatefulSet',
    plural: 'statefulsets',
    singular: 'statefulset',
    group: 'apps',
    version: 'v1',
    namespaced: true,
    shortNames: ['sts'],
    subresources: ['status', 'scale'],
  },
  {
    kind: 'ReplicaSet',
    plural: 'replicasets',
    singular: 'replicaset',
    group: 'apps',
    version: 'v1',
    namespaced: true,
    shortNames: ['rs'],
    subresources: ['status', 'scale'],
  },
  {
    kind: 'Job',
    plural: 'jobs',
    singular: 'job',
    group: 'batch',
    version: 'v1',
    namespaced: true,
    subresources: ['status'],
  },
  {
    kind: 'CronJob',
    plural: 'cronjobs',
    singular: 'cronjob',
    group: 'batch',
    version: 'v1',
    namespaced: true,
    shortNames: ['cj'],
    subresources: ['status'],
  },
  {
    kind: 'DeploymentConfig',
    plural: 'deploymentconfigs',
    singular: 'deploymentconfig',
    group: 'apps.openshift.io',
    version: 'v1',
    namespaced: true,
    shortNames: ['dc'],
    subresources: ['status', 'scale'],
    openshift: true,
  },
  {
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    group: '',
    version: 'v1',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: ['status'],
  },
  {
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    singular: 'persistentvolume',
    group: '',
    version: 'v1',
    namespaced: false,
    shortNames: ['pv'],
    subresources: ['status'],
  },
  {
    kind: 'StorageClass',
    plural: 'storageclasses',
    singular: 'storageclass',
    group: 'storage.k8s.io',
    version: 'v1',
    namespaced: false,
    shortNames: ['sc'],
    subresources: [],
  },
  {
    kind: 'CSINode',
    plural: 'csinodes',
    singular: 'csinode',
    group: 'storage.k8s.io',
    version: 'v1',
    namespaced: false,
    subresources: [],
  },
  {
    kind: 'CSIDriver',
    plural: 'csidrivers',
    singular: 'csidriver',
    group: 'storage.k8s.io',
    version: 'v1',
    namespaced: false,
    subresources: [],
  },
  {
    kind: 'RuntimeClass',
    plural: 'runtimeclasses',
    singular: 'runtimeclass',
    group: 'node.k8s.io',
    version: 'v1',
    namespaced: false,
    subresources: [],
  },
  {
    kind: 'ImageDigestMirrorSet',
    plural: 'imagedigestmirrorsets',
    singular: 'imagedigestmirrorset',
    group: 'config.openshift.io',
    version: 'v1',
    namespaced: false,
    shortNames: ['idms'],
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'ImageTagMirrorSet',
    plural: 'imagetagmirrorsets',
    singular: 'imagetagmirrorset',
    group: 'config.openshift.io',
    version: 'v1',
    namespaced: false,
    shortNames: ['itms'],
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'Subscription',
    plural: 'subscriptions',
    singular: 'subscription',
    group: 'operators.coreos.com',
    version: 'v1alpha1',
    namespaced: true,
    shortNames: ['sub', 'subs'],
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'ClusterServiceVersion',
    plural: 'clusterserviceversions',
    singular: 'clusterserviceversion',
    group: 'operators.coreos.com',
    version: 'v1alpha1',
    namespaced: true,
    shortNames: ['csv', 'csvs'],
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'InstallPlan',
    plural: 'installplans',
    singular: 'installplan',
    group: 'operators.coreos.com',
    version: 'v1alpha1',
    namespaced: true,
    shortNames: ['ip'],
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'OperatorGroup',
    plural: 'operatorgroups',
    singular: 'operatorgroup',
    group: 'operators.coreos.com',
    version: 'v1',
    namespaced: true,
    shortNames: ['og'],
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  // Two kinds named Network (config.openshift.io and operator.openshift.io), as on a real OpenShift cluster:
  // the store keys objects by group + kind, and an unqualified 'Network' means the first one listed here.
  {
    kind: 'Network',
    plural: 'networks',
    singular: 'network',
    group: 'config.openshift.io',
    version: 'v1',
    namespaced: false,
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'Infrastructure',
    plural: 'infrastructures',
    singular: 'infrastructure',
    group: 'config.openshift.io',
    version: 'v1',
    namespaced: false,
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'Proxy',
    plural: 'proxies',
    singular: 'proxy',
    group: 'config.openshift.io',
    version: 'v1',
    namespaced: false,
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'ClusterVersion',
    plural: 'clusterversions',
    singular: 'clusterversion',
    group: 'config.openshift.io',
    version: 'v1',
    namespaced: false,
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'Network',
    plural: 'networks',
    singular: 'network',
    group: 'operator.openshift.io',
    version: 'v1',
    namespaced: false,
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
  // The Machine API (machine-api-operator's CRDs): MachineSets have the scale subresource
  // (spec.replicas, status.replicas, status.labelSelector), Machines a status subresource.
  {
    kind: 'MachineSet',
    plural: 'machinesets',
    singular: 'machineset',
    group: 'machine.openshift.io',
    version: 'v1beta1',
    namespaced: true,
    subresources: ['status', 'scale'],
    openshift: true,
    crd: true,
  },
  {
    kind: 'Machine',
    plural: 'machines',
    singular: 'machine',
    group: 'machine.openshift.io',
    version: 'v1beta1',
    namespaced: true,
    subresources: ['status'],
    openshift: true,
    crd: true,
  },
];

export const apiVersionOf = (r: ResourceInfo): string => (r.group ? `${r.group}/${r.version}` : r.version);

/** The group of an apiVersion ('' for core 'v1'). */
export const groupOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

/** Store identity of a resource: kinds are unique only within a group (Network). */
export const resourceId = (r: ResourceInfo): string => (r.group ? `${r.kind}.${r.group}` : r.kind);

/**
 * The resource for a kind, plural or singular name, optionally qualified by group as kubectl writes it
 * ('Network.operator.openshift.io', 'networks.operator.openshift.io'), or disambiguated by an apiVersion.
 */
export function resourceByKind(kind: string, apiVersion?: string): ResourceInfo {
  const matches = (x: ResourceInfo, k: string): boolean =>
    x.kind === k || x.plural === k.toLowerCase() || x.singular === k.toLowerCase();
  let r: ResourceInfo | undefined;
  if (apiVersion !== undefined) {
    const group = groupOf(apiVersion);
    r = RESOURCES.find((x) => x.group === group && matches(x, kind));
  }
  r ??= RESOURCES.find((x) => matches(x, kind));
  if (!r) {
    const dot = kind.indexOf('.');
    if (dot > 0) r = RESOURCES.find((x) => x.group === kind.slice(dot + 1) && matches(x, kind.slice(0, dot)));
  }
  if (!r) throw new Error(`kube emulator: unsupported kind ${kind}`);
  return r;
}

/** Which optional APIs a cluster serves: OpenShift's, Calico's operator's. */
export interface Serving {
  openshift: boolean;
  tigera: boolean;
}

const served = (r: ResourceInfo, s: Serving): boolean => (s.openshift || !r.openshift) && (s.tigera || !r.tigera);

export function resourceByPath(group: string, version: string, plural: string, s: Serving): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural && served(r, s));
}

function apiResource(r: ResourceInfo): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    {
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: STD_VERBS,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      storageVersionHash: '',
    },
  ];
  for (const sub of r.subresources) {
    if (sub === 'eviction')
      out.push({
        name: `${r.plural}/eviction`,
        singularName: '',
        namespaced: true,
        group: 'policy',
        version: 'v1',
        kind: 'Eviction',
        verbs: ['create'],
      });
    else if (sub === 'approval')
      out.push({
        name: `${r.plural}/approval`,
        singularName: '',
        namespaced: false,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
    else if (sub === 'finalize')
      out.push({ name: `${r.plural}/finalize`, singularName: '', namespaced: false, kind: r.kind, verbs: ['update'] });
    else if (sub === 'token')
      out.push({
        name: `${r.plural}/token`,
        singularName: '',
        namespaced: true,
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        verbs: ['create'],
      });
    else if (sub === 'scale')
      out.push({
        name: `${r.plural}/scale`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    else
      out.push({
        name: `${r.plural}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
  }
  return out;
}

export function apiResourceList(group: string, version: string, s: Serving): Record<string, unknown> | undefined {
  const rs = RESOURCES.filter((r) => r.group === group && r.version === version && served(r, s));
  if (rs.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: rs.flatMap(apiResource),
  };
}

export function apiGroups(s: Serving): Record<string, unknown>[] {
  const groups = new Map<string, string>();
  for (const r of RESOURCES) if (r.group && served(r, s)) groups.set(r.group, r.version);
  return [...groups].map(([name, version]) => ({
    name,
    versions: [{ groupVersion: `${name}/${version}`, version }],
    preferredVersion: { groupVersion: `${name}/${version}`, version },
  }));
}
