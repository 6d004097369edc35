// The pure parts of the kubeadm join (src/bootstrap/kubeadm.ts runs them as steps): the bootstrap
// token and its Secret, discovery from cluster-info and the CA hash, the containerd config with a
// registry config_path, the service definitions, and what each step checks. Unit-tested without SSH.

import { createHash, randomInt, X509Certificate } from 'node:crypto';
import { load } from 'js-yaml';
import { CRI_ENDPOINT, LAYOUT, PAUSE_IMAGE } from './layout';
import { containerdVersion } from './kubeadm-cluster';
import { reservationProblem } from './join-input';
import type { HostFacts, ServiceSpec, ServiceState } from './host-ops';

export const NODE_PLACEHOLDER = '<node>';

const TOKEN_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A bootstrap token `[a-z0-9]{6}.[a-z0-9]{16}` from a CSPRNG. */
export function newBootstrapToken(): { id: string; secret: string; token: string } {
  const pick = (n: number) => Array.from({ length: n }, () => TOKEN_CHARS[randomInt(TOKEN_CHARS.length)]).join('');
  const id = pick(6);
  const secret = pick(16);
  return { id, secret, token: `${id}.${secret}` };
}

/** The Secret kubeadm's bootstrap-token authenticator reads (kube-system/bootstrap-token-<id>). */
export function bootstrapTokenSecret(
  id: string,
  secret: string,
  expiresAt: Date,
  description: string,
): Record<string, unknown> {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'bootstrap.kubernetes.io/token',
    metadata: {
      name: `bootstrap-token-${id}`,
      namespace: 'kube-system',
      labels: { 'app.kubernetes.io/managed-by': 'kube-windows' },
    },
    data: {
      description: b64(description),
      'token-id': b64(id),
      'token-secret': b64(secret),
      expiration: b64(expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z')),
      'usage-bootstrap-authentication': b64('true'),
      'usage-bootstrap-signing': b64('true'),
      'auth-extra-groups': b64('system:bootstrappers:kubeadm:default-node-token'),
    },
  };
}

/** `sha256:<hex>` of the CA certificate's DER SubjectPublicKeyInfo (kubeadm's discovery hash). */
export function caCertHash(caPem: string): string {
  const cert = new X509Certificate(caPem);
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** containerd's major version from a release archive name (containerd-1.7.27-windows-amd64.tar.gz). */
export function containerdMajor(archiveName: string): number {
  return containerdVersion(archiveName)?.major ?? 1;
}

const toml = (s: string) => JSON.stringify(s); // TOML basic strings share JSON's escapes for our values

/**
 * containerd's config.toml for a Windows node: named pipe, Windows snapshotter, runhcs process
 * isolation, CNI dirs and the registry config_path (hosts.toml tree), in the v2 layout (containerd
 * 1.x) or the v3 layout (containerd 2.x).
 */
export function containerdConfig(major: number): string {
  const common = [
    `root = ${toml('C:\\ProgramData\\containerd\\root')}`,
    `state = ${toml('C:\\ProgramData\\containerd\\state')}`,
    '',
    '[grpc]',
    `  address = ${toml('\\\\.\\pipe\\containerd-containerd')}`,
    '',
  ];
  if (major >= 2) {
    return [
      'version = 3',
      ...common,
      "[plugins.'io.containerd.cri.v1.images']",
      "  [plugins.'io.containerd.cri.v1.images'.pinned_images]",
      `    sandbox = ${toml(PAUSE_IMAGE)}`,
      "  [plugins.'io.containerd.cri.v1.images'.registry]",
      `    config_path = ${toml(LAYOUT.registryHosts)}`,
      '',
      "[plugins.'io.containerd.cri.v1.runtime']",
      "  [plugins.'io.containerd.cri.v1.runtime'.containerd]",
      `    default_runtime_name = "runhcs-wcow-process"`,
      "    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runhcs-wcow-process]",
      `      runtime_type = "io.containerd.runhcs.v1"`,
      "  [plugins.'io.containerd.cri.v1.runtime'.cni]",
      `    bin_dirs = [${toml(LAYOUT.cniBin)}]`,
      `    conf_dir = ${toml(LAYOUT.cniConf)}`,
      '',
    ].join('\r\n');
  }
  return [
    'version = 2',
    ...common,
    '[plugins."io.containerd.grpc.v1.cri"]',
    `  sandbox_image = ${toml(PAUSE_IMAGE)}`,
    '  [plugins."io.containerd.grpc.v1.cri".containerd]',
    '    snapshotter = "windows"',
    '    default_runtime_name = "runhcs-wcow-process"',
    '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runhcs-wcow-process]',
    '      runtime_type = "io.containerd.runhcs.v1"',
    '  [plugins."io.containerd.grpc.v1.cri".cni]',
    `    bin_dir = ${toml(LAYOUT.cniBin)}`,
    `    conf_dir = ${toml(LAYOUT.cniConf)}`,
    '  [plugins."io.containerd.grpc.v1.cri".registry]',
    `    config_path = ${toml(LAYOUT.registryHosts)}`,
    '',
  ].join('\r\n');
}

/** The containerd service command line. */
function containerdServiceCommand(): string {
  return `"${LAYOUT.containerdExe}" --config "${LAYOUT.containerdConfig}" --run-service --log-file C:\\var\\log\\containerd.log`;
}

/**
 * The kubelet flags a join chooses (the Kubernetes Windows guide's: taints at registration, reservations, eviction,
 * node IP).
 */
export interface KubeletFlags {
  /** --node-ip: the address the node registers with. */
  nodeIp?: string;
  /** --register-with-taints=os=windows:NoSchedule: the node is tainted from its first registration. */
  registerTaint?: boolean;
  /** --kube-reserved / --system-reserved, e.g. cpu=500m,memory=1Gi (checked by reservationProblem). */
  kubeReserved?: string;
  systemReserved?: string;
}

/**
 * What kube-windows reserves and evicts at when the user says nothing: Kubernetes "Resource
 * Management for Windows nodes" asks to reserve memory for the OS with --system-reserved (at least
 * 2 GiB) and to set --eviction-hard, since Windows has no OOM killer and node allocatable is not
 * enforced (--enforce-node-allocatable="" below): the reservations only lower what is allocatable.
 */
const DEFAULT_SYSTEM_RESERVED = 'memory=2Gi';
const DEFAULT_EVICTION_HARD = 'memory.available<500Mi,nodefs.available<10%';

/**
 * The kubelet service command line. kubelet runs as a Windows service itself (--windows-service),
 * so no service wrapper (nssm) is needed; the flags kubeadm would put in kubeadm-flags.env are
 * fixed here, and kubeadm join writes config.yaml and the kubeconfigs, then restarts the service.
 * nodeName must already be validated (RFC 1123), as the join preflight does; "<node>" is the
 * dry-run placeholder, as "<node ip>" is for the address.
 */
export function kubeletServiceCommand(nodeName: string, flags: KubeletFlags = {}): string {
  if (nodeName !== NODE_PLACEHOLDER && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(nodeName))
    throw new Error(`kubeletServiceCommand: invalid node name ${JSON.stringify(nodeName)}`);
  if (flags.nodeIp !== undefined && flags.nodeIp !== NODE_IP_PLACEHOLDER && !/^[0-9a-fA-F:.]+$/.test(flags.nodeIp))
    throw new Error(`kubeletServiceCommand: invalid node IP ${JSON.stringify(flags.nodeIp)}`);
  for (const r of [flags.kubeReserved, flags.systemReserved])
    if (r !== undefined && reservationProblem(r))
      throw new Error(`kubeletServiceCommand: invalid reservation ${JSON.stringify(r)}`);
  return [
    `"${LAYOUT.kubelet}"`,
    '--windows-service',
    `--cert-dir=C:\\var\\lib\\kubelet\\pki`,
    `--config=${LAYOUT.kubeletConfig}`,
    `--bootstrap-kubeconfig=${LAYOUT.bootstrapKubeconfig}`,
    `--kubeconfig=${LAYOUT.kubeletKubeconfig}`,
    `--hostname-override=${nodeName}`,
    ...(flags.nodeIp ? [`--node-ip=${flags.nodeIp}`] : []),
    `--container-runtime-endpoint=${CRI_ENDPOINT}`,
    ...(flags.registerTaint
      ? [`--register-with-taints=${WINDOWS_TAINT.key}=${WINDOWS_TAINT.value}:${WINDOWS_TAINT.effect}`]
      : []),
    ...(flags.kubeReserved ? [`--kube-reserved=${flags.kubeReserved}`] : []),
    `--system-reserved=${flags.systemReserved ?? DEFAULT_SYSTEM_RESERVED}`,
    `--eviction-hard=${DEFAULT_EVICTION_HARD}`,
    '--enable-debugging-handlers',
    '--cgroups-per-qos=false',
    '--enforce-node-allocatable=""',
    '--resolv-conf=""',
  ].join(' ');
}

export const NODE_IP_PLACEHOLDER = '<node ip>';

/** The node IP: the join address when it is one of the host's IPv4 addresses, else the default route's address. */
export function nodeIpOf(facts: Pick<HostFacts, 'adapters' | 'defaultRouteIPv4'>, address: string): string | undefined {
  if (facts.adapters.some((a) => a.ipv4.includes(address))) return address;
  return facts.defaultRouteIPv4 || undefined;
}

/** Where the containerd release archive is put, and the file recording which archive was unpacked. */
export const CONTAINERD_ARCHIVE = `${LAYOUT.payload}\\containerd.tar.gz`;
export const CONTAINERD_MARKER = `${LAYOUT.containerdDir}\\.kube-windows-archive.sha256`;

/** The taint a kubeadm join adds when asked, so that only pods tolerating Windows land there. */
export const WINDOWS_TAINT = { key: 'os', value: 'windows', effect: 'NoSchedule' } as const;

export function containerdService(): ServiceSpec {
  return {
    name: 'containerd',
    binaryPathName: containerdServiceCommand(),
    displayName: 'containerd',
    description: 'containerd container runtime (kube-windows)',
    dependsOn: [],
  };
}

export function kubeletService(nodeName: string, flags: KubeletFlags = {}): ServiceSpec {
  return {
    name: 'kubelet',
    binaryPathName: kubeletServiceCommand(nodeName, flags),
    displayName: 'kubelet',
    description: 'Kubernetes node agent (kube-windows)',
    dependsOn: ['containerd'],
  };
}

/** The service exists with exactly our command line (and, when asked, is running). */
export function serviceInPlace(
  s: Pick<ServiceState, 'exists' | 'binaryPathName' | 'status'>,
  spec: ServiceSpec,
  running: boolean,
): boolean {
  return s.exists && s.binaryPathName === spec.binaryPathName && (!running || s.status === 'Running');
}

/** Containers is enabled, or enabled and waiting for the restart (the restart step finishes it). */
export const containersFeatureOn = (f: Pick<HostFacts, 'containersFeature'>): boolean =>
  f.containersFeature === 'Enabled' || f.containersFeature === 'EnablePending';

/** The restart step is done when nothing is pending and Containers is fully enabled; else why it must run. */
export function restartNeed(f: Pick<HostFacts, 'containersFeature' | 'rebootPending'>): 'done' | { todo: string } {
  if (!f.rebootPending && f.containersFeature === 'Enabled') return 'done';
  return { todo: f.rebootPending ? 'a restart is pending' : `Containers is ${f.containersFeature}` };
}

/**
 * The API server endpoint and the CA that `kubeadm join` discovers, from kube-public/cluster-info's kubeconfig text.
 */
export function clusterInfoEndpoint(
  published: string | undefined,
  fallbackServer: string,
  fallbackCaPem: string | undefined,
): { endpoint: string; caHash: string } {
  let server = fallbackServer;
  let ca = fallbackCaPem;
  if (published) {
    const doc = load(published) as
      { clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[] } | undefined;
    const cluster = doc?.clusters?.[0]?.cluster;
    if (cluster?.server) server = cluster.server;
    if (cluster?.['certificate-authority-data'])
      ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  }
  if (!ca)
    throw new Error(
      'The cluster CA is unknown: kube-public/cluster-info is missing and the kubeconfig has no certificate-authority-data. Create cluster-info (kubeadm init phase bootstrap-token) or use a kubeconfig with the CA.',
    );
  const url = new URL(server);
  return { endpoint: `${url.hostname}:${url.port || '443'}`, caHash: caCertHash(ca) };
}

/** Why `kubeadm join` failed, from its output's last lines, with the token blanked out. */
export function kubeadmJoinFailure(exitCode: number, output: string, token: string): string {
  const tail = output.split(token).join('•••').trim().split(/\r?\n/).slice(-8).join('\n');
  const hint = /already exists/.test(tail)
    ? ' The host has been joined before (maybe to another cluster): remove the node (kubeadm reset) and run the join again.'
    : '';
  return `kubeadm join failed (exit code ${exitCode}):\n${tail}${hint}`;
}
