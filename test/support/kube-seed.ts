// Realistic, recorded-style Kubernetes objects for the API emulator: Windows nodes as WMCO and the kubelet
// label, annotate and taint them (WMCO pkg/nodeconfig/nodeconfig.go, pkg/metadata/metadata.go; builds: hcsshim osversion/windowsbuilds.go), RHCOS Linux nodes,
// pods, namespaces, WMCO's CSV/Subscription, the windows-instances ConfigMap, IDMS and RuntimeClasses.
import { createHash, X509Certificate } from 'node:crypto';
import type { KubeObject } from './kube-emulator/types';

export type WindowsBuild = '10.0.17763' | '10.0.20348' | '10.0.26100';

export const WMCO_NAMESPACE = 'openshift-windows-machine-config-operator';
export const DEFAULT_WMCO_VERSION = '10.18.0-8d3a4b1';
const WMCO_PREFIX = 'windowsmachineconfig.openshift.io';

const OS_IMAGE: Record<WindowsBuild, string> = {
  '10.0.17763': 'Windows Server 2019 Datacenter',
  '10.0.20348': 'Windows Server 2022 Datacenter',
  '10.0.26100': 'Windows Server 2025 Datacenter',
};
/** Build.UBR as the kubelet reports it in nodeInfo.kernelVersion. */
const KERNEL: Record<WindowsBuild, string> = {
  '10.0.17763': '10.0.17763.6532',
  '10.0.20348': '10.0.20348.2849',
  '10.0.26100': '10.0.26100.2314',
};
const CREATED = '2026-10-02T08:14:51Z';

function hash(s: string, n = 64): string {
  return createHash('sha256').update(s).digest('hex').slice(0, n);
}

function uuidFrom(s: string): string {
  const h = hash(s, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function conditions(ready: boolean, kubeletMsg: string): Record<string, unknown>[] {
  const t = '2026-11-20T07:55:12Z';
  const c = (type: string, status: string, reason: string, message: string): Record<string, unknown> => ({
    type,
    status,
    lastHeartbeatTime: '2026-11-21T08:58:40Z',
    lastTransitionTime: t,
    reason,
    message,
  });
  return [
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    ready
      ? c('Ready', 'True', 'KubeletReady', kubeletMsg)
      : c('Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'),
  ];
}

function schedulingTaints(ready: boolean, cordoned: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (cordoned)
    out.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: '2026-11-21T08:30:02Z' });
  if (!ready) {
    out.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: '2026-11-21T08:41:10Z' });
    out.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-11-21T08:41:15Z' });
  }
  return out;
}

export interface WindowsNodeOptions {
  build: WindowsBuild;
  /** Bring-your-own-host instance (windows-instances ConfigMap) rather than a Machine. */
  byoh?: boolean;
  ready?: boolean;
  /** The version annotation WICD sets once the node is configured. Give only desiredVersion for a node still being configured (no version annotation yet), both for an upgrade in progress. */
  wmcoVersion?: string;
  desiredVersion?: string;
  address?: string;
  cordoned?: boolean;
  upgrading?: boolean;
  /** Omit WMCO's annotations entirely (a node WMCO never configured). */
  unmanaged?: boolean;
}

export function windowsNode(name: string, opts: WindowsNodeOptions): KubeObject {
  const ready = opts.ready ?? true;
  const cordoned = opts.cordoned ?? false;
  const address =
    opts.address ??
    `10.0.${128 + (parseInt(hash(name, 2), 16) % 64)}.${10 + (parseInt(hash(name + 'ip', 2), 16) % 200)}`;
  const version = opts.wmcoVersion ?? DEFAULT_WMCO_VERSION;
  const desired = opts.desiredVersion ?? version;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'windows',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'windows',
    'node-role.kubernetes.io/worker': '',
    'node.kubernetes.io/windows-build': opts.build,
    'node.openshift.io/os_id': 'Windows',
  };
  if (opts.byoh) labels[`${WMCO_PREFIX}/byoh`] = 'true';
  else {
    Object.assign(labels, {
      'beta.kubernetes.io/instance-type': 'm5a.large',
      'node.kubernetes.io/instance-type': 'm5a.large',
      'failure-domain.beta.kubernetes.io/region': 'us-east-2',
      'failure-domain.beta.kubernetes.io/zone': 'us-east-2a',
      'topology.kubernetes.io/region': 'us-east-2',
      'topology.kubernetes.io/zone': 'us-east-2a',
    });
  }
  if (opts.upgrading) labels[`${WMCO_PREFIX}/upgrading`] = 'true';
  const annotations: Record<string, string> = {
    'node.alpha.kubernetes.io/ttl': '0',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    'k8s.ovn.org/hybrid-overlay-node-subnet': `10.132.${parseInt(hash(name, 2), 16) % 250}.0/24`,
    'k8s.ovn.org/hybrid-overlay-distributed-router-gateway-mac': `00-15-5d-${hash(name + 'mac', 6)
      .match(/../g)!
      .join('-')}`,
  };
  if (!opts.unmanaged) {
    annotations[`${WMCO_PREFIX}/pub-key-hash`] = hash('ssh-rsa AAAAB3NzaC1yc2E cloud-private-key');
    annotations[`${WMCO_PREFIX}/username`] =
      `wy0EBwMIbc6kxrNAnxrg0kEBP9xJ3JtY4Lf0N1Z${hash(name, 16)}<wmcoMarker>=${hash(name + 'u', 4)}`;
    annotations[`${WMCO_PREFIX}/desired-version`] = desired;
    if (opts.wmcoVersion !== undefined || opts.desiredVersion === undefined)
      annotations[`${WMCO_PREFIX}/version`] = version;
    annotations[`${WMCO_PREFIX}/ssh-host-key`] = `AAAAC3NzaC1lZDI1NTE5AAAAI${Buffer.from(hash(name + 'hk', 32), 'hex')
      .toString('base64')
      .slice(0, 42)}`;
    annotations[`${WMCO_PREFIX}/ssh-host-key-type`] = 'ssh-ed25519';
  }
  if (!opts.byoh) annotations['machine.openshift.io/machine'] = `openshift-machine-api/${name}`;
  const build = opts.build;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: uuidFrom(name), creationTimestamp: CREATED, labels, annotations },
    spec: {
      ...(opts.byoh ? {} : { providerID: `aws:///us-east-2a/i-0${hash(name, 16)}` }),
      ...(cordoned ? { unschedulable: true } : {}),
      taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }, ...schedulingTaints(ready, cordoned)],
    },
    status: {
      addresses: [
        { type: 'InternalIP', address },
        { type: 'Hostname', address: name },
      ],
      allocatable: { cpu: '1500m', 'ephemeral-storage': '115586257208', memory: '7069248Ki', pods: '250' },
      capacity: { cpu: '2', 'ephemeral-storage': '125418156Ki', memory: '8273472Ki', pods: '250' },
      conditions: conditions(ready, 'kubelet is posting ready status'),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: 'containerd://1.7.22',
        kernelVersion: KERNEL[build],
        kubeProxyVersion: 'v1.31.3-dirty',
        kubeletVersion: 'v1.31.3-dirty',
        machineID: name.toUpperCase().slice(0, 15),
        operatingSystem: 'windows',
        osImage: OS_IMAGE[build],
        systemUUID: uuidFrom(name + 'sys').toUpperCase(),
      },
    },
  };
}

export interface LinuxNodeOptions {
  role?: 'master' | 'worker';
  ready?: boolean;
  address?: string;
  cordoned?: boolean;
}

export function linuxNode(name: string, opts: LinuxNodeOptions = {}): KubeObject {
  const role = opts.role ?? 'worker';
  const ready = opts.ready ?? true;
  const cordoned = opts.cordoned ?? false;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/instance-type': role === 'master' ? 'm6i.xlarge' : 'm6i.large',
    'beta.kubernetes.io/os': 'linux',
    'failure-domain.beta.kubernetes.io/region': 'us-east-2',
    'failure-domain.beta.kubernetes.io/zone': 'us-east-2a',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': role === 'master' ? 'm6i.xlarge' : 'm6i.large',
    'node.openshift.io/os_id': 'rhcos',
    'topology.ebs.csi.aws.com/zone': 'us-east-2a',
    'topology.kubernetes.io/region': 'us-east-2',
    'topology.kubernetes.io/zone': 'us-east-2a',
    ...(role === 'master'
      ? { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/master': '' }
      : { 'node-role.kubernetes.io/worker': '' }),
  };
  const pool = role === 'master' ? 'master' : 'worker';
  const annotations: Record<string, string> = {
    'cloud.network.openshift.io/egress-ipconfig':
      '[{"interface":"eni-0a1b2c3d","ifaddr":{"ipv4":"10.0.0.0/19"},"capacity":{"ipv4":14,"ipv6":15}}]',
    'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"i-0${hash(name, 16)}"}`,
    'k8s.ovn.org/host-cidrs': '["10.0.12.34/19"]',
    'k8s.ovn.org/node-subnets': `{"default":["10.129.${parseInt(hash(name, 2), 16) % 250}.0/23"]}`,
    'machine.openshift.io/machine': `openshift-machine-api/${name}`,
    'machineconfiguration.openshift.io/controlPlaneTopology': 'HighlyAvailable',
    'machineconfiguration.openshift.io/currentConfig': `rendered-${pool}-${hash(pool, 32)}`,
    'machineconfiguration.openshift.io/desiredConfig': `rendered-${pool}-${hash(pool, 32)}`,
    'machineconfiguration.openshift.io/reason': '',
    'machineconfiguration.openshift.io/state': 'Done',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
  };
  const address =
    opts.address ?? `10.0.${parseInt(hash(name, 2), 16) % 32}.${10 + (parseInt(hash(name + 'ip', 2), 16) % 200)}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: uuidFrom(name), creationTimestamp: '2026-10-02T07:31:08Z', labels, annotations },
    spec: {
      providerID: `aws:///us-east-2a/i-0${hash(name, 16)}`,
      ...(cordoned ? { unschedulable: true } : {}),
      ...(role === 'master' || cordoned || !ready
        ? {
            taints: [
              ...(role === 'master' ? [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }] : []),
              ...schedulingTaints(ready, cordoned),
            ],
          }
        : {}),
    },
    status: {
      addresses: [
        { type: 'InternalIP', address },
        { type: 'Hostname', address: `ip-${address.replace(/\./g, '-')}.us-east-2.compute.internal` },
        { type: 'InternalDNS', address: `ip-${address.replace(/\./g, '-')}.us-east-2.compute.internal` },
      ],
      allocatable: {
        cpu: role === 'master' ? '3500m' : '1500m',
        'ephemeral-storage': '114396791822',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: role === 'master' ? '15173936Ki' : '6832464Ki',
        pods: '250',
      },
      capacity: {
        cpu: role === 'master' ? '4' : '2',
        'ephemeral-storage': '125238252Ki',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: role === 'master' ? '16324912Ki' : '7983440Ki',
        pods: '250',
      },
      conditions: conditions(ready, 'kubelet is posting ready status'),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: uuidFrom(name + 'boot'),
        containerRuntimeVersion: 'cri-o://1.31.3-3.rhaos4.18.gitf1e8c1a.el9',
        kernelVersion: '5.14.0-427.44.1.el9_4.x86_64',
        kubeProxyVersion: 'v1.31.3',
        kubeletVersion: 'v1.31.3',
        machineID: hash(name + 'mid', 32),
        operatingSystem: 'linux',
        osImage: 'Red Hat Enterprise Linux CoreOS 418.94.202411191254-0',
        systemUUID: uuidFrom(name + 'sys'),
      },
    },
  };
}

export interface PodOptions {
  windows?: boolean;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  image?: string;
  labels?: Record<string, string>;
  runtimeClassName?: string;
}

export function pod(name: string, namespace: string, nodeName: string | undefined, opts: PodOptions = {}): KubeObject {
  const windows = opts.windows ?? false;
  const phase = opts.phase ?? (nodeName ? 'Running' : 'Pending');
  const image =
    opts.image ??
    (windows ? 'mcr.microsoft.com/windows/servercore:ltsc2022' : 'registry.access.redhat.com/ubi9/ubi-minimal:9.4');
  const appLabel = name.replace(/-[a-z0-9]{5}$/, '');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: uuidFrom(namespace + '/' + name),
      creationTimestamp: '2026-11-20T10:02:33Z',
      labels: { app: appLabel, ...opts.labels },
    },
    spec: {
      containers: [{ name: appLabel, image, imagePullPolicy: 'IfNotPresent', resources: {} }],
      ...(nodeName ? { nodeName } : {}),
      ...(windows
        ? {
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
            ...(opts.runtimeClassName ? { runtimeClassName: opts.runtimeClassName } : {}),
            securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } },
          }
        : { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } }),
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
    },
    status: {
      phase,
      ...(nodeName && phase === 'Running'
        ? {
            hostIP: windows ? '10.0.130.21' : '10.0.12.34',
            podIP: windows ? '10.132.1.14' : '10.129.2.17',
            startTime: '2026-11-20T10:02:35Z',
          }
        : {}),
      qosClass: 'BestEffort',
    },
  };
}

export function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      uid: uuidFrom('ns/' + name),
      creationTimestamp: '2026-10-02T07:20:11Z',
      labels: { 'kubernetes.io/metadata.name': name, ...labels },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

/** WMCO's ClusterServiceVersion as OLM installs it in the operator namespace. */
export function wmcoCsv(
  phase: 'Pending' | 'InstallReady' | 'Installing' | 'Succeeded' | 'Failed' = 'Succeeded',
  version = '10.18.0',
): KubeObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: `windows-machine-config-operator.v${version}`,
      namespace: WMCO_NAMESPACE,
      labels: { 'olm.managed': 'true', [`operators.coreos.com/windows-machine-config-operator.${WMCO_NAMESPACE}`]: '' },
      annotations: {
        'olm.operatorNamespace': WMCO_NAMESPACE,
        'olm.targetNamespaces': WMCO_NAMESPACE,
        'operatorframework.io/suggested-namespace': WMCO_NAMESPACE,
      },
    },
    spec: {
      displayName: 'Windows Machine Config Operator',
      version,
      ...(/\.0$/.test(version)
        ? {}
        : {
            replaces: `windows-machine-config-operator.v${version.replace(/\.(\d+)$/, (_m, z: string) => `.${Number(z) - 1}`)}`,
          }),
      install: { strategy: 'deployment', spec: { deployments: [{ name: 'windows-machine-config-operator' }] } },
    },
    status: {
      phase,
      reason: phase === 'Succeeded' ? 'InstallSucceeded' : phase === 'Failed' ? 'InstallCheckFailed' : 'InstallWaiting',
      message:
        phase === 'Succeeded'
          ? 'install strategy completed with no errors'
          : 'installing: waiting for deployment windows-machine-config-operator to become ready',
    },
  };
}

export function wmcoSubscription(
  channel = 'stable',
  startingCsv = 'windows-machine-config-operator.v10.18.0',
): KubeObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: {
      name: 'windows-machine-config-operator',
      namespace: WMCO_NAMESPACE,
      labels: { [`operators.coreos.com/windows-machine-config-operator.${WMCO_NAMESPACE}`]: '' },
    },
    spec: {
      channel,
      installPlanApproval: 'Automatic',
      name: 'windows-machine-config-operator',
      source: 'redhat-operators',
      sourceNamespace: 'openshift-marketplace',
      startingCSV: startingCsv,
    },
    status: { currentCSV: startingCsv, installedCSV: startingCsv, state: 'AtLatestKnown' },
  };
}

/** The BYOH `windows-instances` ConfigMap: address → username. */
export function windowsInstancesConfigMap(entries: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'windows-instances', namespace: WMCO_NAMESPACE },
    data: Object.fromEntries(Object.entries(entries).map(([addr, user]) => [addr, `username=${user}`])),
  };
}

export function idms(
  name: string,
  mirrors: { source: string; mirrors: string[]; mirrorSourcePolicy?: 'AllowContactingSource' | 'NeverContactSource' }[],
): KubeObject {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ImageDigestMirrorSet',
    metadata: { name, generation: 1 },
    spec: { imageDigestMirrors: mirrors },
  };
}

export function itms(
  name: string,
  mirrors: { source: string; mirrors: string[]; mirrorSourcePolicy?: 'AllowContactingSource' | 'NeverContactSource' }[],
): KubeObject {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ImageTagMirrorSet',
    metadata: { name, generation: 1 },
    spec: { imageTagMirrors: mirrors },
  };
}

/** A RuntimeClass as in WMCO's docs/windows-workloads.md: handler runhcs-wcow-process, pinned to one build. */
export function runtimeClass(name: string, build: WindowsBuild, handler = 'runhcs-wcow-process'): KubeObject {
  return {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name },
    handler,
    scheduling: {
      nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': build },
      tolerations: [
        { effect: 'NoSchedule', key: 'os', operator: 'Equal', value: 'windows' },
        { effect: 'NoSchedule', key: 'os', operator: 'Equal', value: 'Windows' },
      ],
    },
  };
}

/**
 * A small mixed OpenShift cluster: 3 Linux nodes (1 control plane, 2 workers), 3 Windows nodes (a 2019 and a
 * 2022 Machine node, a joined 2022 BYOH node), WMCO with its namespace, Subscription and CSV, a windows-instances
 * ConfigMap with one BYOH instance not yet joined (10.0.140.25), an IDMS, RuntimeClasses and some pods.
 */
export function mixedCluster(): KubeObject[] {
  return [
    namespace('default'),
    namespace('kube-system'),
    namespace('openshift-marketplace'),
    namespace(WMCO_NAMESPACE, { 'openshift.io/cluster-monitoring': 'true' }),
    namespace('win-apps', { 'pod-security.kubernetes.io/enforce': 'privileged' }),
    linuxNode('ip-10-0-12-34.us-east-2.compute.internal', { role: 'master', address: '10.0.12.34' }),
    linuxNode('ip-10-0-21-7.us-east-2.compute.internal', { address: '10.0.21.7' }),
    linuxNode('ip-10-0-22-88.us-east-2.compute.internal', { address: '10.0.22.88' }),
    windowsNode('winworker-2019-a', { build: '10.0.17763', address: '10.0.130.21' }),
    windowsNode('winworker-2022-b', { build: '10.0.20348', address: '10.0.131.44' }),
    windowsNode('byoh-win2022-1', { build: '10.0.20348', byoh: true, address: '10.0.140.12' }),
    windowsInstancesConfigMap({ '10.0.140.12': 'Administrator', '10.0.140.25': 'Administrator' }),
    wmcoSubscription(),
    wmcoCsv('Succeeded', '10.18.0'),
    idms('windows-mirrors', [
      { source: 'mcr.microsoft.com/windows/servercore', mirrors: ['mirror.example.internal:5000/windows/servercore'] },
    ]),
    runtimeClass('windows2019', '10.0.17763'),
    runtimeClass('windows2022', '10.0.20348'),
    pod('windows-machine-config-operator-6d9f8b7c5-x2k4p', WMCO_NAMESPACE, 'ip-10-0-12-34.us-east-2.compute.internal', {
      image:
        'registry.redhat.io/openshift4-wincw/windows-machine-config-rhel9-operator@sha256:3c6a5f9b0e1d2c4a7b8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c',
      labels: { name: 'windows-machine-config-operator' },
    }),
    pod('iis-7c9d5f8b6-abcde', 'win-apps', 'winworker-2022-b', { windows: true, runtimeClassName: 'windows2022' }),
    pod('iis-7c9d5f8b6-fghij', 'win-apps', 'byoh-win2022-1', { windows: true, runtimeClassName: 'windows2022' }),
    pod('legacy-app-5b8c7d9f4-klmno', 'win-apps', 'winworker-2019-a', {
      windows: true,
      image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
      runtimeClassName: 'windows2019',
    }),
    pod('frontend-6f7d8c9b5-pqrst', 'win-apps', 'ip-10-0-21-7.us-east-2.compute.internal'),
    pod('iis-7c9d5f8b6-uvwxy', 'win-apps', undefined, { windows: true, runtimeClassName: 'windows2022' }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Cluster-wide configuration the join engine reads.

export interface OpenShiftClusterConfigOptions {
  /** OVN-Kubernetes hybrid overlay configured (WMCO refuses to start without it: pkg/cluster/config.go ovnKubernetes.Validate). */
  hybridOverlay?: boolean;
  /** Cluster network CIDRs (config Network spec.clusterNetwork). Default ['10.128.0.0/14']. */
  clusterNetwork?: string[];
  serviceNetwork?: string[];
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** Infrastructure status.apiServerInternalURL. */
  apiServerInternalURL?: string;
  /** OpenShift version in ClusterVersion. Default 4.18.3. */
  version?: string;
  /** Custom hybridOverlayVXLANPort, when set. */
  vxlanPort?: number;
}

/**
 * The cluster-scoped config objects of an OpenShift cluster on platform None (BYOH): config and operator
 * Network, Infrastructure, Proxy and ClusterVersion, as `oc get -o yaml` shows them.
 */
export function openshiftClusterConfig(opts: OpenShiftClusterConfigOptions = {}): KubeObject[] {
  const clusterNetwork = (opts.clusterNetwork ?? ['10.128.0.0/14']).map((cidr) => ({ cidr, hostPrefix: 23 }));
  const serviceNetwork = opts.serviceNetwork ?? ['172.30.0.0/16'];
  const internal = opts.apiServerInternalURL ?? 'https://api-int.test.example.com:6443';
  const domain = new URL(internal).hostname.replace(/^api-int\./, '');
  const version = opts.version ?? '4.18.3';
  const meta = (name: string): KubeObject['metadata'] => ({
    name,
    uid: uuidFrom('cfg/' + name),
    creationTimestamp: '2026-10-02T07:12:40Z',
    generation: 2,
  });
  const ovn: Record<string, unknown> = {
    genevePort: 6081,
    mtu: 1400,
    policyAuditConfig: { destination: 'null', maxFileSize: 50, rateLimit: 20, syslogFacility: 'local0' },
  };
  if (opts.hybridOverlay) {
    ovn.hybridOverlayConfig = {
      hybridClusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }],
      ...(opts.vxlanPort ? { hybridOverlayVXLANPort: opts.vxlanPort } : {}),
    };
  }
  const userNoProxy = opts.proxy?.noProxy ? opts.proxy.noProxy.split(',') : [];
  // The proxy controller adds the cluster's own networks and API names to the user's noProxy.
  const statusNoProxy = opts.proxy
    ? [
        ...new Set([
          '.cluster.local',
          '.svc',
          ...clusterNetwork.map((c) => c.cidr),
          '127.0.0.1',
          ...serviceNetwork,
          `api-int.${domain}`,
          'localhost',
          ...userNoProxy,
        ]),
      ]
        .sort()
        .join(',')
    : '';
  return [
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Network',
      metadata: meta('cluster'),
      spec: { clusterNetwork, externalIP: { policy: {} }, networkType: 'OVNKubernetes', serviceNetwork },
      status: { clusterNetwork, clusterNetworkMTU: 1400, networkType: 'OVNKubernetes', serviceNetwork },
    },
    {
      apiVersion: 'operator.openshift.io/v1',
      kind: 'Network',
      metadata: meta('cluster'),
      spec: {
        clusterNetwork,
        serviceNetwork,
        defaultNetwork: { type: 'OVNKubernetes', ovnKubernetesConfig: ovn },
        managementState: 'Managed',
        logLevel: 'Normal',
        operatorLogLevel: 'Normal',
      },
      status: { readyReplicas: 0, version },
    },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Infrastructure',
      metadata: meta('cluster'),
      spec: { cloudConfig: { name: '' }, platformSpec: { type: 'None' } },
      status: {
        apiServerInternalURI: internal,
        apiServerInternalURL: internal,
        apiServerURL: internal.replace('api-int.', 'api.'),
        controlPlaneTopology: 'HighlyAvailable',
        cpuPartitioning: 'None',
        etcdDiscoveryDomain: '',
        infrastructureName: 'test-x7k2p',
        infrastructureTopology: 'HighlyAvailable',
        platform: 'None',
        platformStatus: { type: 'None' },
      },
    },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Proxy',
      metadata: meta('cluster'),
      spec: { trustedCA: { name: '' }, ...(opts.proxy ?? {}) },
      status: opts.proxy
        ? { httpProxy: opts.proxy.httpProxy ?? '', httpsProxy: opts.proxy.httpsProxy ?? '', noProxy: statusNoProxy }
        : {},
    },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: meta('version'),
      spec: { channel: `stable-${version.split('.').slice(0, 2).join('.')}`, clusterID: uuidFrom('cluster-id') },
      status: {
        availableUpdates: null,
        desired: { version, image: `quay.io/openshift-release-dev/ocp-release@sha256:${hash('release' + version)}` },
        history: [
          {
            state: 'Completed',
            version,
            startedTime: '2026-10-02T07:10:00Z',
            completionTime: '2026-10-02T07:52:31Z',
            verified: false,
            image: `quay.io/openshift-release-dev/ocp-release@sha256:${hash('release' + version)}`,
          },
        ],
        conditions: [
          {
            type: 'Available',
            status: 'True',
            lastTransitionTime: '2026-10-02T07:52:31Z',
            message: `Done applying ${version}`,
          },
          {
            type: 'Progressing',
            status: 'False',
            lastTransitionTime: '2026-10-02T07:52:31Z',
            message: `Cluster version is ${version}`,
          },
        ],
      },
    },
  ];
}

/** `sha256:<hex>` of a CA certificate's SubjectPublicKeyInfo: kubeadm's --discovery-token-ca-cert-hash. */
export function caCertHash(caPem: string): string {
  const spki = new X509Certificate(caPem).publicKey.export({ type: 'spki', format: 'der' });
  return 'sha256:' + createHash('sha256').update(spki).digest('hex');
}

export interface KubeadmClusterOptions {
  /** The API server URL, as kubeadm init writes it into cluster-info. */
  server: string;
  caPem: string;
  /** Bootstrap token `<id>.<secret>`; default abcdef.0123456789abcdef. */
  token?: string;
  kubernetesVersion?: string;
}

/** The kubeconfig text `kubeadm init` publishes in kube-public/cluster-info: the server and its CA, no user. */
export function clusterInfoKubeconfig(server: string, caPem: string | Buffer): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

/**
 * What `kubeadm init` leaves for joining nodes: kube-public/cluster-info (a kubeconfig with the CA and
 * server, plus a JWS signature per bootstrap token), the bootstrap-token Secret, kubeadm-config.
 */
export function kubeadmCluster(opts: KubeadmClusterOptions): KubeObject[] {
  const token = opts.token ?? 'abcdef.0123456789abcdef';
  const [id, secret] = token.split('.') as [string, string];
  const kubeconfig = clusterInfoKubeconfig(opts.server, opts.caPem);
  const version = opts.kubernetesVersion ?? 'v1.31.3';
  return [
    namespace('kube-public'),
    namespace('kube-system'),
    namespace('default'),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cluster-info', namespace: 'kube-public' },
      // A detached JWS (header..signature) over the kubeconfig, keyed by token id; a stand-in value.
      data: {
        kubeconfig,
        [`jws-kubeconfig-${id}`]: `eyJhbGciOiJIUzI1NiIsImtpZCI6IiR7aWR9In0..${Buffer.from(hash(kubeconfig + secret), 'hex').toString('base64url')}`,
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      data: Object.fromEntries(
        Object.entries({
          'token-id': id,
          'token-secret': secret,
          'usage-bootstrap-authentication': 'true',
          'usage-bootstrap-signing': 'true',
          'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
          expiration: '2026-11-22T09:00:00Z',
        }).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kubeadm-config', namespace: 'kube-system' },
      data: {
        ClusterConfiguration: [
          'apiVersion: kubeadm.k8s.io/v1beta4',
          'kind: ClusterConfiguration',
          `kubernetesVersion: ${version}`,
          `controlPlaneEndpoint: ${new URL(opts.server).host}`,
          'networking:',
          '  dnsDomain: cluster.local',
          '  podSubnet: 10.244.0.0/16',
          '  serviceSubnet: 10.96.0.0/12',
          '',
        ].join('\n'),
      },
    },
  ];
}

/**
 * The namespaces and nodes of the emulated large cluster the benchmarks use: `team-N` namespaces,
 * Linux nodes named as on AWS (the first three masters) and Windows nodes `winworker-NNNN` whose
 * builds cycle through `builds` (every tenth a BYOH instance when `byoh` is set).
 */
export function largeCluster(opts: {
  namespaces: number;
  linux: number;
  windows: number;
  builds: WindowsBuild[];
  byoh?: boolean;
}): {
  objects: KubeObject[];
  linuxNames: string[];
  windowsNames: string[];
} {
  const objects: KubeObject[] = [];
  const linuxNames: string[] = [];
  const windowsNames: string[] = [];
  for (let i = 0; i < opts.namespaces; i++) objects.push(namespace(`team-${i}`));
  for (let i = 0; i < opts.linux; i++) {
    const name = `ip-10-${(i >> 8) & 255}-${i & 255}-1.us-east-2.compute.internal`;
    linuxNames.push(name);
    objects.push(linuxNode(name, { role: i < 3 ? 'master' : 'worker' }));
  }
  for (let i = 0; i < opts.windows; i++) {
    const name = `winworker-${String(i).padStart(4, '0')}`;
    windowsNames.push(name);
    objects.push(
      windowsNode(name, { build: opts.builds[i % opts.builds.length], byoh: opts.byoh === true && i % 10 === 9 }),
    );
  }
  return { objects, linuxNames, windowsNames };
}
