// Joining a Windows host to a kubeadm cluster (sig-windows-tools guides/guide-for-adding-windows-node.md): bootstrap
// token Secret through the API,
// discovery CA hash from the cluster CA, then on the host: the Containers feature (restart and
// resume when needed), containerd with a registry config_path, kubelet and kubeadm, the services,
// `kubeadm join`, Ready, and the os=windows:NoSchedule taint when asked. Every step checks first,
// so a second run changes nothing. The Windows networking steps are in kubeadm-network-steps.ts, the
// removal (cordon, `kubeadm reset` on the host, delete the Node) in kubeadm-remove.ts.

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
  readTextFile,
  restartComputer,
  serviceState,
  startService,
  type HostFacts,
} from '../core/windows/host-ops';
import { restartService } from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';
import {
  bootstrapTokenCall,
  CLUSTER_INFO_CALL,
  clusterInfoKubeconfig,
  createBootstrapToken,
  deleteBootstrapToken,
} from '../cluster/kubeadm';
import {
  addTaint,
  getNode,
  hasTaint,
  nodeCall,
  onWindowsNodeChange,
  type NodeObject,
  type NodeTaint,
} from '../cluster/nodes';
import { DISCOVERY_CALL, isOpenShift } from '../cluster/openshift';
import { waitFor } from './follow';
import { networkingPodsStep, networkingStep, nodeOf, probeStep, runtimeClassStep } from './kubeadm-network-steps';
import { readyStep } from './node-steps';
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
import {
  binaryVersionProblem,
  checkBuildForKubernetes,
  evaluateCluster,
  type ClusterEvaluation,
  type CniChoice,
} from '../core/windows/kubeadm-cluster';
import { LAYOUT } from '../core/windows/layout';
import { CLUSTER_FACTS_CALLS, readClusterFacts } from '../cluster/networking';
import type { Payload, PayloadSource } from './payload';
import { Secret, type Plan, type Step } from './plan';
import {
  blocking,
  findingLine,
  checkBuild,
  checkConflictingRuntime,
  checkContainersFeature,
  checkHostname,
  nodeNameOf,
  ok,
  PreflightError,
  type Finding,
} from './preflight';
import { withKubeadmLeaves } from './kubeadm-leaves';
import { proxyAnnotationStep, proxyEnvironmentStep } from './kubeadm-proxy-steps';

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
  /** An HTTP proxy for containerd and the kubelet (http://[user:password@]host:port). */
  proxy?: string;
  /** More NO_PROXY entries (the cluster's networks, API endpoint and node are always added). */
  noProxy?: string;
}

const KUBEADM_CHOICES = [
  'taint',
  'cni',
  'kubernetesVersion',
  'runtimeClass',
  'planned',
  'kubeReserved',
  'systemReserved',
  'proxy',
  'noProxy',
] as const satisfies readonly (keyof KubeadmChoices)[];

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
  /** The URLs the proxy check reaches (default: the probe image's registry); tests point it at a local one. */
  proxyCheckUrls?: string[];
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
export async function discovery(
  kube: KubeClient,
  caPem: string | undefined,
  signal?: AbortSignal,
): Promise<{ endpoint: string; caHash: string }> {
  return clusterInfoEndpoint(await clusterInfoKubeconfig(kube, signal), kube.server, caPem);
}

/** The options the cluster part of the preflight reads. */
export type ClusterPreflightOptions = Pick<KubeadmOptions, 'kube' | 'caPem' | 'cni' | 'kubernetesVersion' | 'payload'>;

/**
 * The cluster part of the preflight: OpenShift or not, discovery, the control plane, the CNI and its
 * backend, the version skew and containerd's HostProcess support. It only reads, so the dry run runs
 * it too; the decisions (CNI, Kubernetes version) are kept in `state.cluster`.
 */
export async function kubeadmClusterPreflight(
  opts: ClusterPreflightOptions,
  state: KubeadmState,
  signal?: AbortSignal,
): Promise<Finding[]> {
  const { kube } = opts;
  const out: Finding[] = [];
  if (await isOpenShift(kube, signal)) {
    out.push({
      id: 'cluster-kind',
      severity: 'error',
      title: 'This is an OpenShift/OKD cluster: Windows nodes join it through WMCO',
      fix: 'Use the BYOH path (--via byoh).',
    });
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
  out.push(
    checkBuild(facts, false),
    checkHostname(facts),
    checkContainersFeature(facts, 'kubeadm'),
    ...checkConflictingRuntime(facts, 'kubeadm'),
  );
  if (ctx.state.cluster) out.push(checkBuildForKubernetes(facts.build, ctx.state.cluster.kubernetesVersion));
  if (!facts.isAdministrator)
    out.push({
      id: 'admin',
      severity: 'error',
      title: 'The SSH user is not an administrator on the host',
      fix: 'Installing services needs an administrator account.',
    });
  const existing = await getNode(kube, ctx.state.nodeName, signal);
  if (existing)
    out.push({
      id: 'existing-node',
      severity: 'info',
      title: `A Node named ${ctx.state.nodeName} already exists; the join steps will be skipped if it is this host`,
    });
  ctx.state.findings = out;
  return out;
}

function hostStep(s: KubeadmStep): KubeadmStep {
  // Host steps survive a lost connection: WindowsHost reconnects, and the runner retries once more.
  return { retries: 1, timeoutMs: 600_000, ...s };
}

function putOrDownload(
  ctx: KubeadmContext,
  source: PayloadSource,
  path: string,
  signal: AbortSignal,
  report: (m: string, f?: number) => void,
): Promise<unknown> {
  if (source.kind === 'url') return ctx.opts.host.run(downloadFile(source.url, path, source.sha256), signal);
  return ctx.opts.host.put({ path: source.path }, path, signal, (sent, total) =>
    report(
      `${source.name}: ${Math.round(sent / 1048576)} of ${Math.round(total / 1048576)} MB`,
      total ? sent / total : undefined,
    ),
  );
}

function previewOfPut(source: PayloadSource, path: string): { powershell: string[]; notes: string[] } {
  if (source.kind === 'url') return { powershell: [downloadFile(source.url, path, source.sha256).script], notes: [] };
  return {
    powershell: [fileHash(path).script],
    notes: [
      `upload ${source.path} (${source.bytes} bytes, SHA-256 ${source.sha256}) over SFTP to ${path}.kw-<random>.tmp, check its SHA-256 with Get-FileHash, move it to ${path}`,
    ],
  };
}

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
    preview: {
      check: 'always runs',
      powershell: [hostFacts().script],
      api: [DISCOVERY_CALL, CLUSTER_INFO_CALL, ...CLUSTER_FACTS_CALLS, nodeCall('GET', '<node>')],
    },
    check: async () => 'todo',
    apply: async (ctx, signal, report) => {
      const findings = await kubeadmPreflight(ctx, signal);
      for (const f of findings) report(findingLine(f));
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
    preview: {
      check: 'the Containers feature is Enabled (or enabled and waiting for a restart)',
      powershell: [enableContainersFeature().script],
    },
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
    preview: {
      check: 'ensure-directories creates only what is missing',
      powershell: [ensureDirectories(LAYOUT.directories).script],
    },
    check: async () => 'todo',
    apply: async (ctx, signal, report) => {
      const r = await ctx.opts.host.run(ensureDirectories(LAYOUT.directories), signal);
      report(r.created.length ? `created ${r.created.join(', ')}` : 'all present');
    },
    verify: async () => true,
  });
}

function containerdArchiveStep(source: PayloadSource): KubeadmStep {
  const hashOk = async (ctx: KubeadmContext, signal: AbortSignal) =>
    (await ctx.opts.host.run(fileHash(CONTAINERD_ARCHIVE), signal)).sha256 === source.sha256;
  return hostStep({
    id: 'containerd-archive',
    title: `Put ${source.name} on the host`,
    preview: {
      check: `${CONTAINERD_ARCHIVE} has SHA-256 ${source.sha256}`,
      ...previewOfPut(source, CONTAINERD_ARCHIVE),
    },
    check: async (ctx, signal) => ((await hashOk(ctx, signal)) ? 'done' : 'todo'),
    apply: (ctx, signal, report) =>
      putOrDownload(ctx, source, CONTAINERD_ARCHIVE, signal, report).then(() => undefined),
    verify: async (ctx, signal) => ((await hashOk(ctx, signal)) ? true : 'hash differs'),
  });
}

function containerdUnpackStep(sha256: string): KubeadmStep {
  const unpack = expandArchive(CONTAINERD_ARCHIVE, LAYOUT.containerdDir, sha256, 1);
  return hostStep({
    id: 'containerd-unpack',
    title: `Unpack containerd into ${LAYOUT.containerdDir}`,
    preview: { check: `${CONTAINERD_MARKER} records SHA-256 ${sha256}`, powershell: [unpack.script] },
    check: async (ctx, signal) =>
      (await ctx.opts.host.run(readTextFile(CONTAINERD_MARKER), signal)).text.trim() === sha256 ? 'done' : 'todo',
    apply: async (ctx, signal) => void (await ctx.opts.host.run(unpack, signal)),
    verify: async (ctx, signal) =>
      (await ctx.opts.host.run(fileHash(LAYOUT.containerdExe), signal)).exists
        ? true
        : `${LAYOUT.containerdExe} is missing after unpacking`,
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
    preview: {
      check: `${LAYOUT.containerdConfig} has the expected content`,
      powershell: [fileHash(LAYOUT.containerdConfig).script],
      notes: [`content:\n${config}`],
    },
    check: async (ctx, signal) =>
      (await ctx.opts.host.run(fileHash(LAYOUT.containerdConfig), signal)).sha256 === digest ? 'done' : 'todo',
    apply: async (ctx, signal) => void (await ctx.opts.host.put({ data: bytes }, LAYOUT.containerdConfig, signal)),
    verify: async () => true,
  });
}

function containerdServiceStep(): KubeadmStep {
  const spec = containerdService();
  return hostStep({
    id: 'containerd-service',
    title: 'Register and start the containerd service',
    preview: {
      check: 'service containerd exists with this command line and is Running',
      powershell: [ensureService(spec).script, startService(spec.name).script],
    },
    check: async (ctx, signal) =>
      serviceInPlace(await ctx.opts.host.run(serviceState(spec.name), signal), spec, true) ? 'done' : 'todo',
    apply: async (ctx, signal) => {
      await ctx.opts.host.run(ensureService(spec), signal);
      await ctx.opts.host.run(startService(spec.name), signal);
    },
    verify: async (ctx, signal) =>
      (await ctx.opts.host.run(serviceState(spec.name), signal)).status === 'Running'
        ? true
        : 'containerd is not running',
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
      powershell: [
        ...kubelet.powershell,
        ...kubeadm.powershell,
        executableVersion(LAYOUT.kubelet, ['--version']).script,
        executableVersion(LAYOUT.kubeadm, ['version', '-o', 'short']).script,
      ],
      notes: [...kubelet.notes, ...kubeadm.notes],
    },
    check: async (ctx, signal) => {
      const [a, b] = [
        await ctx.opts.host.run(fileHash(LAYOUT.kubelet), signal),
        await ctx.opts.host.run(fileHash(LAYOUT.kubeadm), signal),
      ];
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
    title:
      'Register the kubelet service (started by kubeadm join) with the node IP, reservations, eviction thresholds and taints, and open port 10250',
    description: 'A kubelet already running with other flags (a node joined before) is restarted to take the new ones.',
    preview: {
      check: 'service kubelet exists with the expected command line',
      powershell: [
        ensureService(previewSpec).script,
        ensureFirewallRule('kubelet', 10250).script,
        restartService('kubelet').script,
      ],
    },
    check: async (ctx, signal) =>
      serviceInPlace(await ctx.opts.host.run(serviceState('kubelet'), signal), spec(ctx), false) ? 'done' : 'todo',
    apply: async (ctx, signal, report) => {
      const before = await ctx.opts.host.run(serviceState('kubelet'), signal);
      const r = await ctx.opts.host.run(ensureService(spec(ctx)), signal);
      await ctx.opts.host.run(ensureFirewallRule('kubelet', 10250), signal);
      if (r.changed && before.status === 'Running') {
        report('the kubelet runs with other flags: restarting it');
        await ctx.opts.host.run(restartService('kubelet'), signal);
      }
    },
    verify: async (ctx, signal) =>
      (await ctx.opts.host.run(serviceState('kubelet'), signal)).exists ? true : 'the kubelet service is missing',
  });
}

function joinStep(joinMs: number, poll: number): KubeadmStep {
  return {
    id: 'join',
    title: 'Create a bootstrap token and run kubeadm join',
    description:
      'The token Secret (kube-system/bootstrap-token-<id>) expires by itself and is deleted once the node has registered.',
    preview: {
      check: 'a Node with this name is registered',
      api: [bootstrapTokenCall(bootstrapTokenSecret('<id>', '<secret>', new Date(0), 'kube-windows join'))],
      powershell: [
        kubeadmJoin({
          kubeadmPath: LAYOUT.kubeadm,
          apiServerEndpoint: '<endpoint>',
          token: '<token>',
          caCertHash: 'sha256:<ca hash>',
          nodeName: NODE_PLACEHOLDER,
        }).script,
      ],
    },
    check: async (ctx, signal) => ((await nodeOf(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const { kube, host } = ctx.opts;
      if (!ctx.state.endpoint || !ctx.state.caHash)
        Object.assign(ctx.state, await discovery(kube, ctx.opts.caPem, signal));
      const tok = newBootstrapToken();
      const expires = new Date(Date.now() + (ctx.opts.tokenTtlMs ?? 3_600_000));
      await createBootstrapToken(
        kube,
        bootstrapTokenSecret(tok.id, tok.secret, expires, `kube-windows join of ${ctx.opts.address}`),
        signal,
      );
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
        await waitFor(
          async () => ((await nodeOf(ctx, signal)) ? true : { waiting: 'the Node has not registered yet' }),
          {
            signal,
            intervalMs: Math.min(poll, 2000),
            timeoutMs: joinMs,
            report,
            wake: (poke) => onWindowsNodeChange(kube, poke),
            timeoutMessage: () =>
              `kubeadm join ran, but no Node ${ctx.state.nodeName} registered within ${Math.round(joinMs / 60_000)} min: look at the kubelet service on the host.`,
          },
        );
      } finally {
        await deleteBootstrapToken(kube, tok.id);
      }
    },
    verify: async (ctx, signal) => ((await nodeOf(ctx, signal)) ? true : 'no Node'),
    timeoutMs: joinMs + 120_000,
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
    preview: {
      check: 'the node has the taint (the kubelet registered it with --register-with-taints)',
      api: [nodeCall('PATCH', '<node>', { spec: { taints: [taint] } })],
    },
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
  const t: Timeouts = {
    restart: 20 * 60_000,
    join: 10 * 60_000,
    ready: 10 * 60_000,
    pods: 10 * 60_000,
    ...opts.timeouts,
  };
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
    ...(opts.proxy ? [proxyEnvironmentStep()] : []),
    joinStep(t.join, poll),
    ...(opts.taint ? [taintStep()] : []),
    ...(opts.proxy ? [proxyAnnotationStep()] : []),
    networkingStep(opts.planned),
    readyStep<KubeadmContext>(nodeOf, t.ready, poll, (ctx) => (poke) => onWindowsNodeChange(ctx.opts.kube, poke)),
    networkingPodsStep(t.pods, poll),
    ...(opts.runtimeClass ? [runtimeClassStep()] : []),
    probeStep(t.pods, poll),
  ];
  return {
    id: 'kubeadm-join',
    title: `Join ${opts.address} with kubeadm`,
    target: opts.address,
    steps: withKubeadmLeaves(steps),
  };
}
