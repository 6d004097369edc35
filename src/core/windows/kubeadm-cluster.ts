// The cluster half of the kubeadm join's preflight, pure: what src/cluster/networking.ts read (the
// API server's /version, the control-plane nodes, the CNI's operator Installation, DaemonSets and
// ConfigMaps) goes in, findings and the decisions the later steps need (which CNI, which Kubernetes
// version) come out. Each refusal says exactly what to change. Sources are named beside each rule.

import { CALICO_NAMESPACES, CONTROL_PLANE_LABEL, FLANNEL_CONFIGMAP, FLANNEL_NAMESPACES, OS_LABEL } from '../well-known';
import { load } from 'js-yaml';
import { buildByNumber } from './builds';
import { ok, type Finding } from './findings';
import { kubeProxyGatesFinding } from './kube-proxy-gates';

// ---------------------------------------------------------------------------------------------
// Versions

export interface KubeVersion {
  major: number;
  minor: number;
  patch: number;
}

/** `v1.31.3`, `1.31.3`, `v1.31.3-dirty`, `v1.31.3+k3s1` → 1.31.3; undefined for anything else. */
export function parseKubeVersion(text: string | undefined): KubeVersion | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.+-]*)?$/.exec((text ?? '').trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : undefined;
}

const show = (v: KubeVersion): string => `v${v.major}.${v.minor}.${v.patch}`;
/** The release a version belongs to: v1.31.3 → v1.31.3 (tags are per patch release). */
export const versionTag = show;

/** What is wrong with a `--kubernetes-version` value (vX.Y.Z exactly), or undefined. */
export function kubernetesVersionProblem(value: string): string | undefined {
  return /^v\d+\.\d+\.\d+$/.test(value)
    ? undefined
    : `takes a release version vX.Y.Z, such as v1.31.3 (got "${JSON.stringify(value).slice(1, -1)}")`;
}

/**
 * The version skew the join must respect, for the kubelet and the kubeadm it installs (both at
 * `target`) against the API server:
 * - kubelet (https://kubernetes.io/releases/version-skew-policy/#kubelet): not newer than
 *   kube-apiserver, at most three minor versions older (two for kubelets before 1.25);
 * - kubeadm (kubeadm "Creating a cluster" → "Version skew policy"): kubeadm drives components of
 *   its own version or one older, so the control plane must not be newer than the kubeadm that
 *   joins; with kubelet ≤ API server that leaves the API server's own minor version.
 */
export function checkVersionSkew(target: string, server: string): Finding[] {
  const t = parseKubeVersion(target);
  const s = parseKubeVersion(server);
  if (!s)
    return [
      {
        id: 'version-skew',
        severity: 'error',
        title: `The API server reports the version "${server}", which is not a Kubernetes release version`,
        fix: 'Check GET /version on the API server.',
      },
    ];
  if (!t)
    return [
      {
        id: 'version-skew',
        severity: 'error',
        title: `"${target}" is not a Kubernetes release version`,
        fix: 'Pass --kubernetes-version vX.Y.Z.',
      },
    ];
  const out: Finding[] = [];
  const sameMajor = t.major === s.major;
  const maxOlder = t.minor < 25 ? 2 : 3;
  if (!sameMajor || t.minor > s.minor || (t.minor === s.minor && t.patch > s.patch)) {
    out.push({
      id: 'kubelet-skew',
      severity: 'error',
      title: `kubelet ${show(t)} would be newer than the API server (${show(s)}): the version skew policy does not allow a kubelet newer than kube-apiserver`,
      fix: `Use kubelet.exe and kubeadm.exe of ${show(s)} (or an older release of v${s.major}.${s.minor}) and pass --kubernetes-version ${show(s)}, or upgrade the control plane first.`,
    });
  } else if (s.minor - t.minor > maxOlder) {
    out.push({
      id: 'kubelet-skew',
      severity: 'error',
      title: `kubelet ${show(t)} is ${s.minor - t.minor} minor versions older than the API server (${show(s)}): the version skew policy allows at most ${maxOlder}`,
      fix: `Use kubelet.exe and kubeadm.exe of ${show(s)} and pass --kubernetes-version ${show(s)}.`,
    });
  } else out.push(ok('kubelet-skew', `kubelet ${show(t)} is within the version skew policy for API server ${show(s)}`));
  if (out[0]?.severity !== 'error' && t.minor !== s.minor) {
    out.push({
      id: 'kubeadm-skew',
      severity: 'error',
      title: `kubeadm ${show(t)} cannot join a v${s.major}.${s.minor} control plane: kubeadm supports components of its own minor version or one older, never newer`,
      fix: `Use kubeadm.exe (and kubelet.exe) of v${s.major}.${s.minor} — ${show(s)}, the API server's version, is the default — and pass --kubernetes-version accordingly.`,
    });
  } else if (out[0]?.severity !== 'error')
    out.push(ok('kubeadm-skew', `kubeadm ${show(t)} matches the control plane's minor version`));
  return out;
}

/** `kubelet --version` prints `Kubernetes v1.31.3`; `kubeadm version -o short` prints `v1.31.3`. */
function reportedVersion(output: string): string | undefined {
  const m = /\bv\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?/.exec(output);
  return m?.[0];
}

/** The payload's binaries report the version the join was planned for; else why not. */
export function binaryVersionProblem(name: string, output: string, target: string): string | undefined {
  const reported = reportedVersion(output);
  const t = parseKubeVersion(target);
  const r = parseKubeVersion(reported);
  if (r && t && r.major === t.major && r.minor === t.minor && r.patch === t.patch) return undefined;
  const what = reported
    ? `reports ${reported}`
    : `does not report a version (${JSON.stringify(output.trim().slice(0, 120))})`;
  return `${name} ${what}, but the join is for ${target} (--kubernetes-version, default: the API server's version): put the ${target} binaries in the payload, or pass the version they are.`;
}

// ---------------------------------------------------------------------------------------------
// containerd and Windows builds

/** containerd's version from a release archive name (containerd-1.7.27-windows-amd64.tar.gz). */
export function containerdVersion(archiveName: string): KubeVersion | undefined {
  const m = /containerd-(\d+)\.(\d+)\.(\d+)/.exec(archiveName);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : undefined;
}

/**
 * HostProcess containers (the networking DaemonSets run as such) need containerd 1.6 or later,
 * and containerd 1.7 is recommended: Kubernetes "Create a Windows HostProcess Pod" (Limitations:
 * "HostProcess containers require containerd 1.6 or higher container runtime, containerd 1.7 is
 * recommended"), and sig-windows-tools hostprocess/README.md ("HostProcess containers require
 * containerd v1.6 or later"). 1.7 also mounts volumes at their own path (the page's "Volume mounts").
 */
export function checkContainerdForHostProcess(archiveName: string): Finding {
  const v = containerdVersion(archiveName);
  if (!v)
    return {
      id: 'containerd-version',
      severity: 'warning',
      title: `The containerd version cannot be read from ${archiveName}`,
      fix: 'Name the archive containerd-<version>-windows-amd64.tar.gz (1.7 or later) so that it can be checked.',
    };
  const text = `${v.major}.${v.minor}.${v.patch}`;
  if (v.major < 1 || (v.major === 1 && v.minor < 6)) {
    return {
      id: 'containerd-version',
      severity: 'error',
      title: `containerd ${text} cannot run HostProcess containers (1.6 or later is required), so kube-proxy and the CNI cannot run on the node`,
      fix: 'Put containerd 1.7 or later (containerd-1.7.<x>-windows-amd64.tar.gz, or 2.x) in the payload.',
    };
  }
  if (v.major === 1 && v.minor === 6) {
    return {
      id: 'containerd-version',
      severity: 'warning',
      title: `containerd ${text} runs HostProcess containers, but 1.7 is the recommended version`,
      fix: 'Prefer containerd 1.7 or later in the payload.',
    };
  }
  return ok('containerd-version', `containerd ${text} runs HostProcess containers`);
}

/**
 * Windows Server releases Kubernetes supports as nodes ("Windows containers in Kubernetes" →
 * Windows OS version compatibility: LTSC releases 2019 and 2022; 2025 listed from Kubernetes 1.32,
 * the first release tested on it — our reading of the page; WMCO documents 2025 too, in its
 * docs/wmco-prerequisites.md).
 */
const BUILD_FROM: Record<number, { minor: number; name: string }> = {
  17763: { minor: 0, name: 'Windows Server 2019' },
  20348: { minor: 23, name: 'Windows Server 2022' },
  26100: { minor: 32, name: 'Windows Server 2025' },
};

export function checkBuildForKubernetes(build: number, target: string): Finding {
  const v = parseKubeVersion(target);
  const need = BUILD_FROM[build];
  const name = buildByNumber(build)?.name ?? `build ${build}`;
  if (!need)
    return {
      id: 'windows-build-kubernetes',
      severity: 'error',
      title: `${name} is not a Windows Server release Kubernetes supports as a node`,
      fix: 'Use Windows Server 2019, 2022 or 2025.',
    };
  if (v && v.major === 1 && v.minor < need.minor) {
    return {
      id: 'windows-build-kubernetes',
      severity: 'error',
      title: `${need.name} is supported from Kubernetes v1.${need.minor}, and this join installs ${target}`,
      fix: `Upgrade the cluster to v1.${need.minor} or later, or use an older Windows Server release.`,
    };
  }
  return ok('windows-build-kubernetes', `${need.name} is supported by Kubernetes ${target}`);
}

// ---------------------------------------------------------------------------------------------
// The cluster: control plane and CNI

export type CniChoice = 'calico' | 'flannel' | 'auto';
export const CNI_CHOICES = ['calico', 'flannel', 'auto'] as const;

export interface DaemonSetFacts {
  namespace: string;
  name: string;
  images: string[];
  /** The pod template's nodeSelector (a Windows DaemonSet selects kubernetes.io/os=windows). */
  nodeSelector?: Record<string, string>;
}

export interface ClusterFacts {
  /** gitVersion of GET /version. */
  serverVersion: string;
  /** Nodes labelled node-role.kubernetes.io/control-plane (none on managed control planes). */
  controlPlane: { name: string; labels: Record<string, string> }[];
  /** operator.tigera.io Installations (the Calico operator), when that API is served. */
  calicoInstallations: { name: string; windowsDataplane?: string; variant?: string }[];
  /** The DaemonSets of the namespaces CNIs install into (kube-system, calico-system, kube-flannel). */
  daemonSets: DaemonSetFacts[];
  /** kube-flannel-cfg's net-conf.json per namespace where the ConfigMap exists. */
  flannelNetConf: { namespace: string; text?: string }[];
  /** kubeadm-config's ClusterConfiguration text, when readable. */
  clusterConfiguration?: string;
  /** The kube-proxy ConfigMap's config.conf (the KubeProxyConfiguration Windows kube-proxy mounts), when readable. */
  kubeProxyConfig?: string;
}

/**
 * kubeadm's service subnet from its ClusterConfiguration (networking.serviceSubnet; kubeadm's default 10.96.0.0/12).
 */
function serviceSubnetOf(clusterConfiguration: string | undefined): string {
  try {
    const doc = load(clusterConfiguration ?? '') as { networking?: { serviceSubnet?: unknown } } | undefined;
    const v = doc?.networking?.serviceSubnet;
    if (typeof v === 'string' && v.trim()) return v.split(',')[0]!.trim();
  } catch {
    // unreadable: kubeadm's default
  }
  return '10.96.0.0/12';
}

/** kubeadm's pod subnet (networking.podSubnet, each of a dual-stack list), or none when it sets none. */
function podSubnetsOf(clusterConfiguration: string | undefined): string[] {
  try {
    const doc = load(clusterConfiguration ?? '') as { networking?: { podSubnet?: unknown } } | undefined;
    const v = doc?.networking?.podSubnet;
    if (typeof v === 'string')
      return v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
  } catch {
    // unreadable: none known
  }
  return [];
}

export interface DetectedCni {
  kind: 'calico' | 'flannel';
  /** How it was found, for the findings ("operator Installation default", "DaemonSet kube-system/calico-node"). */
  via: string;
  /** The namespace the Linux part runs in (where the Windows part goes for manifest installs). */
  namespace: string;
  /** The Calico operator owns the Windows DaemonSet (calico-node-windows) itself. */
  operator?: boolean;
  /** The image tag of the Linux part (v3.28.2, v0.25.6), to pin the Windows part to the same release. */
  version?: string;
  /** The Linux DaemonSet's ServiceAccount-bearing name (calico-node, flannel), when known. */
  daemonSet?: string;
}

const tagOf = (image: string): string | undefined => {
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : undefined;
};

/** The image is Calico's Linux node agent (calico/node, never node-windows). */
const isCalicoNode = (image: string): boolean => /(^|\/)calico\/node(:|@|$)/.test(image);
/**
 * The image is flannel's daemon (flannel/flannel, coreos/flannel, rancher/mirrored-flannelcni-flannel); not the Windows
 * one.
 */
const isFlannel = (image: string): boolean =>
  /(^|\/)(flannel\/flannel|coreos\/flannel|[\w.-]*flannel)(:|@|$)/.test(image) &&
  !/flannel-cni-plugin|hostprocess|windows/.test(image);

/** The CNIs the cluster runs (by what its DaemonSets run, and Calico's operator Installation). */
export function detectCni(f: ClusterFacts): DetectedCni[] {
  const out: DetectedCni[] = [];
  const calicoDs = f.daemonSets.find((d) => CALICO_NAMESPACES.includes(d.namespace) && d.images.some(isCalicoNode));
  const calicoVersion = calicoDs ? tagOf(calicoDs.images.find(isCalicoNode) as string) : undefined;
  const inst = f.calicoInstallations[0];
  if (inst)
    out.push({
      kind: 'calico',
      via: `the Calico operator's Installation ${inst.name}`,
      namespace: 'calico-system',
      operator: true,
      ...(calicoVersion ? { version: calicoVersion } : {}),
    });
  else if (calicoDs)
    out.push({
      kind: 'calico',
      via: `DaemonSet ${calicoDs.namespace}/${calicoDs.name}`,
      namespace: calicoDs.namespace,
      daemonSet: calicoDs.name,
      ...(calicoVersion ? { version: calicoVersion } : {}),
    });
  const flannelDs = f.daemonSets.find((d) => FLANNEL_NAMESPACES.includes(d.namespace) && d.images.some(isFlannel));
  if (flannelDs) {
    const v = tagOf(flannelDs.images.find(isFlannel) as string);
    out.push({
      kind: 'flannel',
      via: `DaemonSet ${flannelDs.namespace}/${flannelDs.name}`,
      namespace: flannelDs.namespace,
      daemonSet: flannelDs.name,
      ...(v ? { version: v } : {}),
    });
  }
  return out;
}

/**
 * Flannel's net-conf.json must use the vxlan backend with VNI 4096 and port 4789 for Windows nodes
 * to interoperate (sig-windows-tools guides/flannel.md, removed in #385 but still what flannel's
 * Windows backend needs; flannel Documentation/backends.md, vxlan: VNI and Port).
 */
export function checkFlannelNetConf(namespace: string, text: string | undefined): Finding {
  const where = `${namespace}/${FLANNEL_CONFIGMAP} net-conf.json`;
  const want = '"Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}';
  if (text === undefined)
    return {
      id: 'flannel-backend',
      severity: 'error',
      title: `${where} is missing, so flannel's backend cannot be checked`,
      fix: `Give ${namespace}/${FLANNEL_CONFIGMAP} a net-conf.json with ${want}.`,
    };
  let conf: { Backend?: { Type?: unknown; VNI?: unknown; Port?: unknown } };
  try {
    conf = JSON.parse(text) as typeof conf;
  } catch {
    return {
      id: 'flannel-backend',
      severity: 'error',
      title: `${where} is not valid JSON`,
      fix: `Correct it; Windows nodes need ${want}.`,
    };
  }
  const b = conf?.Backend ?? {};
  const type = typeof b.Type === 'string' ? b.Type.toLowerCase() : undefined;
  const wrong: string[] = [];
  if (type !== 'vxlan')
    wrong.push(`Type is ${b.Type === undefined ? 'unset' : JSON.stringify(b.Type)} (must be "vxlan")`);
  if (b.VNI !== 4096)
    wrong.push(
      `VNI is ${b.VNI === undefined ? 'unset (flannel defaults to 1)' : JSON.stringify(b.VNI)} (must be 4096)`,
    );
  if (b.Port !== 4789)
    wrong.push(
      `Port is ${b.Port === undefined ? 'unset (flannel defaults to 8472)' : JSON.stringify(b.Port)} (must be 4789)`,
    );
  if (wrong.length === 0) return ok('flannel-backend', `flannel uses vxlan with VNI 4096 and port 4789 (${where})`);
  return {
    id: 'flannel-backend',
    severity: 'error',
    title: `flannel's backend does not work with Windows nodes: ${wrong.join(', ')} in ${where}`,
    fix: `Set ${want} in ${where}, then restart the flannel DaemonSet (kubectl -n ${namespace} rollout restart daemonset) so Linux nodes use it too.`,
  };
}

/**
 * The control plane runs Linux (Windows cannot host it). No control-plane node visible: a managed control plane, fine.
 */
export function checkControlPlane(nodes: ClusterFacts['controlPlane']): Finding {
  if (nodes.length === 0)
    return ok('control-plane', `No node carries ${CONTROL_PLANE_LABEL}: a managed or hidden control plane`);
  const notLinux = nodes.filter((n) => (n.labels[OS_LABEL] ?? 'linux') !== 'linux');
  if (notLinux.length > 0) {
    return {
      id: 'control-plane',
      severity: 'error',
      title: `Control-plane node${notLinux.length > 1 ? 's' : ''} ${notLinux.map((n) => `${n.name} (${n.labels[OS_LABEL]})`).join(', ')} ${notLinux.length > 1 ? 'are' : 'is'} not Linux`,
      fix: 'The Kubernetes control plane runs on Linux only; join Windows nodes to a cluster with a Linux control plane.',
    };
  }
  return ok('control-plane', `The control plane runs Linux (${nodes.map((n) => n.name).join(', ')})`);
}

/**
 * Calico's operator: the Windows dataplane must be HNS for the operator to run calico-node-windows (Calico "Install
 * Calico for Windows using the operator").
 */
function checkCalicoOperator(inst: ClusterFacts['calicoInstallations'][number]): Finding {
  if (inst.windowsDataplane === 'HNS')
    return ok(
      'calico-windows',
      `Calico's Installation ${inst.name} enables the Windows dataplane (HNS); the operator runs calico-node-windows`,
    );
  return {
    id: 'calico-windows',
    severity: 'error',
    title: `Calico's Installation ${inst.name} has spec.calicoNetwork.windowsDataplane ${inst.windowsDataplane ? `"${inst.windowsDataplane}"` : 'unset (Disabled)'}, so the operator runs no Calico on Windows nodes`,
    fix: `kubectl patch installation ${inst.name} --type merge -p '{"spec":{"calicoNetwork":{"windowsDataplane":"HNS"}}}' (and create tigera-operator/kubernetes-services-endpoint with KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT as Calico's Windows guide says).`,
  };
}

/**
 * The releases the Windows parts use when the Linux part's image carries no tag (a digest only):
 * Calico v3.28.2 and flannel v0.25.6, the releases the tests' clusters run. Said as a warning.
 */
export const FALLBACK_CNI_VERSION = { calico: 'v3.28.2', flannel: 'v0.25.6' } as const;

export interface ClusterEvaluation {
  findings: Finding[];
  cni?: DetectedCni;
  /** The Kubernetes version the join installs: --kubernetes-version, else the API server's. */
  kubernetesVersion: string;
  serverVersion: string;
  /** The cluster's service subnet (for the CNI's Windows settings). */
  serviceSubnet: string;
  /** The cluster's pod subnets, when its ClusterConfiguration names them (a node's NO_PROXY keeps them). */
  podSubnets?: string[];
}

export interface ClusterChoices {
  cni: CniChoice;
  /** --kubernetes-version (vX.Y.Z); default: the API server's own version. */
  kubernetesVersion?: string;
  /** The containerd archive the join installs (its name carries the version). */
  containerdArchive: string;
}

/** Everything the cluster part of the preflight decides, from what was read. */
export function evaluateCluster(f: ClusterFacts, c: ClusterChoices): ClusterEvaluation {
  const server = parseKubeVersion(f.serverVersion);
  const kubernetesVersion = c.kubernetesVersion ?? (server ? show(server) : f.serverVersion);
  const findings: Finding[] = [checkControlPlane(f.controlPlane)];
  const found = detectCni(f);
  const wanted = c.cni === 'auto' ? found : found.filter((d) => d.kind === c.cni);
  let cni: DetectedCni | undefined;
  if (found.length === 0) {
    const others = f.daemonSets.filter((d) => !/proxy|dns|csi/i.test(d.name)).map((d) => `${d.namespace}/${d.name}`);
    findings.push({
      id: 'cni',
      severity: 'error',
      title: `No CNI that supports Windows nodes was found${others.length ? ` (DaemonSets: ${others.join(', ')}): this network plugin is not supported for Windows by kube-windows` : ''}`,
      fix: 'Windows nodes need Calico (operator or manifest install) or Flannel with the vxlan backend (VNI 4096, port 4789); install one of them on the cluster first.',
    });
  } else if (wanted.length === 0) {
    findings.push({
      id: 'cni',
      severity: 'error',
      title: `--cni ${c.cni} was asked, but the cluster runs ${found.map((d) => `${d.kind} (${d.via})`).join(', ')}`,
      fix: `Pass --cni ${found[0]?.kind} or --cni auto.`,
    });
  } else if (wanted.length > 1) {
    findings.push({
      id: 'cni',
      severity: 'error',
      title: `The cluster runs both ${wanted.map((d) => `${d.kind} (${d.via})`).join(' and ')}`,
      fix: 'Say which one Windows nodes use: --cni calico or --cni flannel.',
    });
  } else {
    cni = wanted[0] as DetectedCni;
    findings.push(ok('cni', `CNI: ${cni.kind}${cni.version ? ` ${cni.version}` : ''} (${cni.via})`));
    if (!cni.version && !cni.operator) {
      findings.push({
        id: 'cni-version',
        severity: 'warning',
        title: `The release of ${cni.via} cannot be read from its image (no tag): its Windows part will use ${cni.kind} ${FALLBACK_CNI_VERSION[cni.kind]}`,
        fix: `Tag the image with its release, or check that ${cni.kind} ${FALLBACK_CNI_VERSION[cni.kind]} works with the cluster's.`,
      });
    }
    if (cni.kind === 'flannel') {
      const conf = f.flannelNetConf.find((x) => x.namespace === cni?.namespace);
      findings.push(checkFlannelNetConf(cni.namespace, conf?.text));
    } else if (cni.operator && f.calicoInstallations[0]) findings.push(checkCalicoOperator(f.calicoInstallations[0]));
  }
  findings.push(
    ...checkVersionSkew(kubernetesVersion, f.serverVersion),
    checkContainerdForHostProcess(c.containerdArchive),
  );
  const gates = kubeProxyGatesFinding(f.kubeProxyConfig, f.serverVersion);
  if (gates) findings.push(gates);
  return {
    findings,
    ...(cni ? { cni } : {}),
    kubernetesVersion,
    serverVersion: f.serverVersion,
    serviceSubnet: serviceSubnetOf(f.clusterConfiguration),
    podSubnets: podSubnetsOf(f.clusterConfiguration),
  };
}
