// Joining a Windows host to a kubeadm cluster (reference §5): bootstrap token Secret through the API,
// discovery CA hash from the cluster CA, then on the host: the Containers feature (restart and
// resume when needed), containerd with a registry config_path, kubelet and kubeadm, the services,
// `kubeadm join`, Ready, and the os=windows:NoSchedule taint when asked. Every step checks first,
// so a second run changes nothing. Removal: cordon and delete the Node, `kubeadm reset` on the host.

import { createHash } from 'node:crypto';
import type { KubeClient } from '../cluster/kube-client';
import {
  downloadFile,
  enableContainersFeature,
  executableVersion,
  ensureDirectories,
  ensureFirewallRule,
  ensureService,
  expandArchive,
  fileHash,
  hostFacts,
  kubeadmJoin,
  kubeadmReset,
  readTextFile,
  removeService,
  restartComputer,
  serviceState,
  startService,
  type HostFacts,
} from '../core/windows/host-ops';
import { restartService } from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';
import { bootstrapTokenCall, CLUSTER_INFO_CALL, clusterInfoKubeconfig, createBootstrapToken, deleteBootstrapToken } from '../cluster/kubeadm';
import { addTaint, annotateNode, cordonCall, deleteNode, getNode, hasTaint, nodeCall, nodePath, setCordoned, type NodeObject, type NodeTaint } from '../cluster/nodes';
import { DISCOVERY_CALL, isOpenShift } from '../cluster/openshift';
import { readyStep } from './byoh';
import { waitFor } from './follow';
import {
  bootstrapTokenSecret,
  clusterInfoEndpoint,
  containerdConfig,
  containerdMajor,
  containerdService,
  CONTAINERD_ARCHIVE,
  CONTAINERD_MARKER,
  containersFeatureOn,
  kubeadmJoinFailure,
  kubeletService,
  newBootstrapToken,
  NODE_IP_PLACEHOLDER,
  NODE_PLACEHOLDER,
  nodeIpOf,
  type KubeletFlags,
  restartNeed,
  serviceInPlace,
  WINDOWS_TAINT,
} from '../core/windows/kubeadm';
import { binaryVersionProblem, checkBuildForKubernetes, evaluateCluster, type ClusterEvaluation, type CniChoice } from '../core/windows/kubeadm-cluster';
import { LAYOUT } from '../core/windows/layout';
import { CLUSTER_FACTS_CALLS, createCall, createObject, deleteObject, getObject, networkingDaemonSets, objectPaths, readClusterFacts } from '../cluster/networking';
import {
  cniWindowsDaemonSet,
  daemonSetPodState,
  existingDaemonSet,
  networkingChanges,
  probePod,
  probeState,
  runtimeClassDifference,
  runtimeClassFor,
  runtimeClassMatches,
  type RuntimeClassView,
  windowsNetworkingObjects,
  type Manifest,
  type NetworkingChanges,
  type NetworkingInput,
  type PodView,
} from '../core/windows/kubeadm-networking';
import { BUILD_LABEL, KUBE_PROXY_CONFIGMAP, KUBE_PROXY_WINDOWS_DAEMONSET, PROBED_ANNOTATION } from '../core/well-known';
import { podsOfNodeIn } from '../cluster/pods';
import type { Payload, PayloadSource } from './payload';
import { Secret, type Plan, type Step } from './plan';
import { blocking, checkBuild, checkConflictingRuntime, checkContainersFeature, checkHostname, nodeNameOf, ok, PreflightError, type Finding } from './preflight';

/** What the user chooses for a kubeadm join (CLI options, VS Code answers); JoinRequest carries the same. */
export interface KubeadmChoices {
  /** Add the os=windows:NoSchedule taint to the node (at registration). */
  taint?: boolean;
  /** The CNI Windows nodes use (default auto: the one the cluster runs). */
  cni?: CniChoice;
  /** The kubelet/kubeadm version installed (vX.Y.Z); default: the API server's own version. */
  kubernetesVersion?: string;
  /** Create the RuntimeClass of the node's Windows build (windows-2019/2022/2025) when missing. */
  runtimeClass?: boolean;
  /** What a dry run's cluster preflight decided, so that the plan's previews show the objects it would create. */
  planned?: { cluster: ClusterEvaluation; endpoint?: string };
  /** kubelet --kube-reserved / --system-reserved (cpu=500m,memory=1Gi); system-reserved defaults to memory=2Gi. */
  kubeReserved?: string;
  systemReserved?: string;
}

const KUBEADM_CHOICES = ['taint', 'cni', 'kubernetesVersion', 'runtimeClass', 'planned', 'kubeReserved', 'systemReserved'] as const satisfies readonly (keyof KubeadmChoices)[];

/** The choices a request carries (unset and false ones left out), for the plan's options. */
export function kubeadmChoicesOf(r: KubeadmChoices): KubeadmChoices {
  const out: Record<string, unknown> = {};
  for (const k of KUBEADM_CHOICES) if (r[k] !== undefined && r[k] !== false) out[k] = r[k];
  return out as KubeadmChoices;
}

export interface KubeadmOptions extends KubeadmChoices {
  kube: KubeClient;
  host: WindowsHost;
  address: string;
  user: string;
  payload: Payload;
  /** Lifetime of the bootstrap token (default 1 h); it is deleted once the node has joined. */
  tokenTtlMs?: number;
  /** The cluster CA (PEM) when kube-public/cluster-info is not readable; from the kubeconfig. */
  caPem?: string;
  pollMs?: number;
  timeouts?: Partial<Record<'restart' | 'join' | 'ready' | 'pods', number>>;
}

export interface KubeadmState {
  facts?: HostFacts;
  nodeName?: string;
  endpoint?: string;
  caHash?: string;
  token?: Secret;
  tokenId?: string;
  findings?: Finding[];
  /** What the cluster preflight decided: the CNI, the Kubernetes version to install. */
  cluster?: ClusterEvaluation;
}

export interface KubeadmContext {
  opts: KubeadmOptions;
  state: KubeadmState;
}

type KubeadmStep = Step<KubeadmContext>;
type Timeouts = Record<'restart' | 'join' | 'ready' | 'pods', number>;

/** Reads kube-public/cluster-info (what `kubeadm join` discovers): API endpoint and CA hash. */
export async function discovery(kube: KubeClient, caPem: string | undefined, signal?: AbortSignal): Promise<{ endpoint: string; caHash: string }> {
  return clusterInfoEndpoint(await clusterInfoKubeconfig(kube, signal), kube.server, caPem);
}

/** The options the cluster part of the preflight reads. */
export type ClusterPreflightOptions = Pick<KubeadmOptions, 'kube' | 'caPem' | 'cni' | 'kubernetesVersion' | 'payload'>;

/**
 * The cluster part of the preflight: OpenShift or not, discovery, the control plane, the CNI and its
 * backend, the version skew and containerd's HostProcess support. It only reads, so the dry run runs
 * it too; the decisions (CNI, Kubernetes version) are kept in `state.cluster`.
 */
export async function kubeadmClusterPreflight(opts: ClusterPreflightOptions, state: KubeadmState, signal?: AbortSignal): Promise<Finding[]> {
  const { kube } = opts;
  const out: Finding[] = [];
  if (await isOpenShift(kube, signal)) {
    out.push({ id: 'cluster-kind', severity: 'error', title: 'This is an OpenShift/OKD cluster: Windows nodes join it through WMCO', fix: 'Use the BYOH path (--via byoh).' });
  }
  try {
    const d = await discovery(kube, opts.caPem, signal);
    state.endpoint = d.endpoint;
    state.caHash = d.caHash;
    out.push(ok('discovery', `API endpoint ${d.endpoint}, CA ${d.caHash.slice(0, 19)}…`));
  } catch (err) {
    out.push({ id: 'discovery', severity: 'error', title: (err as Error).message });
  }
  const evaluation = evaluateCluster(await readClusterFacts(kube, signal), {
    cni: opts.cni ?? 'auto',
    ...(opts.kubernetesVersion ? { kubernetesVersion: opts.kubernetesVersion } : {}),
    containerdArchive: opts.payload.containerd.name,
  });
  state.cluster = evaluation;
  out.push(...evaluation.findings);
  return out;
}

async function kubeadmPreflight(ctx: KubeadmContext, signal?: AbortSignal): Promise<Finding[]> {
  const { kube, host } = ctx.opts;
  const out = await kubeadmClusterPreflight(ctx.opts, ctx.state, signal);
  const facts = await host.run(hostFacts(), signal);
  ctx.state.facts = facts;
  ctx.state.nodeName = nodeNameOf(facts.hostname);
  out.push(checkBuild(facts, false), checkHostname(facts), checkContainersFeature(facts, 'kubeadm'), ...checkConflictingRuntime(facts, 'kubeadm'));
  if (ctx.state.cluster) out.push(checkBuildForKubernetes(facts.build, ctx.state.cluster.kubernetesVersion));
  if (!facts.isAdministrator) out.push({ id: 'admin', severity: 'error', title: 'The SSH user is not an administrator on the host', fix: 'Installing services needs an administrator account.' });
  const existing = await getNode(kube, ctx.state.nodeName, signal);
  if (existing) out.push({ id: 'existing-node', severity: 'info', title: `A Node named ${ctx.state.nodeName} already exists; the join steps will be skipped if it is this host` });
  ctx.state.findings = out;
  return out;
}

function hostStep(s: KubeadmStep): KubeadmStep {
  // Host steps survive a lost connection: WindowsHost reconnects, and the runner retries once more.
  return { retries: 1, timeoutMs: 600_000, ...s };
}

function putOrDownload(ctx: KubeadmContext, source: PayloadSource, path: string, signal: AbortSignal, report: (m: string, f?: number) => void): Promise<unknown> {
  if (source.kind === 'url') return ctx.opts.host.run(downloadFile(source.url, path, source.sha256), signal);
  return ctx.opts.host.put({ path: source.path }, path, signal, (sent, total) =>
    report(`${source.name}: ${Math.round(sent / 1048576)} of ${Math.round(total / 1048576)} MB`, total ? sent / total : undefined),
  );
}

function previewOfPut(source: PayloadSource, path: string): { powershell: string[]; notes: string[] } {
  if (source.kind === 'url') return { powershell: [downloadFile(source.url, path, source.sha256).script], notes: [] };
  return {
    powershell: [fileHash(path).script],
    notes: [`upload ${source.path} (${source.bytes} bytes, SHA-256 ${source.sha256}) over SFTP to ${path}.kw-<random>.tmp, check its SHA-256 with Get-FileHash, move it to ${path}`],
  };
}

const nodeOf = (ctx: KubeadmContext, signal: AbortSignal): Promise<NodeObject | undefined> => (ctx.state.nodeName ? getNode(ctx.opts.kube, ctx.state.nodeName, signal) : Promise.resolve(undefined));

/** Reads the host's facts and keeps them for the steps after. */
async function freshFacts(ctx: KubeadmContext, signal: AbortSignal): Promise<HostFacts> {
  const f = await ctx.opts.host.run(hostFacts(), signal);
  ctx.state.facts = f;
  return f;
}

function preflightStep(): KubeadmStep {
  return {
    id: 'preflight',
    title: 'Check the cluster and the host',
    preview: { check: 'always runs', powershell: [hostFacts().script], api: [DISCOVERY_CALL, CLUSTER_INFO_CALL, ...CLUSTER_FACTS_CALLS, nodeCall('GET', '<node>')] },
    check: async () => 'todo',
    apply: async (ctx, signal, report) => {
      const findings = await kubeadmPreflight(ctx, signal);
      for (const f of findings) report(`${f.severity === 'error' ? '✗' : f.severity === 'warning' ? '!' : '✓'} ${f.title}${f.fix ? ` — ${f.fix}` : ''}`);
      if (blocking(findings).length > 0) throw new PreflightError(findings);
    },
    verify: async () => true,
    timeoutMs: 180_000,
  };
}

function containersFeatureStep(): KubeadmStep {
  return hostStep({
    id: 'containers-feature',
    title: 'Enable the Containers feature',
    preview: { check: 'the Containers feature is Enabled (or enabled and waiting for a restart)', powershell: [enableContainersFeature().script] },
    check: async (ctx, signal) => (containersFeatureOn(await freshFacts(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const r = await ctx.opts.host.run(enableContainersFeature(), signal);
      if (r.restartNeeded) report('the host must restart to finish enabling Containers');
    },
    verify: async (ctx, signal) => {
      const f = await freshFacts(ctx, signal);
      return containersFeatureOn(f) ? true : `the feature is ${f.containersFeature}`;
    },
  });
}

function restartStep(restartMs: number, poll: number): KubeadmStep {
  return {
    id: 'restart',
    title: 'Restart the host if Windows asks for it, and wait for it to come back',
    description: 'The plan continues after the restart; if it is interrupted, running it again resumes here.',
    preview: { check: 'no restart is pending and Containers is Enabled', powershell: [restartComputer().script] },
    check: async (ctx, signal) => restartNeed(await freshFacts(ctx, signal)),
    apply: async (ctx, signal, report) => {
      await ctx.opts.host.run(restartComputer(), signal);
      report('restarting the host');
      await ctx.opts.host.waitForRestart(signal, restartMs, Math.min(2000, poll));
      report('the host is back');
    },
    verify: async (ctx, signal) => {
      const f = await freshFacts(ctx, signal);
      return f.containersFeature === 'Enabled' ? true : `after the restart Containers is ${f.containersFeature}`;
    },
    timeoutMs: restartMs + 120_000,
  };
}

function directoriesStep(): KubeadmStep {
  return hostStep({
    id: 'directories',
    title: 'Create the node directories',
    preview: { check: 'ensure-directories creates only what is missing', powershell: [ensureDirectories(LAYOUT.directories).script] },
    check: async () => 'todo',
    apply: async (ctx, signal, report) => {
      const r = await ctx.opts.host.run(ensureDirectories(LAYOUT.directories), signal);
      report(r.created.length ? `created ${r.created.join(', ')}` : 'all present');
    },
    verify: async () => true,
  });
}

function containerdArchiveStep(source: PayloadSource): KubeadmStep {
  const hashOk = async (ctx: KubeadmContext, signal: AbortSignal) => (await ctx.opts.host.run(fileHash(CONTAINERD_ARCHIVE), signal)).sha256 === source.sha256;
  return hostStep({
    id: 'containerd-archive',
    title: `Put ${source.name} on the host`,
    preview: { check: `${CONTAINERD_ARCHIVE} has SHA-256 ${source.sha256}`, ...previewOfPut(source, CONTAINERD_ARCHIVE) },
    check: async (ctx, signal) => ((await hashOk(ctx, signal)) ? 'done' : 'todo'),
    apply: (ctx, signal, report) => putOrDownload(ctx, source, CONTAINERD_ARCHIVE, signal, report).then(() => undefined),
    verify: async (ctx, signal) => ((await hashOk(ctx, signal)) ? true : 'hash differs'),
  });
}

function containerdUnpackStep(sha256: string): KubeadmStep {
  const unpack = expandArchive(CONTAINERD_ARCHIVE, LAYOUT.containerdDir, sha256, 1);
  return hostStep({
    id: 'containerd-unpack',
    title: `Unpack containerd into ${LAYOUT.containerdDir}`,
    preview: { check: `${CONTAINERD_MARKER} records SHA-256 ${sha256}`, powershell: [unpack.script] },
    check: async (ctx, signal) => ((await ctx.opts.host.run(readTextFile(CONTAINERD_MARKER), signal)).text.trim() === sha256 ? 'done' : 'todo'),
    apply: async (ctx, signal) => void (await ctx.opts.host.run(unpack, signal)),
    verify: async (ctx, signal) => ((await ctx.opts.host.run(fileHash(LAYOUT.containerdExe), signal)).exists ? true : `${LAYOUT.containerdExe} is missing after unpacking`),
  });
}

function containerdConfigStep(major: number): KubeadmStep {
  const config = containerdConfig(major);
  const bytes = new TextEncoder().encode(config);
  const digest = createHash('sha256').update(bytes).digest('hex');
  return hostStep({
    id: 'containerd-config',
    title: `Write containerd's config (registry config_path ${LAYOUT.registryHosts})`,
    description: `containerd ${major}.x layout; registry mirrors go in ${LAYOUT.registryHosts}\\<registry>\\hosts.toml.`,
    preview: { check: `${LAYOUT.containerdConfig} has the expected content`, powershell: [fileHash(LAYOUT.containerdConfig).script], notes: [`content:\n${config}`] },
    check: async (ctx, signal) => ((await ctx.opts.host.run(fileHash(LAYOUT.containerdConfig), signal)).sha256 === digest ? 'done' : 'todo'),
    apply: async (ctx, signal) => void (await ctx.opts.host.put({ data: bytes }, LAYOUT.containerdConfig, signal)),
    verify: async () => true,
  });
}

function containerdServiceStep(): KubeadmStep {
  const spec = containerdService();
  return hostStep({
    id: 'containerd-service',
    title: 'Register and start the containerd service',
    preview: { check: 'service containerd exists with this command line and is Running', powershell: [ensureService(spec).script, startService(spec.name).script] },
    check: async (ctx, signal) => (serviceInPlace(await ctx.opts.host.run(serviceState(spec.name), signal), spec, true) ? 'done' : 'todo'),
    apply: async (ctx, signal) => {
      await ctx.opts.host.run(ensureService(spec), signal);
      await ctx.opts.host.run(startService(spec.name), signal);
    },
    verify: async (ctx, signal) => ((await ctx.opts.host.run(serviceState(spec.name), signal)).status === 'Running' ? true : 'containerd is not running'),
  });
}

/** Why the installed kubelet.exe or kubeadm.exe is not the planned version (undefined: both are). */
async function binariesVersionProblem(ctx: KubeadmContext, signal: AbortSignal): Promise<string | undefined> {
  const target = ctx.state.cluster?.kubernetesVersion;
  if (!target) return undefined;
  for (const [name, path, args] of [
    ['kubelet.exe', LAYOUT.kubelet, ['--version']],
    ['kubeadm.exe', LAYOUT.kubeadm, ['version', '-o', 'short']],
  ] as const) {
    const r = await ctx.opts.host.run(executableVersion(path, args), signal);
    const problem = binaryVersionProblem(name, r.output, target);
    if (problem) return problem;
  }
  return undefined;
}

function kubeBinariesStep(p: Payload): KubeadmStep {
  const kubelet = previewOfPut(p.kubelet, LAYOUT.kubelet);
  const kubeadm = previewOfPut(p.kubeadm, LAYOUT.kubeadm);
  return hostStep({
    id: 'kube-binaries',
    title: 'Put kubelet.exe and kubeadm.exe in C:\\k and check they are the planned Kubernetes version',
    preview: {
      check: 'both files have the expected SHA-256 and report the Kubernetes version of the join',
      powershell: [...kubelet.powershell, ...kubeadm.powershell, executableVersion(LAYOUT.kubelet, ['--version']).script, executableVersion(LAYOUT.kubeadm, ['version', '-o', 'short']).script],
      notes: [...kubelet.notes, ...kubeadm.notes],
    },
    check: async (ctx, signal) => {
      const [a, b] = [await ctx.opts.host.run(fileHash(LAYOUT.kubelet), signal), await ctx.opts.host.run(fileHash(LAYOUT.kubeadm), signal)];
      if (a.sha256 !== p.kubelet.sha256 || b.sha256 !== p.kubeadm.sha256) return 'todo';
      const problem = await binariesVersionProblem(ctx, signal);
      return problem ? { todo: problem } : 'done';
    },
    apply: async (ctx, signal, report) => {
      await putOrDownload(ctx, p.kubelet, LAYOUT.kubelet, signal, report);
      await putOrDownload(ctx, p.kubeadm, LAYOUT.kubeadm, signal, report);
    },
    verify: async (ctx, signal) => (await binariesVersionProblem(ctx, signal)) ?? true,
  });
}

/** The kubelet flags of this join: node IP from the host's facts, the taint at registration, the reservations. */
function kubeletFlags(ctx: KubeadmContext): KubeletFlags {
  const nodeIp = ctx.state.facts ? nodeIpOf(ctx.state.facts, ctx.opts.address) : undefined;
  return {
    ...(nodeIp ? { nodeIp } : {}),
    ...(ctx.opts.taint ? { registerTaint: true } : {}),
    ...(ctx.opts.kubeReserved ? { kubeReserved: ctx.opts.kubeReserved } : {}),
    ...(ctx.opts.systemReserved ? { systemReserved: ctx.opts.systemReserved } : {}),
  };
}

function kubeletServiceStep(o: Pick<KubeadmOptions, 'taint' | 'kubeReserved' | 'systemReserved'>): KubeadmStep {
  const spec = (ctx: KubeadmContext) => kubeletService(ctx.state.nodeName as string, kubeletFlags(ctx));
  const previewSpec = kubeletService(NODE_PLACEHOLDER, {
    nodeIp: NODE_IP_PLACEHOLDER,
    ...(o.taint ? { registerTaint: true } : {}),
    ...(o.kubeReserved ? { kubeReserved: o.kubeReserved } : {}),
    ...(o.systemReserved ? { systemReserved: o.systemReserved } : {}),
  });
  return hostStep({
    id: 'kubelet-service',
    title: 'Register the kubelet service (started by kubeadm join) with the node IP, reservations, eviction thresholds and taints, and open port 10250',
    description: 'A kubelet already running with other flags (a node joined before) is restarted to take the new ones.',
    preview: {
      check: 'service kubelet exists with the expected command line',
      powershell: [ensureService(previewSpec).script, ensureFirewallRule('kubelet', 10250).script, restartService('kubelet').script],
    },
    check: async (ctx, signal) => (serviceInPlace(await ctx.opts.host.run(serviceState('kubelet'), signal), spec(ctx), false) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const before = await ctx.opts.host.run(serviceState('kubelet'), signal);
      const r = await ctx.opts.host.run(ensureService(spec(ctx)), signal);
      await ctx.opts.host.run(ensureFirewallRule('kubelet', 10250), signal);
      if (r.changed && before.status === 'Running') {
        report('the kubelet runs with other flags: restarting it');
        await ctx.opts.host.run(restartService('kubelet'), signal);
      }
    },
    verify: async (ctx, signal) => ((await ctx.opts.host.run(serviceState('kubelet'), signal)).exists ? true : 'the kubelet service is missing'),
  });
}

function joinStep(joinMs: number, poll: number): KubeadmStep {
  return {
    id: 'join',
    title: 'Create a bootstrap token and run kubeadm join',
    description: 'The token Secret (kube-system/bootstrap-token-<id>) expires by itself and is deleted once the node has registered.',
    preview: {
      check: 'a Node with this name is registered',
      api: [bootstrapTokenCall(bootstrapTokenSecret('<id>', '<secret>', new Date(0), 'kube-windows join'))],
      powershell: [kubeadmJoin({ kubeadmPath: LAYOUT.kubeadm, apiServerEndpoint: '<endpoint>', token: '<token>', caCertHash: 'sha256:<ca hash>', nodeName: NODE_PLACEHOLDER }).script],
    },
    check: async (ctx, signal) => ((await nodeOf(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const { kube, host } = ctx.opts;
      if (!ctx.state.endpoint || !ctx.state.caHash) Object.assign(ctx.state, await discovery(kube, ctx.opts.caPem, signal));
      const tok = newBootstrapToken();
      const expires = new Date(Date.now() + (ctx.opts.tokenTtlMs ?? 3_600_000));
      await createBootstrapToken(kube, bootstrapTokenSecret(tok.id, tok.secret, expires, `kube-windows join of ${ctx.opts.address}`), signal);
      ctx.state.token = new Secret(tok.token);
      ctx.state.tokenId = tok.id;
      report(`bootstrap token ${tok.id}.••• valid until ${expires.toISOString()}`);
      try {
        const op = kubeadmJoin({
          kubeadmPath: LAYOUT.kubeadm,
          apiServerEndpoint: ctx.state.endpoint as string,
          token: tok.token,
          caCertHash: ctx.state.caHash as string,
          nodeName: ctx.state.nodeName as string,
        });
        const r = await host.run(op, signal);
        if (r.exitCode !== 0) throw new Error(kubeadmJoinFailure(r.exitCode, r.output, tok.token));
        await waitFor(async () => ((await nodeOf(ctx, signal)) ? true : { waiting: 'the Node has not registered yet' }), {
          signal,
          intervalMs: Math.min(poll, 2000),
          timeoutMs: joinMs,
          report,
          timeoutMessage: () => `kubeadm join ran, but no Node ${ctx.state.nodeName} registered within ${Math.round(joinMs / 60_000)} min: look at the kubelet service on the host.`,
        });
      } finally {
        await deleteBootstrapToken(kube, tok.id);
      }
    },
    verify: async (ctx, signal) => ((await nodeOf(ctx, signal)) ? true : 'no Node'),
    timeoutMs: joinMs + 120_000,
  };
}

function networkingInput(cluster: ClusterEvaluation | undefined, endpoint: string | undefined): NetworkingInput | undefined {
  if (!cluster?.cni) return undefined;
  return { cni: cluster.cni, serverVersion: cluster.serverVersion, endpoint: endpoint ?? '<api host>:<port>', serviceSubnet: cluster.serviceSubnet };
}

/** What the cluster lacks for Windows networking (read fresh: a second run creates nothing). */
async function networkingNeeds(ctx: KubeadmContext, signal: AbortSignal): Promise<NetworkingChanges> {
  const input = networkingInput(ctx.state.cluster, ctx.state.endpoint);
  if (!input) throw new Error('The cluster preflight found no CNI for Windows nodes; run the join again from the start.');
  const desired = windowsNetworkingObjects(input);
  const present = new Set<Manifest>();
  for (const o of desired) if (o.kind !== 'DaemonSet' && (await getObject(ctx.opts.kube, o, signal))) present.add(o);
  return networkingChanges(desired, await networkingDaemonSets(ctx.opts.kube, signal), (o) => present.has(o));
}

const KUBE_PROXY_CONFIG: Manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: KUBE_PROXY_CONFIGMAP, namespace: 'kube-system' } };

/**
 * The Windows networking DaemonSets for the cluster's CNI (HostProcess kube-proxy, and Calico or
 * Flannel for Windows with their ConfigMaps), created when missing; what exists is reused.
 */
/** What made the Windows networking objects, said above each in the dry run. */
function madeFor(input: NetworkingInput): string {
  const cni = `${input.cni.kind}${input.cni.version ? ` ${input.cni.version}` : ''}`;
  return `Made by kube-windows join for the cluster's ${cni} (found: ${input.cni.via}) and Kubernetes ${input.serverVersion}.`;
}

function networkingStep(planned: KubeadmOptions['planned']): KubeadmStep {
  const input = networkingInput(planned?.cluster, planned?.endpoint);
  const desired = input ? windowsNetworkingObjects(input) : [];
  return {
    id: 'windows-networking',
    title: 'Create or verify the Windows networking DaemonSets (HostProcess kube-proxy and the CNI for Windows)',
    description: 'Generated for the CNI the cluster runs, pinned to its versions; a DaemonSet that exists (by name, or running the same thing on Windows nodes) is reused, never duplicated.',
    preview: {
      check: 'each DaemonSet exists by name or by what it runs on Windows nodes, with its ConfigMaps',
      api: desired.length
        ? desired.map((o) => ({ ...createCall(o), ...(input ? { comment: madeFor(input) } : {}) }))
        : [
            {
              verb: 'POST',
              path: '/apis/apps/v1/namespaces/<namespace>/daemonsets',
              body: '<kube-proxy-windows, and calico-node-windows or kube-flannel-ds-windows-amd64, for the CNI the preflight finds>',
            },
          ],
      ...(desired.length ? { notes: ['each object is created only when missing (a POST answered 409 is an existing one, kept as it is)'] } : {}),
    },
    check: async (ctx, signal) => {
      const needs = await networkingNeeds(ctx, signal);
      return needs.create.length === 0 ? 'done' : { todo: `missing: ${needs.create.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`).join(', ')}` };
    },
    apply: async (ctx, signal, report) => {
      if (!(await getObject(ctx.opts.kube, KUBE_PROXY_CONFIG, signal))) {
        throw new Error(
          "kube-system/kube-proxy (kubeadm's kube-proxy ConfigMap) is missing, so kube-proxy cannot run on Windows nodes: run `kubeadm init phase addon kube-proxy` on a control-plane node.",
        );
      }
      const needs = await networkingNeeds(ctx, signal);
      for (const r of needs.reused) report(`reusing ${r}`);
      for (const o of needs.create) {
        const r = await createObject(ctx.opts.kube, o, signal);
        report(`${r === 'created' ? 'created' : 'kept the existing'} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
      }
    },
    verify: async (ctx, signal) => {
      const needs = await networkingNeeds(ctx, signal);
      return needs.create.length === 0 ? true : `still missing: ${needs.create.map((o) => o.metadata.name).join(', ')}`;
    },
    retries: 2,
    timeoutMs: 120_000,
  };
}

/** The Windows networking DaemonSets whose pods the node must run: ours, or the ones reused in their place. */
async function daemonSetsToWatch(ctx: KubeadmContext, signal: AbortSignal): Promise<{ namespace: string; name: string }[]> {
  const cni = ctx.state.cluster?.cni;
  if (!cni) throw new Error('The cluster preflight found no CNI for Windows nodes; run the join again from the start.');
  const all = await networkingDaemonSets(ctx.opts.kube, signal);
  return [cniWindowsDaemonSet(cni), { namespace: 'kube-system', name: KUBE_PROXY_WINDOWS_DAEMONSET }].map((w) => {
    const found = existingDaemonSet({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: w }, all);
    return found ? { namespace: found.namespace, name: found.name } : w;
  });
}

/** true when every networking pod runs on the node, else what the first one that does not is doing. */
async function networkingPodsState(ctx: KubeadmContext, signal: AbortSignal): Promise<true | string> {
  const node = ctx.state.nodeName as string;
  for (const ds of await daemonSetsToWatch(ctx, signal)) {
    const state = daemonSetPodState(ds.name, node, await podsOfNodeIn(ctx.opts.kube, ds.namespace, node, signal));
    if (state !== true) return state;
  }
  return true;
}

function networkingPodsStep(timeoutMs: number, poll: number): KubeadmStep {
  return {
    id: 'networking-pods',
    title: "Wait for the node's kube-proxy and CNI pods to run",
    preview: {
      check: 'the pods of kube-proxy-windows and the CNI DaemonSet on the node are Running and ready',
      api: [{ verb: 'GET', path: '/api/v1/namespaces/<namespace>/pods?fieldSelector=spec.nodeName=<node>' }],
    },
    check: async (ctx, signal) => ((await networkingPodsState(ctx, signal)) === true ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      await waitFor(
        async () => {
          const s = await networkingPodsState(ctx, signal);
          return s === true ? true : { waiting: s };
        },
        { signal, intervalMs: poll, timeoutMs, report, timeoutMessage: (last) => `After ${Math.round(timeoutMs / 60_000)} min, ${last}.` },
      );
    },
    verify: async (ctx, signal) => networkingPodsState(ctx, signal),
    timeoutMs: timeoutMs + 60_000,
  };
}

/** The node's Windows build: the host's facts, else the Node's label. */
async function nodeBuild(ctx: KubeadmContext, signal: AbortSignal): Promise<number | undefined> {
  if (ctx.state.facts) return ctx.state.facts.build;
  const label = (await nodeOf(ctx, signal))?.metadata.labels?.[BUILD_LABEL];
  const m = /^\d+\.\d+\.(\d+)$/.exec(label ?? '');
  return m ? Number(m[1]) : undefined;
}

function runtimeClassStep(): KubeadmStep {
  const wanted = async (ctx: KubeadmContext, signal: AbortSignal): Promise<Manifest> => {
    const build = await nodeBuild(ctx, signal);
    const rc = build === undefined ? undefined : runtimeClassFor(build);
    if (!rc) throw new Error(`No RuntimeClass is defined for Windows build ${build ?? 'unknown'}.`);
    return rc;
  };
  const example = runtimeClassFor(20348) as Manifest;
  return {
    id: 'runtime-class',
    title: "Create the RuntimeClass of the node's Windows build (windows-2019, windows-2022 or windows-2025)",
    description: 'Handler runhcs-wcow-process, nodeSelector kubernetes.io/os and node.kubernetes.io/windows-build, the os=windows toleration; workloads name it in runtimeClassName.',
    preview: {
      check: 'a RuntimeClass of that name exists with the same handler and build',
      api: [
        {
          ...createCall(example),
          path: objectPaths(example).collection,
          comment: 'Made by kube-windows join: workloads that name it in runtimeClassName run on nodes of this Windows build and tolerate their os=windows taint.',
        },
      ],
      notes: ['shown for a Windows Server 2022 node; the name and build follow the node'],
    },
    check: async (ctx, signal) => {
      const rc = await wanted(ctx, signal);
      const existing = await getObject<RuntimeClassView>(ctx.opts.kube, rc, signal);
      if (!existing) return 'todo';
      return runtimeClassMatches(existing, rc) ? 'done' : { todo: `RuntimeClass ${rc.metadata.name} exists with other settings` };
    },
    apply: async (ctx, signal, report) => {
      const rc = await wanted(ctx, signal);
      const existing = await getObject<RuntimeClassView>(ctx.opts.kube, rc, signal);
      if (existing) {
        // Never replaced: workloads may rely on it. Said, so the user can delete it and run again.
        report(`kept the existing ${runtimeClassDifference(existing, rc)}; delete it and run the join again to have kube-windows create it`);
        return;
      }
      report(`${(await createObject(ctx.opts.kube, rc, signal)) === 'created' ? 'created' : 'kept the existing'} RuntimeClass ${rc.metadata.name}`);
    },
    verify: async (ctx, signal) => ((await getObject(ctx.opts.kube, await wanted(ctx, signal), signal)) ? true : 'the RuntimeClass is missing'),
    retries: 2,
    timeoutMs: 60_000,
  };
}

/**
 * A tiny pod pinned to the node (nanoserver of its build, `cmd /c echo ok`) must succeed; then it is
 * deleted and the node is annotated, so a second run does not probe again.
 */
function probeStep(timeoutMs: number, poll: number): KubeadmStep {
  const manifest = async (ctx: KubeadmContext, signal: AbortSignal): Promise<Manifest> => probePod(ctx.state.nodeName as string, (await nodeBuild(ctx, signal)) ?? 20348);
  const example = probePod('<node>', 20348);
  return {
    id: 'probe',
    title: 'Run a probe pod on the node (nanoserver, cmd /c echo ok), see it succeed, delete it',
    preview: {
      check: `the node has the annotation ${PROBED_ANNOTATION}`,
      api: [
        createCall(example),
        { verb: 'GET', path: objectPaths(example).object },
        { verb: 'DELETE', path: objectPaths(example).object },
        nodeCall('PATCH', '<node>', { metadata: { annotations: { [PROBED_ANNOTATION]: '<time>' } } }),
      ],
    },
    check: async (ctx, signal) => ((await nodeOf(ctx, signal))?.metadata.annotations?.[PROBED_ANNOTATION] ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const { kube } = ctx.opts;
      const pod = await manifest(ctx, signal);
      const node = ctx.state.nodeName as string;
      const left = await getObject<PodView>(kube, pod, signal);
      if (left && left.status?.phase !== 'Succeeded') await deleteObject(kube, pod, signal); // a failed probe from an earlier run
      await createObject(kube, pod, signal);
      report(`started ${pod.metadata.namespace}/${pod.metadata.name} (${JSON.stringify((pod as { spec?: { containers?: { image?: string }[] } }).spec?.containers?.[0]?.image)})`);
      try {
        await waitFor(
          async () => {
            const s = probeState(await getObject<PodView>(kube, pod, signal), node);
            if ('failed' in s) throw new Error(`${s.failed}.`);
            return 'done' in s ? true : s;
          },
          { signal, intervalMs: poll, timeoutMs, report, timeoutMessage: (last) => `After ${Math.round(timeoutMs / 60_000)} min, ${last}.` },
        );
      } finally {
        await deleteObject(kube, pod).catch(() => undefined);
      }
      await annotateNode(kube, node, { [PROBED_ANNOTATION]: new Date().toISOString() }, signal);
      report('the probe printed ok and succeeded');
    },
    verify: async (ctx, signal) => ((await nodeOf(ctx, signal))?.metadata.annotations?.[PROBED_ANNOTATION] ? true : 'the probe did not succeed'),
    timeoutMs: timeoutMs + 60_000,
  };
}

/**
 * The kubelet registers the node with os=windows:NoSchedule (--register-with-taints), so no pod
 * without the toleration lands there first; this step only checks it, and adds the taint to a node
 * that registered before (joined by an earlier version, or without --taint then).
 */
function taintStep(): KubeadmStep {
  const taint: NodeTaint = { ...WINDOWS_TAINT };
  const tainted = (n: NodeObject | undefined): boolean => n !== undefined && hasTaint(n, taint);
  return {
    id: 'taint',
    title: 'Check the node carries os=windows:NoSchedule (set at registration; added to a node registered before)',
    preview: { check: 'the node has the taint (the kubelet registered it with --register-with-taints)', api: [nodeCall('PATCH', '<node>', { spec: { taints: [taint] } })] },
    check: async (ctx, signal) => (tainted(await nodeOf(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal) => {
      const n = await nodeOf(ctx, signal);
      if (!n) throw new Error('The node is gone.');
      await addTaint(ctx.opts.kube, n, taint, signal);
    },
    verify: async (ctx, signal) => (tainted(await nodeOf(ctx, signal)) ? true : 'the taint is missing'),
    retries: 2,
    timeoutMs: 60_000,
  };
}

/** The join as named steps, in order; each checks before it acts, so a second run changes nothing. */
export function buildKubeadmJoinPlan(opts: KubeadmOptions): Plan<KubeadmContext> {
  const poll = opts.pollMs ?? 5000;
  const t: Timeouts = { restart: 20 * 60_000, join: 10 * 60_000, ready: 10 * 60_000, pods: 10 * 60_000, ...opts.timeouts };
  const p = opts.payload;
  const steps: KubeadmStep[] = [
    preflightStep(),
    containersFeatureStep(),
    restartStep(t.restart, poll),
    directoriesStep(),
    containerdArchiveStep(p.containerd),
    containerdUnpackStep(p.containerd.sha256),
    containerdConfigStep(containerdMajor(p.containerd.name)),
    containerdServiceStep(),
    kubeBinariesStep(p),
    kubeletServiceStep(opts),
    joinStep(t.join, poll),
    ...(opts.taint ? [taintStep()] : []),
    networkingStep(opts.planned),
    readyStep<KubeadmContext>(nodeOf, t.ready, poll),
    networkingPodsStep(t.pods, poll),
    ...(opts.runtimeClass ? [runtimeClassStep()] : []),
    probeStep(t.pods, poll),
  ];
  return { id: 'kubeadm-join', title: `Join ${opts.address} with kubeadm`, target: opts.address, steps };
}

export interface KubeadmRemoveOptions {
  kube: KubeClient;
  /** The host, when reachable: kubeadm reset runs there. */
  host?: WindowsHost;
  nodeName: string;
  address: string;
}

export function buildKubeadmRemovePlan(opts: KubeadmRemoveOptions): Plan<KubeadmRemoveOptions> {
  const steps: Step<KubeadmRemoveOptions>[] = [
    {
      id: 'cordon',
      title: `Cordon ${opts.nodeName}`,
      preview: { check: 'the node is unschedulable or gone', api: [cordonCall(opts.nodeName, true)] },
      check: async (o, signal) => {
        const n = await getNode(o.kube, o.nodeName, signal);
        return !n || n.spec?.unschedulable ? 'done' : 'todo';
      },
      apply: async (o, signal) => setCordoned(o.kube, o.nodeName, true, signal),
      verify: async () => true,
      retries: 2,
      timeoutMs: 60_000,
    },
  ];
  if (opts.host) {
    steps.push({
      id: 'kubeadm-reset',
      title: 'Run kubeadm reset on the host and stop kubelet',
      preview: { check: `${LAYOUT.kubeletKubeconfig} is absent`, powershell: [kubeadmReset(LAYOUT.kubeadm).script, removeService('kubelet').script] },
      check: async (o, signal) => ((await (o.host as WindowsHost).run(fileHash(LAYOUT.kubeletKubeconfig), signal)).exists ? 'todo' : 'done'),
      apply: async (o, signal) => {
        const r = await (o.host as WindowsHost).run(kubeadmReset(LAYOUT.kubeadm), signal);
        if (r.exitCode !== 0) throw new Error(`kubeadm reset failed (exit code ${r.exitCode}): ${r.output.trim().split(/\r?\n/).slice(-4).join(' ')}`);
        await (o.host as WindowsHost).run(removeService('kubelet'), signal);
      },
      verify: async () => true,
      retries: 1,
      timeoutMs: 600_000,
    });
  }
  steps.push({
    id: 'delete-node',
    title: `Delete the Node ${opts.nodeName}`,
    preview: { check: 'the Node is gone', api: [{ verb: 'DELETE', path: nodePath(opts.nodeName) }] },
    check: async (o, signal) => ((await getNode(o.kube, o.nodeName, signal)) ? 'todo' : 'done'),
    apply: async (o, signal) => deleteNode(o.kube, o.nodeName, signal),
    verify: async (o, signal) => ((await getNode(o.kube, o.nodeName, signal)) ? 'the Node is still there' : true),
    retries: 2,
    timeoutMs: 60_000,
  });
  return { id: 'kubeadm-remove', title: `Remove ${opts.nodeName} (kubeadm)`, target: opts.nodeName, steps };
}
