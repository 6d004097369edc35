// The cluster objects a kubeadm join makes so that a Windows node runs pods, generated from
// documented facts (never copied text): the HostProcess kube-proxy DaemonSet (sig-windows-tools
// hostprocess/calico/kube-proxy/kube-proxy.yml and the removed hostprocess/flannel/kube-proxy: name
// kube-proxy-windows, kubeadm's kube-proxy ConfigMap and ServiceAccount, image
// sigwindowstools/kube-proxy:<version>-<cni>-hostprocess), Calico for Windows from its manifest
// install (Calico "Install Calico for Windows" with calico-windows-vxlan.yaml: calico-node-windows in
// kube-system, ServiceAccount calico-node, install-cni from calico/cni-windows, node and felix from
// calico/node-windows, settings in calico-windows-config), Flannel for Windows (sig-windows-tools
// hostprocess/flannel/flanneld/flannel-overlay.yml, removed in #385: kube-flannel-ds-windows-amd64
// with kube-flannel-windows-cfg's sdnoverlay CNI config, VNI 4096); the RuntimeClass per build
// (WMCO docs/windows-workloads.md; handler runhcs-wcow-process) and the probe pod. With Calico's
// operator the operator runs calico-node-windows itself: only kube-proxy is ours. Pure.

import {
  BUILD_LABEL,
  CALICO_NAMESPACES,
  CALICO_WINDOWS_CONFIGMAP,
  CALICO_WINDOWS_DAEMONSET,
  FLANNEL_CONFIGMAP,
  FLANNEL_NAMESPACES,
  FLANNEL_WINDOWS_CONFIGMAP,
  FLANNEL_WINDOWS_DAEMONSET,
  KUBE_PROXY_CONFIGMAP,
  KUBE_PROXY_SERVICE_ACCOUNT,
  KUBE_PROXY_WINDOWS_DAEMONSET,
  OS_LABEL,
  WINDOWS_RUNTIME_HANDLER,
} from '../well-known';
import { buildByNumber } from './builds';
import { LAYOUT } from './layout';
import {
  FALLBACK_CNI_VERSION,
  parseKubeVersion,
  versionTag,
  type DaemonSetFacts,
  type DetectedCni,
} from './kubeadm-cluster';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
};

const MANAGED = { 'app.kubernetes.io/managed-by': 'kube-windows' };
const SYSTEM = 'NT AUTHORITY\\system';

export interface NetworkingInput {
  cni: DetectedCni;
  /** The API server's version (kube-proxy is pinned to it). */
  serverVersion: string;
  /** host:port of the API server as nodes reach it (cluster-info's endpoint). */
  endpoint: string;
  /** kubeadm-config's networking.serviceSubnet (default 10.96.0.0/12). */
  serviceSubnet: string;
}

/** The tolerations HostProcess networking pods carry: every taint, as sig-windows-tools' DaemonSets do. */
const TOLERATE_ALL = [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { operator: 'Exists' }];

function hostProcessPodSpec(serviceAccountName: string, rest: Record<string, unknown>): Record<string, unknown> {
  return {
    os: { name: 'windows' },
    serviceAccountName,
    securityContext: { windowsOptions: { hostProcess: true, runAsUserName: SYSTEM } },
    hostNetwork: true,
    priorityClassName: 'system-node-critical',
    nodeSelector: { [OS_LABEL]: 'windows' },
    tolerations: TOLERATE_ALL,
    ...rest,
  };
}

function daemonSet(
  namespace: string,
  name: string,
  app: Record<string, string>,
  podSpec: Record<string, unknown>,
): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace, labels: { ...app, ...MANAGED } },
    spec: {
      selector: { matchLabels: app },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: { metadata: { labels: app }, spec: podSpec },
    },
  };
}

const fieldEnv = (name: string, fieldPath: string) => ({
  name,
  valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } },
});
const sandbox = (path: string) => `$env:CONTAINER_SANDBOX_MOUNT_POINT/${path}`;

/** kube-proxy in HostProcess form, for the CNI's HNS network (its image's start.ps1 waits for it). */
export function kubeProxyWindows(cni: 'calico' | 'flannel', serverVersion: string): Manifest {
  const v = parseKubeVersion(serverVersion);
  const tag = `${v ? versionTag(v) : serverVersion}-${cni}-hostprocess`;
  const app = { 'k8s-app': KUBE_PROXY_WINDOWS_DAEMONSET };
  return daemonSet(
    'kube-system',
    KUBE_PROXY_WINDOWS_DAEMONSET,
    app,
    hostProcessPodSpec(KUBE_PROXY_SERVICE_ACCOUNT, {
      containers: [
        {
          name: 'kube-proxy',
          image: `sigwindowstools/kube-proxy:${tag}`,
          args: [sandbox('kube-proxy/start.ps1')],
          workingDir: sandbox('kube-proxy/'),
          env: [fieldEnv('NODENAME', 'spec.nodeName'), fieldEnv('POD_IP', 'status.podIP')],
          volumeMounts: [{ name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' }],
        },
      ],
      volumes: [{ name: 'kube-proxy', configMap: { name: KUBE_PROXY_CONFIGMAP } }],
    }),
  );
}

/** The first address of a CIDR plus n (kubeadm's cluster DNS is the service subnet's 10th address). */
export function nthAddress(cidr: string, n: number): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr.trim());
  if (!m) return undefined;
  const base = ((Number(m[1]) << 24) >>> 0) + (Number(m[2]) << 16) + (Number(m[3]) << 8) + Number(m[4]);
  const ip = (base + n) >>> 0;
  return [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.');
}

function splitEndpoint(endpoint: string): { host: string; port: string } {
  const i = endpoint.lastIndexOf(':');
  return i > 0
    ? { host: endpoint.slice(0, i).replace(/^\[|\]$/g, ''), port: endpoint.slice(i + 1) }
    : { host: endpoint, port: '443' };
}

/**
 * Calico for Windows (manifest install, VXLAN): its ConfigMap and DaemonSet, pinned to the Linux calico-node's release.
 */
function calicoWindows(i: NetworkingInput): Manifest[] {
  const ns = i.cni.namespace;
  const version = i.cni.version ?? FALLBACK_CNI_VERSION.calico;
  const api = splitEndpoint(i.endpoint);
  const config: Manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CALICO_WINDOWS_CONFIGMAP, namespace: ns, labels: { ...MANAGED } },
    data: {
      KUBERNETES_SERVICE_HOST: api.host,
      KUBERNETES_SERVICE_PORT: api.port,
      K8S_SERVICE_CIDR: i.serviceSubnet,
      DNS_NAME_SERVERS: nthAddress(i.serviceSubnet, 10) ?? '',
      DNS_SEARCH: 'svc.cluster.local',
      CALICO_DATASTORE_TYPE: 'kubernetes',
      CALICO_NETWORKING_BACKEND: 'vxlan',
      KUBE_NETWORK: 'Calico.*',
      VXLAN_VNI: '4096',
      CNI_BIN_DIR: LAYOUT.cniBin,
      CNI_CONF_DIR: LAYOUT.cniConf,
      FELIX_HEALTHENABLED: 'true',
    },
  };
  const app = { 'k8s-app': CALICO_WINDOWS_DAEMONSET };
  const env = [fieldEnv('NODENAME', 'spec.nodeName')];
  const envFrom = [{ configMapRef: { name: CALICO_WINDOWS_CONFIGMAP } }];
  const ds = daemonSet(
    ns,
    CALICO_WINDOWS_DAEMONSET,
    app,
    hostProcessPodSpec(i.cni.daemonSet ?? 'calico-node', {
      initContainers: [
        {
          name: 'install-cni',
          image: `docker.io/calico/cni-windows:${version}`,
          args: [sandbox('opt/cni/bin/install.exe')],
          env,
          envFrom,
        },
      ],
      containers: [
        {
          name: 'node',
          image: `docker.io/calico/node-windows:${version}`,
          args: [sandbox('CalicoWindows/node-service.ps1')],
          workingDir: sandbox('CalicoWindows/'),
          env,
          envFrom,
        },
        {
          name: 'felix',
          image: `docker.io/calico/node-windows:${version}`,
          args: [sandbox('CalicoWindows/felix-service.ps1')],
          workingDir: sandbox('CalicoWindows/'),
          env,
          envFrom,
        },
      ],
    }),
  );
  return [config, ds];
}

/** Flannel for Windows (vxlan, VNI 4096 through HNS's sdnoverlay), pinned to the Linux flannel's release. */
function flannelWindows(i: NetworkingInput): Manifest[] {
  const ns = i.cni.namespace;
  const version = i.cni.version ?? FALLBACK_CNI_VERSION.flannel;
  const api = splitEndpoint(i.endpoint);
  const policy = (type: string, settings: Record<string, unknown>) => ({
    Name: 'EndpointPolicy',
    Value: { Type: type, Settings: settings },
  });
  const cniConf = {
    name: 'flannel.4096',
    cniVersion: '0.3.0',
    type: 'flannel',
    capabilities: { portMappings: true, dns: true },
    delegate: {
      type: 'sdnoverlay',
      AdditionalArgs: [
        policy('OutBoundNAT', { Exceptions: [] }),
        policy('SDNROUTE', { DestinationPrefix: '', NeedEncap: true }),
        policy('ProviderAddress', { ProviderAddress: '' }),
      ],
    },
  };
  const config: Manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: FLANNEL_WINDOWS_CONFIGMAP, namespace: ns, labels: { app: 'flannel', tier: 'node', ...MANAGED } },
    data: { 'cni-conf-containerd.json': `${JSON.stringify(cniConf, null, 2)}\n` },
  };
  const app = { app: 'flannel-windows', tier: 'node' };
  const ds = daemonSet(
    ns,
    FLANNEL_WINDOWS_DAEMONSET,
    app,
    hostProcessPodSpec('flannel', {
      containers: [
        {
          name: 'kube-flannel',
          image: `sigwindowstools/flannel:${version}-hostprocess`,
          env: [
            { name: 'CNI_BIN_PATH', value: LAYOUT.cniBin },
            { name: 'CNI_CONFIG_PATH', value: LAYOUT.cniConf },
            { name: 'SERVICE_SUBNET', value: i.serviceSubnet },
            // flannel on Windows cannot reach the API server through the kubernetes Service (flannel-io/flannel#1772).
            { name: 'KUBERNETES_SERVICE_HOST', value: api.host },
            { name: 'KUBERNETES_SERVICE_PORT', value: api.port },
            fieldEnv('POD_NAME', 'metadata.name'),
            fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
          ],
          volumeMounts: [
            { name: 'flannel-cfg', mountPath: '/mounts/kube-flannel/' },
            { name: 'flannel-windows-cfg', mountPath: '/mounts/kube-flannel-windows/' },
          ],
        },
      ],
      volumes: [
        { name: 'flannel-cfg', configMap: { name: FLANNEL_CONFIGMAP } },
        { name: 'flannel-windows-cfg', configMap: { name: FLANNEL_WINDOWS_CONFIGMAP } },
      ],
    }),
  );
  return [config, ds];
}

/** Everything Windows networking needs for the detected CNI, ConfigMaps before the DaemonSets that mount them. */
export function windowsNetworkingObjects(i: NetworkingInput): Manifest[] {
  const cniObjects = i.cni.kind === 'flannel' ? flannelWindows(i) : i.cni.operator ? [] : calicoWindows(i);
  return [...cniObjects, kubeProxyWindows(i.cni.kind, i.serverVersion)];
}

/** The DaemonSet the CNI's Windows part runs as (ours, or the Calico operator's), to wait for its pod. */
export function cniWindowsDaemonSet(cni: DetectedCni): { namespace: string; name: string } {
  if (cni.kind === 'flannel') return { namespace: cni.namespace, name: FLANNEL_WINDOWS_DAEMONSET };
  return { namespace: cni.operator ? 'calico-system' : cni.namespace, name: CALICO_WINDOWS_DAEMONSET };
}

/** What a Windows networking DaemonSet runs, to recognise one installed by hand under another name. */
const RUNS: Record<string, { namespaces: readonly string[]; image: RegExp }> = {
  [KUBE_PROXY_WINDOWS_DAEMONSET]: { namespaces: ['kube-system'], image: /kube-proxy/ },
  [CALICO_WINDOWS_DAEMONSET]: { namespaces: CALICO_NAMESPACES, image: /calico\/node-windows/ },
  [FLANNEL_WINDOWS_DAEMONSET]: { namespaces: FLANNEL_NAMESPACES, image: /flannel/ },
};

/**
 * An existing DaemonSet that does the job of `wanted`: the same name, or one that runs the same thing on Windows nodes.
 */
export function existingDaemonSet(
  wanted: Manifest,
  existing: readonly (DaemonSetFacts & { nodeSelector?: Record<string, string> })[],
): (DaemonSetFacts & { why: string }) | undefined {
  const same = existing.find((d) => d.namespace === wanted.metadata.namespace && d.name === wanted.metadata.name);
  if (same) return { ...same, why: 'same name' };
  const runs = RUNS[wanted.metadata.name];
  if (!runs) return undefined;
  const onWindows = (d: { name: string; nodeSelector?: Record<string, string>; images: string[] }) =>
    d.nodeSelector?.[OS_LABEL] === 'windows' ||
    /windows/i.test(d.name) ||
    d.images.some((x) => /windows|hostprocess/.test(x));
  const other = existing.find(
    (d) => runs.namespaces.includes(d.namespace) && d.images.some((x) => runs.image.test(x)) && onWindows(d),
  );
  return other
    ? { ...other, why: `it runs ${other.images.find((x) => runs.image.test(x))} on Windows nodes` }
    : undefined;
}

/** The ConfigMaps a manifest's pods mount or take their environment from. */
function configMapsUsed(ds: Manifest): string[] {
  const spec = (
    ds as {
      spec?: {
        template?: {
          spec?: {
            volumes?: { configMap?: { name: string } }[];
            containers?: { envFrom?: { configMapRef?: { name: string } }[] }[];
            initContainers?: { envFrom?: { configMapRef?: { name: string } }[] }[];
          };
        };
      };
    }
  ).spec?.template?.spec;
  const fromVolumes = (spec?.volumes ?? []).flatMap((v) => (v.configMap ? [v.configMap.name] : []));
  const fromEnv = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].flatMap((c) =>
    (c.envFrom ?? []).flatMap((e) => (e.configMapRef ? [e.configMapRef.name] : [])),
  );
  return [...fromVolumes, ...fromEnv];
}

export interface NetworkingChanges {
  /** What to create, ConfigMaps before the DaemonSets that use them. */
  create: Manifest[];
  /** What exists and is kept, with why it counts ("same name", "it runs … on Windows nodes"). */
  reused: string[];
}

/**
 * What the networking step must create: a DaemonSet that exists (by name or by what it runs) is
 * reused, never duplicated or replaced, and then its ConfigMaps are not ours to add; a ConfigMap
 * that exists by name is kept as it is.
 */
export function networkingChanges(
  desired: readonly Manifest[],
  daemonSets: readonly (DaemonSetFacts & { nodeSelector?: Record<string, string> })[],
  present: (o: Manifest) => boolean,
): NetworkingChanges {
  const reused: string[] = [];
  const createDs: Manifest[] = [];
  for (const ds of desired.filter((o) => o.kind === 'DaemonSet')) {
    const found = existingDaemonSet(ds, daemonSets);
    if (found) reused.push(`DaemonSet ${found.namespace}/${found.name} (${found.why})`);
    else createDs.push(ds);
  }
  const needed = new Set(createDs.flatMap((d) => configMapsUsed(d).map((n) => `${d.metadata.namespace}/${n}`)));
  const createCm: Manifest[] = [];
  for (const cm of desired.filter((o) => o.kind !== 'DaemonSet')) {
    if (!needed.has(`${cm.metadata.namespace}/${cm.metadata.name}`)) continue;
    if (present(cm)) reused.push(`${cm.kind} ${cm.metadata.namespace}/${cm.metadata.name} (same name)`);
    else createCm.push(cm);
  }
  return { create: [...createCm, ...createDs], reused };
}

// ---------------------------------------------------------------------------------------------
// RuntimeClass and the probe pod

const RUNTIME_CLASS_NAMES: Record<number, string> = {
  17763: 'windows-2019',
  20348: 'windows-2022',
  26100: 'windows-2025',
};

/** The RuntimeClass that pins pods to the node's build, tolerating the os=windows taint. */
export function runtimeClassFor(build: number): Manifest | undefined {
  const name = RUNTIME_CLASS_NAMES[build];
  const b = buildByNumber(build);
  if (!name || !b) return undefined;
  return {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name, labels: { ...MANAGED } },
    handler: WINDOWS_RUNTIME_HANDLER,
    scheduling: {
      nodeSelector: { [OS_LABEL]: 'windows', [BUILD_LABEL]: b.label },
      // os=windows (what this join taints with) and os=Windows (WMCO's), as WMCO's docs write it.
      tolerations: [
        { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
        { key: 'os', operator: 'Equal', value: 'Windows', effect: 'NoSchedule' },
      ],
    },
  };
}

export type RuntimeClassView = { handler?: string; scheduling?: { nodeSelector?: Record<string, string> } };
type WantedRuntimeClass = Manifest & { handler: string; scheduling: { nodeSelector: Record<string, string> } };

/** Whether an existing RuntimeClass is the one we would make (same handler and build selector). */
export function runtimeClassMatches(existing: RuntimeClassView | undefined, wanted: Manifest): boolean {
  const w = wanted as WantedRuntimeClass;
  return (
    existing?.handler === w.handler &&
    existing.scheduling?.nodeSelector?.[BUILD_LABEL] === w.scheduling.nodeSelector[BUILD_LABEL]
  );
}

/** How an existing RuntimeClass of that name differs from ours, in words. */
export function runtimeClassDifference(existing: RuntimeClassView, wanted: Manifest): string {
  const w = wanted as WantedRuntimeClass;
  const build = existing.scheduling?.nodeSelector?.[BUILD_LABEL] ?? 'no build';
  return `RuntimeClass ${w.metadata.name}: it selects ${build === 'no build' ? 'no build' : `build ${build}`} with handler ${existing.handler ?? '(none)'}, not ${w.scheduling.nodeSelector[BUILD_LABEL]} with ${w.handler}`;
}

/** nanoserver's tag for a build (nanoserver has no ltsc2019 tag: 1809). */
const NANOSERVER_TAG: Record<number, string> = { 17763: '1809', 20348: 'ltsc2022', 26100: 'ltsc2025' };

const PROBE_NAMESPACE = 'default';
const probePodName = (nodeName: string): string => `kube-windows-probe-${nodeName}`.slice(0, 63).replace(/-+$/, '');

/** A pod pinned to the node that prints ok and exits: the node runs Windows containers. */
export function probePod(nodeName: string, build: number): Manifest {
  const tag = NANOSERVER_TAG[build] ?? 'ltsc2022';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: probePodName(nodeName),
      namespace: PROBE_NAMESPACE,
      labels: { ...MANAGED, 'app.kubernetes.io/name': 'kube-windows-probe' },
    },
    spec: {
      os: { name: 'windows' },
      nodeName,
      restartPolicy: 'Never',
      nodeSelector: { [OS_LABEL]: 'windows' },
      tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }],
      containers: [
        {
          name: 'probe',
          image: `mcr.microsoft.com/windows/nanoserver:${tag}`,
          command: ['cmd', '/c', 'echo ok'],
          resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '250m', memory: '128Mi' } },
        },
      ],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What the waits say

/** The parts of a pod the waits read (as the API returns it). */
export interface PodView {
  metadata: { name: string; namespace?: string; ownerReferences?: { kind: string; name: string }[] };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    containerStatuses?: {
      name: string;
      ready?: boolean;
      restartCount?: number;
      state?: {
        waiting?: { reason?: string; message?: string };
        terminated?: { reason?: string; exitCode?: number; message?: string };
      };
      lastState?: { terminated?: { reason?: string; exitCode?: number; message?: string } };
    }[];
  };
}

/** Why a pod is not running: the first container that waits or ended, with its reason and message. */
function notRunningReason(pod: PodView): string {
  for (const c of pod.status?.containerStatuses ?? []) {
    const w = c.state?.waiting;
    if (w?.reason && w.reason !== 'ContainerCreating' && w.reason !== 'PodInitializing') {
      const last = c.lastState?.terminated;
      const why =
        last?.message?.trim() ||
        (last ? `exit code ${last.exitCode ?? '?'}${last.reason ? ` (${last.reason})` : ''}` : w.message?.trim());
      return `${w.reason}${why ? `: ${c.name}: ${why}` : ` (${c.name})`}`;
    }
    const t = c.state?.terminated;
    if (t && pod.status?.phase !== 'Succeeded')
      return `${t.reason ?? 'Terminated'}: ${c.name} exited with ${t.exitCode ?? '?'}${t.message ? `: ${t.message.trim()}` : ''}`;
  }
  const phase = pod.status?.phase ?? 'Pending';
  const first = pod.status?.containerStatuses?.find((c) => c.state?.waiting?.reason)?.state?.waiting?.reason;
  return `${phase}${pod.status?.reason ? ` (${pod.status.reason}${pod.status.message ? `: ${pod.status.message}` : ''})` : first ? ` (${first})` : ''}`;
}

/**
 * Where a DaemonSet's pod on a node stands: true when it is Running with every container ready,
 * else what to say ("calico-node-windows on win-1 is in CrashLoopBackOff: felix: …").
 */
export function daemonSetPodState(daemonSet: string, nodeName: string, pods: readonly PodView[]): true | string {
  const pod = pods.find((p) =>
    (p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' && o.name === daemonSet),
  );
  if (!pod)
    return `${daemonSet} has no pod on ${nodeName} yet (does the node match its nodeSelector and tolerate its taints?)`;
  const statuses = pod.status?.containerStatuses ?? [];
  if (pod.status?.phase === 'Running' && statuses.length > 0 && statuses.every((c) => c.ready)) return true;
  const why = notRunningReason(pod);
  return `${daemonSet} on ${nodeName} is ${/^(Pending|Running|Failed|Unknown)\b/.test(why) ? why : `in ${why}`}`;
}

/** The probe pod: succeeded, failed (why), or still waiting (why). */
export function probeState(
  pod: PodView | undefined,
  nodeName: string,
): { done: true } | { failed: string } | { waiting: string } {
  if (!pod) return { waiting: `the probe pod on ${nodeName} is not there yet` };
  if (pod.status?.phase === 'Succeeded') return { done: true };
  const why = notRunningReason(pod);
  if (pod.status?.phase === 'Failed') return { failed: `the probe pod on ${nodeName} failed: ${why}` };
  return { waiting: `the probe pod on ${nodeName} is ${/^(Pending|Running)\b/.test(why) ? why : `in ${why}`}` };
}
