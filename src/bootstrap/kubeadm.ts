// Joining a Windows host to a kubeadm cluster (reference §5): bootstrap token Secret through the API,
// discovery CA hash from the cluster CA, then on the host: the Containers feature (restart and
// resume when needed), containerd with a registry config_path, kubelet and kubeadm, the services,
// `kubeadm join`, Ready, and the os=windows:NoSchedule taint when asked. Every step checks first,
// so a second run changes nothing. Removal: cordon and delete the Node, `kubeadm reset` on the host.

import { createHash } from 'node:crypto';
import { load } from 'js-yaml';
import type { KubeClient } from '../cluster/client';
import {
  downloadFile,
  enableContainersFeature,
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
import type { WindowsHost } from '../remote/windows-host';
import { getNode, getOrUndefined, isOpenShift, type NodeObject } from './cluster-api';
import { readyStep } from './byoh';
import { waitFor } from './follow';
import { bootstrapTokenSecret, caCertHash, containerdConfig, containerdMajor, containerdServiceCommand, kubeletServiceCommand, LAYOUT, newBootstrapToken } from './kubeadm-files';
import type { Payload, PayloadSource } from './payload';
import { Secret, type Plan, type Step } from './plan';
import { blocking, checkBuild, checkConflictingRuntime, checkContainersFeature, checkHostname, nodeNameOf, ok, PreflightError, type Finding } from './preflight';

export interface KubeadmOptions {
  kube: KubeClient;
  host: WindowsHost;
  address: string;
  user: string;
  payload: Payload;
  /** Add the os=windows:NoSchedule taint to the node. */
  taint?: boolean;
  /** Lifetime of the bootstrap token (default 1 h); it is deleted once the node has joined. */
  tokenTtlMs?: number;
  /** The cluster CA (PEM) when kube-public/cluster-info is not readable; from the kubeconfig. */
  caPem?: string;
  pollMs?: number;
  timeouts?: Partial<Record<'restart' | 'join' | 'ready', number>>;
}

export interface KubeadmState {
  facts?: HostFacts;
  nodeName?: string;
  endpoint?: string;
  caHash?: string;
  token?: Secret;
  tokenId?: string;
  findings?: Finding[];
}

export interface KubeadmContext {
  opts: KubeadmOptions;
  state: KubeadmState;
}

const TAINT = { key: 'os', value: 'windows', effect: 'NoSchedule' };
const ARCHIVE_PATH = `${LAYOUT.payload}\\containerd.tar.gz`;
const MARKER = `${LAYOUT.containerdDir}\\.kube-windows-archive.sha256`;

/** Reads kube-public/cluster-info (what `kubeadm join` discovers): API endpoint and CA hash. */
export async function discovery(kube: KubeClient, caPem: string | undefined, signal?: AbortSignal): Promise<{ endpoint: string; caHash: string }> {
  const cm = await getOrUndefined<{ data?: { kubeconfig?: string } }>(kube, '/api/v1/namespaces/kube-public/configmaps/cluster-info', signal);
  let server = kube.server;
  let ca = caPem;
  if (cm?.data?.kubeconfig) {
    const doc = load(cm.data.kubeconfig) as { clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[] } | undefined;
    const cluster = doc?.clusters?.[0]?.cluster;
    if (cluster?.server) server = cluster.server;
    if (cluster?.['certificate-authority-data']) ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  }
  if (!ca)
    throw new Error(
      'The cluster CA is unknown: kube-public/cluster-info is missing and the kubeconfig has no certificate-authority-data. Create cluster-info (kubeadm init phase bootstrap-token) or use a kubeconfig with the CA.',
    );
  const url = new URL(server);
  return { endpoint: `${url.hostname}:${url.port || '443'}`, caHash: caCertHash(ca) };
}

export async function kubeadmPreflight(ctx: KubeadmContext, signal?: AbortSignal): Promise<Finding[]> {
  const { kube, host } = ctx.opts;
  const out: Finding[] = [];
  if (await isOpenShift(kube, signal)) {
    out.push({ id: 'cluster-kind', severity: 'error', title: 'This is an OpenShift/OKD cluster: Windows nodes join it through WMCO', fix: 'Use the BYOH path (--via byoh).' });
  }
  try {
    const d = await discovery(kube, ctx.opts.caPem, signal);
    ctx.state.endpoint = d.endpoint;
    ctx.state.caHash = d.caHash;
    out.push(ok('discovery', `API endpoint ${d.endpoint}, CA ${d.caHash.slice(0, 19)}…`));
  } catch (err) {
    out.push({ id: 'discovery', severity: 'error', title: (err as Error).message });
  }
  const facts = await host.run(hostFacts(), signal);
  ctx.state.facts = facts;
  ctx.state.nodeName = nodeNameOf(facts.hostname);
  out.push(checkBuild(facts, false), checkHostname(facts), checkContainersFeature(facts, 'kubeadm'), ...checkConflictingRuntime(facts, 'kubeadm'));
  if (!facts.isAdministrator) out.push({ id: 'admin', severity: 'error', title: 'The SSH user is not an administrator on the host', fix: 'Installing services needs an administrator account.' });
  const existing = await getNode(kube, ctx.state.nodeName, signal);
  if (existing) out.push({ id: 'existing-node', severity: 'info', title: `A Node named ${ctx.state.nodeName} already exists; the join steps will be skipped if it is this host` });
  ctx.state.findings = out;
  return out;
}

function hostStep(s: Step<KubeadmContext>): Step<KubeadmContext> {
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

export function buildKubeadmJoinPlan(opts: KubeadmOptions): Plan<KubeadmContext> {
  const poll = opts.pollMs ?? 5000;
  const t = { restart: 20 * 60_000, join: 10 * 60_000, ready: 10 * 60_000, ...opts.timeouts };
  const p = opts.payload;
  const major = containerdMajor(p.containerd.name);
  const config = containerdConfig(major);
  const configBytes = new TextEncoder().encode(config);
  const node = (ctx: KubeadmContext, signal: AbortSignal): Promise<NodeObject | undefined> => (ctx.state.nodeName ? getNode(ctx.opts.kube, ctx.state.nodeName, signal) : Promise.resolve(undefined));
  const containerdSvc = {
    name: 'containerd',
    binaryPathName: containerdServiceCommand(),
    displayName: 'containerd',
    description: 'containerd container runtime (kube-windows)',
    dependsOn: [] as string[],
  };

  const steps: Step<KubeadmContext>[] = [
    {
      id: 'preflight',
      title: 'Check the cluster and the host',
      preview: {
        check: 'always runs',
        powershell: [hostFacts().script],
        api: [
          { verb: 'GET', path: '/apis' },
          { verb: 'GET', path: '/api/v1/namespaces/kube-public/configmaps/cluster-info' },
          { verb: 'GET', path: '/api/v1/nodes/<node>' },
        ],
      },
      check: async () => 'todo',
      apply: async (ctx, signal, report) => {
        const findings = await kubeadmPreflight(ctx, signal);
        for (const f of findings) report(`${f.severity === 'error' ? '✗' : f.severity === 'warning' ? '!' : '✓'} ${f.title}${f.fix ? ` — ${f.fix}` : ''}`);
        if (blocking(findings).length > 0) throw new PreflightError(findings);
      },
      verify: async () => true,
      timeoutMs: 180_000,
    },
    hostStep({
      id: 'containers-feature',
      title: 'Enable the Containers feature',
      preview: { check: 'the Containers feature is Enabled (or enabled and waiting for a restart)', powershell: [enableContainersFeature().script] },
      check: async (ctx, signal) => {
        const f = await ctx.opts.host.run(hostFacts(), signal);
        ctx.state.facts = f;
        return f.containersFeature === 'Enabled' || f.containersFeature === 'EnablePending' ? 'done' : 'todo';
      },
      apply: async (ctx, signal, report) => {
        const r = await ctx.opts.host.run(enableContainersFeature(), signal);
        if (r.restartNeeded) report('the host must restart to finish enabling Containers');
      },
      verify: async (ctx, signal) => {
        const f = await ctx.opts.host.run(hostFacts(), signal);
        ctx.state.facts = f;
        return f.containersFeature === 'Enabled' || f.containersFeature === 'EnablePending' ? true : `the feature is ${f.containersFeature}`;
      },
    }),
    {
      id: 'restart',
      title: 'Restart the host if Windows asks for it, and wait for it to come back',
      description: 'The plan continues after the restart; if it is interrupted, running it again resumes here.',
      preview: { check: 'no restart is pending and Containers is Enabled', powershell: [restartComputer().script] },
      check: async (ctx, signal) => {
        const f = await ctx.opts.host.run(hostFacts(), signal);
        ctx.state.facts = f;
        return !f.rebootPending && f.containersFeature === 'Enabled' ? 'done' : { todo: f.rebootPending ? 'a restart is pending' : `Containers is ${f.containersFeature}` };
      },
      apply: async (ctx, signal, report) => {
        await ctx.opts.host.run(restartComputer(), signal);
        report('restarting the host');
        await ctx.opts.host.waitForRestart(signal, t.restart, Math.min(2000, poll));
        report('the host is back');
      },
      verify: async (ctx, signal) => {
        const f = await ctx.opts.host.run(hostFacts(), signal);
        ctx.state.facts = f;
        return f.containersFeature === 'Enabled' ? true : `after the restart Containers is ${f.containersFeature}`;
      },
      timeoutMs: t.restart + 120_000,
    },
    hostStep({
      id: 'directories',
      title: 'Create the node directories',
      preview: { check: 'ensure-directories creates only what is missing', powershell: [ensureDirectories(LAYOUT.directories).script] },
      check: async () => 'todo',
      apply: async (ctx, signal, report) => {
        const r = await ctx.opts.host.run(ensureDirectories(LAYOUT.directories), signal);
        report(r.created.length ? `created ${r.created.join(', ')}` : 'all present');
      },
      verify: async () => true,
    }),
    hostStep({
      id: 'containerd-archive',
      title: `Put ${p.containerd.name} on the host`,
      preview: { check: `${ARCHIVE_PATH} has SHA-256 ${p.containerd.sha256}`, ...previewOfPut(p.containerd, ARCHIVE_PATH) },
      check: async (ctx, signal) => ((await ctx.opts.host.run(fileHash(ARCHIVE_PATH), signal)).sha256 === p.containerd.sha256 ? 'done' : 'todo'),
      apply: (ctx, signal, report) => putOrDownload(ctx, p.containerd, ARCHIVE_PATH, signal, report).then(() => undefined),
      verify: async (ctx, signal) => ((await ctx.opts.host.run(fileHash(ARCHIVE_PATH), signal)).sha256 === p.containerd.sha256 ? true : 'hash differs'),
    }),
    hostStep({
      id: 'containerd-unpack',
      title: `Unpack containerd into ${LAYOUT.containerdDir}`,
      preview: { check: `${MARKER} records SHA-256 ${p.containerd.sha256}`, powershell: [expandArchive(ARCHIVE_PATH, LAYOUT.containerdDir, p.containerd.sha256, 1).script] },
      check: async (ctx, signal) => ((await ctx.opts.host.run(readTextFile(MARKER), signal)).text.trim() === p.containerd.sha256 ? 'done' : 'todo'),
      apply: async (ctx, signal) => void (await ctx.opts.host.run(expandArchive(ARCHIVE_PATH, LAYOUT.containerdDir, p.containerd.sha256, 1), signal)),
      verify: async (ctx, signal) => ((await ctx.opts.host.run(fileHash(LAYOUT.containerdExe), signal)).exists ? true : `${LAYOUT.containerdExe} is missing after unpacking`),
    }),
    hostStep({
      id: 'containerd-config',
      title: `Write containerd's config (registry config_path ${LAYOUT.registryHosts})`,
      description: `containerd ${major}.x layout; registry mirrors go in ${LAYOUT.registryHosts}\\<registry>\\hosts.toml.`,
      preview: { check: `${LAYOUT.containerdConfig} has the expected content`, powershell: [fileHash(LAYOUT.containerdConfig).script], notes: [`content:\n${config}`] },
      check: async (ctx, signal) => ((await ctx.opts.host.run(fileHash(LAYOUT.containerdConfig), signal)).sha256 === sha256(configBytes) ? 'done' : 'todo'),
      apply: async (ctx, signal) => void (await ctx.opts.host.put({ data: configBytes }, LAYOUT.containerdConfig, signal)),
      verify: async () => true,
    }),
    hostStep({
      id: 'containerd-service',
      title: 'Register and start the containerd service',
      preview: { check: 'service containerd exists with this command line and is Running', powershell: [ensureService(containerdSvc).script, startService('containerd').script] },
      check: async (ctx, signal) => {
        const s = await ctx.opts.host.run(serviceState('containerd'), signal);
        return s.exists && s.binaryPathName === containerdSvc.binaryPathName && s.status === 'Running' ? 'done' : 'todo';
      },
      apply: async (ctx, signal) => {
        await ctx.opts.host.run(ensureService(containerdSvc), signal);
        await ctx.opts.host.run(startService('containerd'), signal);
      },
      verify: async (ctx, signal) => ((await ctx.opts.host.run(serviceState('containerd'), signal)).status === 'Running' ? true : 'containerd is not running'),
    }),
    hostStep({
      id: 'kube-binaries',
      title: 'Put kubelet.exe and kubeadm.exe in C:\\k',
      preview: {
        check: 'both files have the expected SHA-256',
        powershell: [...previewOfPut(p.kubelet, LAYOUT.kubelet).powershell, ...previewOfPut(p.kubeadm, LAYOUT.kubeadm).powershell],
        notes: [...previewOfPut(p.kubelet, LAYOUT.kubelet).notes, ...previewOfPut(p.kubeadm, LAYOUT.kubeadm).notes],
      },
      check: async (ctx, signal) => {
        const [a, b] = [await ctx.opts.host.run(fileHash(LAYOUT.kubelet), signal), await ctx.opts.host.run(fileHash(LAYOUT.kubeadm), signal)];
        return a.sha256 === p.kubelet.sha256 && b.sha256 === p.kubeadm.sha256 ? 'done' : 'todo';
      },
      apply: async (ctx, signal, report) => {
        await putOrDownload(ctx, p.kubelet, LAYOUT.kubelet, signal, report);
        await putOrDownload(ctx, p.kubeadm, LAYOUT.kubeadm, signal, report);
      },
      verify: async () => true,
    }),
    hostStep({
      id: 'kubelet-service',
      title: 'Register the kubelet service (started by kubeadm join) and open port 10250',
      preview: {
        check: 'service kubelet exists with the expected command line',
        powershell: [
          ensureService({ name: 'kubelet', binaryPathName: kubeletServiceCommand('<node>'), displayName: 'kubelet', description: 'Kubernetes node agent (kube-windows)', dependsOn: ['containerd'] })
            .script,
          ensureFirewallRule('kubelet', 10250).script,
        ],
      },
      check: async (ctx, signal) => {
        const s = await ctx.opts.host.run(serviceState('kubelet'), signal);
        return s.exists && s.binaryPathName === kubeletServiceCommand(ctx.state.nodeName as string) ? 'done' : 'todo';
      },
      apply: async (ctx, signal) => {
        await ctx.opts.host.run(
          ensureService({
            name: 'kubelet',
            binaryPathName: kubeletServiceCommand(ctx.state.nodeName as string),
            displayName: 'kubelet',
            description: 'Kubernetes node agent (kube-windows)',
            dependsOn: ['containerd'],
          }),
          signal,
        );
        await ctx.opts.host.run(ensureFirewallRule('kubelet', 10250), signal);
      },
      verify: async (ctx, signal) => ((await ctx.opts.host.run(serviceState('kubelet'), signal)).exists ? true : 'the kubelet service is missing'),
    }),
    {
      id: 'join',
      title: 'Create a bootstrap token and run kubeadm join',
      description: 'The token Secret (kube-system/bootstrap-token-<id>) expires by itself and is deleted once the node has registered.',
      preview: {
        check: 'a Node with this name is registered',
        api: [{ verb: 'POST', path: '/api/v1/namespaces/kube-system/secrets', body: bootstrapTokenSecret('<id>', '<secret>', new Date(0), 'kube-windows join') }],
        powershell: [kubeadmJoin({ kubeadmPath: LAYOUT.kubeadm, apiServerEndpoint: '<endpoint>', token: '<token>', caCertHash: 'sha256:<ca hash>', nodeName: '<node>' }).script],
      },
      check: async (ctx, signal) => ((await node(ctx, signal)) ? 'done' : 'todo'),
      apply: async (ctx, signal, report) => {
        const { kube, host } = ctx.opts;
        if (!ctx.state.endpoint || !ctx.state.caHash) Object.assign(ctx.state, await discovery(kube, ctx.opts.caPem, signal));
        const tok = newBootstrapToken();
        const expires = new Date(Date.now() + (ctx.opts.tokenTtlMs ?? 3_600_000));
        await kube.create('/api/v1/namespaces/kube-system/secrets', bootstrapTokenSecret(tok.id, tok.secret, expires, `kube-windows join of ${ctx.opts.address}`), signal);
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
          if (r.exitCode !== 0) {
            const output = r.output.split(tok.token).join('•••').trim().split(/\r?\n/).slice(-8).join('\n');
            const hint = /already exists/.test(output) ? ' The host has been joined before (maybe to another cluster): remove the node (kubeadm reset) and run the join again.' : '';
            throw new Error(`kubeadm join failed (exit code ${r.exitCode}):\n${output}${hint}`);
          }
          await waitFor(async () => ((await node(ctx, signal)) ? true : { waiting: 'the Node has not registered yet' }), {
            signal,
            intervalMs: Math.min(poll, 2000),
            timeoutMs: t.join,
            report,
            timeoutMessage: () => `kubeadm join ran, but no Node ${ctx.state.nodeName} registered within ${Math.round(t.join / 60_000)} min: look at the kubelet service on the host.`,
          });
        } finally {
          await kube.delete(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${tok.id}`).catch(() => undefined);
        }
      },
      verify: async (ctx, signal) => ((await node(ctx, signal)) ? true : 'no Node'),
      timeoutMs: t.join + 120_000,
    },
    readyStep<KubeadmContext>(node, t.ready, poll),
  ];

  if (opts.taint) {
    steps.push({
      id: 'taint',
      title: 'Taint the node os=windows:NoSchedule',
      preview: { check: 'the node has the taint', api: [{ verb: 'PATCH', path: '/api/v1/nodes/<node>', body: { spec: { taints: [TAINT] } } }] },
      check: async (ctx, signal) => (hasTaint(await node(ctx, signal)) ? 'done' : 'todo'),
      apply: async (ctx, signal) => {
        const n = await node(ctx, signal);
        if (!n) throw new Error('The node is gone.');
        // Taints are unique by key and effect (the API server refuses a second os:NoSchedule): one
        // with another value is replaced, as `kubectl taint --overwrite` does.
        const others = (n.spec?.taints ?? []).filter((x) => !(x.key === TAINT.key && x.effect === TAINT.effect));
        await ctx.opts.kube.patch(`/api/v1/nodes/${encodeURIComponent(n.metadata.name)}`, { spec: { taints: [...others, TAINT] } }, 'merge', signal);
      },
      verify: async (ctx, signal) => (hasTaint(await node(ctx, signal)) ? true : 'the taint is missing'),
      retries: 2,
      timeoutMs: 60_000,
    });
  }
  return { id: 'kubeadm-join', title: `Join ${opts.address} with kubeadm`, target: opts.address, steps };
}

function hasTaint(n: NodeObject | undefined): boolean {
  return (n?.spec?.taints ?? []).some((x) => x.key === TAINT.key && x.value === TAINT.value && x.effect === TAINT.effect);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface KubeadmRemoveOptions {
  kube: KubeClient;
  /** The host, when reachable: kubeadm reset runs there. */
  host?: WindowsHost;
  nodeName: string;
  address: string;
}

export function buildKubeadmRemovePlan(opts: KubeadmRemoveOptions): Plan<KubeadmRemoveOptions> {
  const path = `/api/v1/nodes/${encodeURIComponent(opts.nodeName)}`;
  const steps: Step<KubeadmRemoveOptions>[] = [
    {
      id: 'cordon',
      title: `Cordon ${opts.nodeName}`,
      preview: { check: 'the node is unschedulable or gone', api: [{ verb: 'PATCH', path, body: { spec: { unschedulable: true } } }] },
      check: async (o, signal) => {
        const n = await getNode(o.kube, o.nodeName, signal);
        return !n || n.spec?.unschedulable ? 'done' : 'todo';
      },
      apply: async (o, signal) => void (await o.kube.patch(path, { spec: { unschedulable: true } }, 'merge', signal)),
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
    preview: { check: 'the Node is gone', api: [{ verb: 'DELETE', path }] },
    check: async (o, signal) => ((await getNode(o.kube, o.nodeName, signal)) ? 'todo' : 'done'),
    apply: async (o, signal) => o.kube.delete(path, signal),
    verify: async (o, signal) => ((await getNode(o.kube, o.nodeName, signal)) ? 'the Node is still there' : true),
    retries: 2,
    timeoutMs: 60_000,
  });
  return { id: 'kubeadm-remove', title: `Remove ${opts.nodeName} (kubeadm)`, target: opts.nodeName, steps };
}
