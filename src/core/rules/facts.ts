import type { LabelSelector } from '../drain';
import type { ClusterProxyFacts } from '../proxy/settings';
import { getAt, isObj, type Obj } from '../manifest/path';
import type { ObjectView } from '../manifest/workloads';
import { BETA_OS_LABEL, BUILD_LABEL, OS_LABEL } from '../well-known';
import { clusterRelease, DEFAULT_KUBERNETES_RELEASE, effectiveRelease, normalizeRelease } from '../kubernetes-release';

/** Facts about a RuntimeClass that decide whether pods using it land on Windows nodes. */
export interface RuntimeClassFacts {
  name: string;
  handler: string;
  nodeSelector: Record<string, string>;
  tolerations: Obj[];
  windows: boolean;
  /** `node.kubernetes.io/windows-build` it pins, if any. */
  build?: string;
  source: 'file' | 'cluster';
  /** Where a RuntimeClass read from a file is defined, when the file is known (findings built on it name it). */
  origin?: FactOrigin;
}

/** The file and line (1-based) a fact was read from. */
export interface FactOrigin {
  file: string;
  line: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/**
 * What an OpenShift cluster says about itself (ClusterVersion, Infrastructure, the Network operator,
 * WMCO's namespace). Every field is optional: a reader without the right to see an object leaves it out.
 */
export interface OpenShiftFacts {
  /** ClusterVersion `status.desired.version`, e.g. `4.16.3`. */
  version?: string;
  /** Infrastructure `status.platformStatus.type`: AWS, Azure, GCP, VSphere, Nutanix, BareMetal, None ... */
  platform?: string;
  /** Infrastructure `status.infrastructureName`, the `<infrastructureID>` of the MachineSet templates. */
  infrastructureName?: string;
  /** Network operator `spec.defaultNetwork.type`: OVNKubernetes or OpenShiftSDN. */
  networkType?: string;
  /** The Network operator configures a hybrid overlay (Windows nodes need it). */
  hybridOverlay?: boolean;
  /** WMCO is installed (its ClusterServiceVersion or Deployment in the WMCO namespace). */
  wmcoInstalled?: boolean;
  /** The secret `cloud-private-key` exists in the WMCO namespace. */
  cloudPrivateKey?: boolean;
  /** The cluster-wide egress proxy (proxies.config.openshift.io/cluster), without credentials; absent: none. */
  proxy?: ClusterProxyFacts;
}

/** What the extension knows about the live cluster; rules get sharper with it, never need it. */
export interface ClusterSnapshot {
  name: string;
  /**
   * Facts the user stated (`--openshift-version` without a cluster), not read from one: what they
   * make is asked for, so it is not marked as coming from a cluster.
   */
  stated?: boolean;
  flavour?: 'openshift' | 'kubernetes';
  /** One entry per Windows node. */
  windowsNodes: { name: string; build: string; taints: Taint[] }[];
  runtimeClasses: Omit<RuntimeClassFacts, 'source' | 'windows'>[];
  /** On OpenShift: version, platform, network and WMCO facts. */
  openshift?: OpenShiftFacts;
  /** StorageClasses and the CSI drivers registered per Windows node; absent when they could not be read. */
  storage?: StorageFacts;
  /** The API server's version (`/version` gitVersion, e.g. `v1.35.4`): the release the rules decide by. */
  serverVersion?: string;
}

/** What decides whether a claim's CSI driver can mount on the Windows nodes. */
export interface StorageFacts {
  storageClasses: { name: string; provisioner: string; isDefault: boolean }[];
  /** Names known to be CSI drivers: CSIDriver objects and drivers registered on any node (CSINode). */
  csiDrivers: string[];
  /** Every Windows node with the CSI drivers whose node plugin registered there (its CSINode's spec.drivers). */
  windowsNodes: { name: string; build?: string; drivers: string[] }[];
}

/** A PersistentVolumeClaim as far as the storage rule reads it. */
export interface ClaimFacts {
  /** undefined: not set (the default StorageClass applies); '': explicitly no class. */
  storageClassName?: string;
  /** The PersistentVolume it is bound to. */
  volumeName?: string;
}

export type Flavour = 'auto' | 'openshift' | 'kubernetes';

/** Cross-document facts: gathered from every file being checked, plus the cluster snapshot. */
export interface Facts {
  runtimeClasses: Map<string, RuntimeClassFacts>;
  /** Namespace name → labels (Pod Security Admission levels live there). */
  namespaces: Map<string, Record<string, string>>;
  /** `Kind/namespace/name` of workloads an autoscaler targets → the autoscaler's kind and name. */
  autoscaled: Map<string, { kind: string; name: string }[]>;
  /** PodMonitors (user-defined monitoring): the pods they select, in which namespaces. */
  podMonitors: PodMonitorFacts[];
  /** `namespace/name` of PersistentVolumeClaims → their class and volume. */
  claims: Map<string, ClaimFacts>;
  /** PersistentVolume name → the CSI driver of its `spec.csi`, if it has one. */
  volumes: Map<string, { csiDriver?: string }>;
  flavour: Flavour;
  /** OpenShift objects seen in the files (flavour auto). */
  openshiftSeen: boolean;
  /**
   * The first OpenShift object of the project (the kustomization, chart or folder the file belongs to),
   * when another of its files made it OpenShift (see withProjectFlavour).
   */
  openshiftFrom?: FactOrigin & { kind: string };
  cluster?: ClusterSnapshot;
  /**
   * The Kubernetes release ("1.35") the rules decide by: asked for (`--kubernetes-version`), else the
   * cluster's (its API server, else its OpenShift release), else DEFAULT_KUBERNETES_RELEASE.
   */
  kubernetesVersion: string;
  /** Where kubernetesVersion came from: findings that only the cluster's release makes are marked as the cluster's. */
  kubernetesVersionFrom: 'asked' | 'cluster' | 'default';
}

export interface PodMonitorFacts {
  name: string;
  namespace?: string;
  selector: LabelSelector;
  /** `any`, or the namespaces whose pods it selects (its own by default). */
  namespaces: 'any' | string[];
}

export function emptyFacts(flavour: Flavour = 'auto', cluster?: ClusterSnapshot, kubernetesVersion?: string): Facts {
  const asked = normalizeRelease(kubernetesVersion);
  const release = effectiveRelease(asked, cluster);
  const facts: Facts = {
    runtimeClasses: new Map(),
    namespaces: new Map(),
    autoscaled: new Map(),
    podMonitors: [],
    claims: new Map(),
    volumes: new Map(),
    flavour,
    openshiftSeen: false,
    cluster,
    kubernetesVersion: release,
    kubernetesVersionFrom: asked ? 'asked' : clusterRelease(cluster) ? 'cluster' : 'default',
  };
  for (const rc of cluster?.runtimeClasses ?? []) {
    facts.runtimeClasses.set(rc.name, {
      ...rc,
      windows: runtimeClassIsWindows(rc.handler, rc.nodeSelector),
      source: 'cluster',
    });
  }
  if (cluster?.flavour === 'openshift' && flavour === 'auto') facts.openshiftSeen = true;
  return facts;
}

export function isOpenShift(facts: Facts): boolean {
  return facts.flavour === 'openshift' || (facts.flavour === 'auto' && facts.openshiftSeen);
}

/**
 * Which family of Windows runtime handler a RuntimeClass names. containerd's runhcs handlers are
 * named by whoever writes the node's config: Hyper-V ones carry the build their utility VM runs
 * (`runhcs-wcow-hypervisor-17763`, `-1903`, as KEP-1001 and sig-windows-tools write them), and
 * early HostProcess prototypes were handlers (`runhcs-privileged`, `runhcs-wcow-privileged`).
 */
export type HandlerFamily = 'process' | 'hypervisor' | 'privileged';

const HANDLER_FAMILY = /^runhcs-(?:wcow-)?(process|hypervisor|privileged)(?:[-_.]([a-z0-9][a-z0-9._-]*))?$/i;

export function handlerFamily(handler: string): { family: HandlerFamily; suffix?: string } | undefined {
  const m = HANDLER_FAMILY.exec(handler.trim());
  if (!m || (m[1].toLowerCase() === 'process' && !/^runhcs-wcow-/i.test(handler.trim()))) return undefined;
  return { family: m[1].toLowerCase() as HandlerFamily, ...(m[2] ? { suffix: m[2] } : {}) };
}

export function runtimeClassIsWindows(handler: string, nodeSelector: Record<string, string>): boolean {
  const os = nodeSelector[OS_LABEL] ?? nodeSelector[BETA_OS_LABEL];
  if (typeof os === 'string') return os.toLowerCase() === 'windows';
  return handlerFamily(handler) !== undefined || BUILD_LABEL in nodeSelector;
}

const OPENSHIFT_API = /^\s*apiVersion:\s*["']?[a-z0-9.-]*openshift\.io\//m;

/** A file's text, with the path it is shown under (facts read from it name it). */
export interface FactText {
  text: string;
  path?: string;
}

/**
 * Flavour `auto` decides per project: the files checked together as one project (a kustomization,
 * a chart, a folder argument) are about one cluster, so an OpenShift object in any of them (a Route,
 * a DeploymentConfig, an SCC …) makes the project's plain Pods OpenShift pods too. Unrelated folders
 * checked in the same run are separate projects and stay as they are.
 */
export function withProjectFlavour(facts: Facts, files: FactText[]): Facts {
  if (facts.flavour !== 'auto') return facts;
  for (const f of files) {
    if (!f.text.includes('openshift.io/')) continue;
    const m = OPENSHIFT_API.exec(f.text);
    if (!m) continue;
    const line = lineOf(f.text, m.index + m[0].indexOf('apiVersion'));
    const kind = /^\s*kind:\s*["']?([A-Za-z0-9]+)/m.exec(documentAround(f.text, m.index))?.[1] ?? 'object';
    return { ...facts, openshiftSeen: true, openshiftFrom: { file: f.path ?? '<stdin>', line, kind } };
  }
  return facts;
}

/** 1-based line of an offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The YAML document (between `---` lines) around an offset. */
function documentAround(text: string, offset: number): string {
  const before = text.lastIndexOf('\n---', offset);
  const after = text.indexOf('\n---', offset);
  return text.slice(before === -1 ? 0 : before + 4, after === -1 ? text.length : after);
}

/** " (RuntimeClass x, rc.yaml:4)": where a fact read from a file comes from, for the finding built on it. */
export function factOrigin(rc: RuntimeClassFacts): string {
  return rc.origin ? ` (RuntimeClass ${rc.name} is defined in ${rc.origin.file}:${rc.origin.line})` : '';
}

/** " (OpenShift: a Route in routes.yaml:3)": which file of the project made a pod an OpenShift pod. */
export function openshiftOrigin(facts: Facts): string {
  const o = facts.openshiftFrom;
  return o && facts.flavour === 'auto' ? ` (This project is OpenShift: ${o.kind} in ${o.file}:${o.line}.)` : '';
}

/**
 * Flavour `auto` decides per file: a file holding OpenShift objects (any *.openshift.io API group)
 * is about an OpenShift cluster. Deciding per run would let one OpenShift file in a mixed tree
 * turn every Windows pod elsewhere into an OpenShift pod.
 */
export function withFileFlavour(facts: Facts, text: string): Facts {
  if (facts.flavour !== 'auto' || facts.openshiftSeen) return facts;
  return text.includes('openshift.io/') && OPENSHIFT_API.test(text) ? { ...facts, openshiftSeen: true } : facts;
}

/**
 * The facts as they would be without the cluster snapshot: what the files alone say. Findings that
 * the rules report only with the cluster's facts are marked as coming from the cluster (checker.ts).
 * `text` is the file being checked, for its own flavour.
 */
export function factsWithoutCluster(facts: Facts, text: string): Facts {
  if (!facts.cluster || facts.cluster.stated) return facts;
  const fromFiles = new Map([...facts.runtimeClasses].filter(([, rc]) => rc.source !== 'cluster'));
  // Only the cluster (emptyFacts) and the file's own text (withFileFlavour) make openshiftSeen.
  const clusterSaidOpenShift = facts.cluster.flavour === 'openshift' && facts.flavour === 'auto';
  return withFileFlavour(
    {
      ...facts,
      cluster: undefined,
      runtimeClasses: fromFiles,
      openshiftSeen: clusterSaidOpenShift ? facts.openshiftFrom !== undefined : facts.openshiftSeen,
      ...(facts.kubernetesVersionFrom === 'cluster'
        ? { kubernetesVersion: DEFAULT_KUBERNETES_RELEASE, kubernetesVersionFrom: 'default' as const }
        : {}),
    },
    text,
  );
}

/** What a finding that comes from the cluster's facts says after its message, in every front end. */
export function clusterNote(name: string): string {
  return `— from cluster ${name.length > 60 ? `${name.slice(0, 59)}…` : name}`;
}

/** Cheap pre-filter on raw document text: does it possibly hold a fact kind or an OpenShift object? */
export function mayHoldFacts(text: string): boolean {
  // One regular expression is one pass over the text (six `includes` were six, 3x the time on 20 MB).
  return FACT_WORDS.test(text);
}

const FACT_WORDS = /RuntimeClass|Namespace|Pod(?:Autoscaler|Monitor)|PersistentVolume|openshift\.io/;

export function collectFacts(facts: Facts, object: ObjectView, origin?: FactOrigin): void {
  const v = object.value;
  switch (object.kind) {
    case 'RuntimeClass': {
      const handler = typeof v.handler === 'string' ? v.handler : '';
      const nodeSelector = stringMap(getAt(v, ['scheduling', 'nodeSelector']));
      const tolerations = getAt(v, ['scheduling', 'tolerations']);
      const build = nodeSelector[BUILD_LABEL];
      facts.runtimeClasses.set(object.name, {
        name: object.name,
        handler,
        nodeSelector,
        tolerations: Array.isArray(tolerations) ? tolerations.filter(isObj) : [],
        windows: runtimeClassIsWindows(handler, nodeSelector),
        build,
        source: 'file',
        ...(origin ? { origin } : {}),
      });
      break;
    }
    case 'Namespace':
      facts.namespaces.set(object.name, stringMap(getAt(v, ['metadata', 'labels'])));
      break;
    case 'VerticalPodAutoscaler':
    case 'HorizontalPodAutoscaler': {
      const ref =
        object.kind === 'VerticalPodAutoscaler'
          ? getAt(v, ['spec', 'targetRef'])
          : getAt(v, ['spec', 'scaleTargetRef']);
      if (isObj(ref) && typeof ref.kind === 'string' && typeof ref.name === 'string') {
        const key = workloadKey(ref.kind, object.namespace, ref.name);
        facts.autoscaled.set(key, [...(facts.autoscaled.get(key) ?? []), { kind: object.kind, name: object.name }]);
      }
      break;
    }
    case 'PodMonitor': {
      if (!object.apiVersion.startsWith('monitoring.coreos.com/')) break;
      const selector = getAt(v, ['spec', 'selector']);
      const nsSelector = getAt(v, ['spec', 'namespaceSelector']);
      const names = getAt(nsSelector, ['matchNames']);
      facts.podMonitors.push({
        name: object.name,
        ...(object.namespace !== undefined ? { namespace: object.namespace } : {}),
        selector: isObj(selector) ? (selector as LabelSelector) : {},
        namespaces:
          getAt(nsSelector, ['any']) === true
            ? 'any'
            : Array.isArray(names)
              ? names.filter((n): n is string => typeof n === 'string')
              : [object.namespace ?? ''],
      });
      break;
    }
    case 'PersistentVolumeClaim': {
      const named = getAt(v, ['spec', 'storageClassName']);
      // The beta annotation still wins over the field where both are set.
      const annotated = getAt(v, ['metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class']);
      const storageClassName =
        typeof annotated === 'string' ? annotated : typeof named === 'string' ? named : undefined;
      const volumeName = getAt(v, ['spec', 'volumeName']);
      facts.claims.set(claimKey(object.namespace, object.name), {
        ...(storageClassName !== undefined ? { storageClassName } : {}),
        ...(typeof volumeName === 'string' && volumeName !== '' ? { volumeName } : {}),
      });
      break;
    }
    case 'PersistentVolume': {
      const driver = getAt(v, ['spec', 'csi', 'driver']);
      facts.volumes.set(object.name, typeof driver === 'string' && driver !== '' ? { csiDriver: driver } : {});
      break;
    }
    default:
      break;
  }
}

export function claimKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export function workloadKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(v)) return out;
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') out[k] = val;
    else if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
  }
  return out;
}
