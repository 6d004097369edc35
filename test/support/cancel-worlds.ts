// The worlds in which the cancel walks (test/cancel/*-cancel.test.ts) and the silent-host walks
// (test/cancel/dead-host.test.ts) run each long operation, and one run of each as its command runs it:
// the kubeadm join (a kubeadm cluster with Calico on the API emulator), the BYOH join (WMCO installed by
// the plan, through the OLM and WMCO stand-ins), the mirror push (a node with an old hosts.toml tree),
// and the graceful reboot and drain (a node with two evictable pods and a stand-in kubelet). Every run
// takes the host it talks to, so a walk can give one with short keepalives. Test glue only.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildByohJoinPlan, type ByohContext, type ByohOptions, type Resolver } from '../../src/bootstrap/byoh';
import { buildKubeadmJoinPlan, type KubeadmContext } from '../../src/bootstrap/kubeadm';
import { desiredTree, mirrorsApply } from '../../src/bootstrap/mirrors-apply';
import { resolvePayload, type Payload } from '../../src/bootstrap/payload';
import { Secret } from '../../src/bootstrap/plan';
import { buildRebootPlan, type RebootContext, type RebootNode } from '../../src/bootstrap/reboot';
import { schedulingPlanFor } from '../../src/bootstrap/drain';
import { runPlan, type RunEvent, type RunOptions, type RunResult } from '../../src/bootstrap/runner';
import type { NodeObject } from '../../src/cluster/nodes';
import { mirrorEntriesOf, renderHostsToml } from '../../src/core/mirrors/render';
import { containerdConfig } from '../../src/core/windows/kubeadm';
import { LAYOUT } from '../../src/core/windows/layout';
import type { WindowsHost } from '../../src/remote/windows-host';
import { calicoManifest, controlPlaneNode, kubeadmKubeProxy } from './cni-seed';
import type { KubeObject } from './kube-api-emulator';
import { idms, kubeadmCluster, namespace, openshiftClusterConfig, pod, windowsNode, WMCO_NAMESPACE } from './kube-seed';
import { fakeKubeBinary, wireKubeadmJoin } from './kubeadm-wiring';
import { startKubeletStandin } from './kubelet-standin';
import { hostAddress, startRig, type Rig } from './join-rig';
import { startNodeDoubles } from './node-doubles';
import { attachOlmStandin } from './olm-standin';
import { attachWmcoStandin } from './wmco-standin';

type Run = Pick<RunOptions, 'signal' | 'onEvent'>;

/** A world: the rig, and how to stop it with the doubles it runs. */
export interface CancelWorld {
  rig: Rig;
  stop(): Promise<void>;
}

/** Runs `fn` with `host` and closes the host as soon as the run returns, as the CLI and VS Code do. */
async function withHost<T>(host: WindowsHost, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    host.close();
  }
}

// ---------------------------------------------------------------------------------------------
// kubeadm join

/** The kubeadm payload (containerd, kubelet and kubeadm of v1.31.3 as the simulated host reads them). */
export async function kubeadmPayload(): Promise<Payload> {
  const dir = mkdtempSync(join(tmpdir(), 'kw-kubeadm-payload-'));
  writeFileSync(join(dir, 'containerd-1.7.27-windows-amd64.tar.gz'), randomBytes(300_000));
  writeFileSync(join(dir, 'kubelet.exe'), fakeKubeBinary('v1.31.3', 200_000));
  writeFileSync(join(dir, 'kubeadm.exe'), fakeKubeBinary('v1.31.3', 100_000));
  return resolvePayload({ folder: dir });
}

/**
 * A kubeadm cluster with Calico and kube-proxy, its node doubles, and one simulated host (WIN-K0) wired to join it;
 * `containersFeature: 'Disabled'` makes the join enable it and restart the host.
 */
export async function kubeadmWorld(o: { containersFeature: 'Enabled' | 'Disabled' }): Promise<CancelWorld> {
  const rig = await startRig({
    hosts: 1,
    host: () => ({ hostname: 'WIN-K0', containersFeature: o.containersFeature }),
  });
  for (const x of [
    ...kubeadmCluster({ server: rig.emu.url, caPem: rig.caPem }),
    controlPlaneNode(),
    ...kubeadmKubeProxy(rig.emu.url),
    ...calicoManifest(),
  ])
    rig.emu.apply(x);
  wireKubeadmJoin(rig.emu, rig.caPem, rig.sims[0]!, rig.addresses[0] as string);
  const doubles = startNodeDoubles(rig.emu);
  return {
    rig,
    async stop() {
      doubles.stop();
      await rig.stop();
    },
  };
}

/** One kubeadm join as `kube-windows join --via kubeadm` runs it. */
export function runKubeadmJoin(
  w: CancelWorld,
  payload: Payload,
  options: Run,
  host = w.rig.hostFor(0),
): Promise<RunResult> {
  const opts = {
    kube: w.rig.kube,
    host,
    address: w.rig.addresses[0] as string,
    user: w.rig.user,
    payload,
    pollMs: 20,
    caPem: w.rig.caPem,
  };
  return withHost(host, () =>
    runPlan(buildKubeadmJoinPlan(opts), { opts, state: {} } as KubeadmContext, { ...options, backoffMs: 10 }),
  );
}

// ---------------------------------------------------------------------------------------------
// BYOH join

export interface ByohWorld extends CancelWorld {
  resolver: Resolver;
}

/** OpenShift with the hybrid overlay and no WMCO yet (the plan installs it), the stand-ins, one host (WIN-B0). */
export async function byohWorld(): Promise<ByohWorld> {
  const rig = await startRig({
    hosts: 1,
    objects: [
      namespace(WMCO_NAMESPACE, { 'openshift.io/cluster-monitoring': 'true' }),
      ...openshiftClusterConfig({ hybridOverlay: true }),
    ],
    host: () => ({
      hostname: 'WIN-B0',
      domain: 'lab.example.com',
      containersFeature: 'Enabled',
      dns: { 'api-int.test.example.com': ['10.0.0.2'] },
    }),
  });
  // WMCO is not installed: the plan installs it.
  rig.emu.remove('Namespace', WMCO_NAMESPACE);
  const address = rig.addresses[0] as string;
  const olm = attachOlmStandin(rig.emu, { stepMs: 20 });
  const wmco = attachWmcoStandin(rig.emu, {
    hosts: new Map([[address, { hostname: 'WIN-B0', build: '10.0.20348', reverseDns: 'win-b0.lab.example.com' }]]),
    stepMs: 20,
  });
  const resolver: Resolver = {
    lookup4: async (n) => [n],
    reverse: async (ip) => (ip === address ? ['win-b0.lab.example.com'] : []),
  };
  return {
    rig,
    resolver,
    async stop() {
      olm.stop();
      wmco.stop();
      await rig.stop();
    },
  };
}

/** One BYOH join with WMCO installed by the plan and the key Secret created by it. */
export function runByohJoin(w: ByohWorld, options: Run, host = w.rig.hostFor(0)): Promise<RunResult> {
  const opts: ByohOptions = {
    kube: w.rig.kube,
    host,
    address: w.rig.addresses[0] as string,
    user: w.rig.user,
    resolver: w.resolver,
    pollMs: 20,
    timeouts: { node: 15_000, csr: 5000, version: 5000, ready: 5000 },
    installWmco: { approval: 'Automatic' },
    privateKey: { pem: new Secret(readFileSync(w.rig.keyPath, 'utf8')), source: w.rig.keyPath },
  };
  return withHost(host, () =>
    runPlan(buildByohJoinPlan(opts), { opts, state: {} } as ByohContext, { ...options, backoffMs: 10 }),
  );
}

/** The windows-instances entry of the world's host, if any. */
export const byohEntry = (r: Rig): string | undefined =>
  (
    r.emu.get('ConfigMap', 'windows-instances', WMCO_NAMESPACE) as
      (KubeObject & { data?: Record<string, string> }) | undefined
  )?.data?.[r.addresses[0] as string];

// ---------------------------------------------------------------------------------------------
// Mirror push

export const MIRROR_ROOT = LAYOUT.registryHosts;
/** The node's tree before the push, relative to MIRROR_ROOT. */
export const OLD_MIRROR_TREE = { 'quay.io\\hosts.toml': 'server = "https://quay.io/v2"\n' };
export const MIRROR_OBJECTS = [
  idms('mirrors', [{ source: 'docker.io/library', mirrors: ['mirror.example.com/library'] }]),
];
/** The tree the push writes. */
export const NEW_MIRROR_TREE = Object.fromEntries(
  desiredTree(renderHostsToml(mirrorEntriesOf(MIRROR_OBJECTS), { mode: 'ordered' }).files),
);

/** A Windows node (not WMCO-managed) whose host has containerd and the old tree. */
export async function mirrorWorld(): Promise<Rig> {
  return startRig({
    hosts: 1,
    objects: [windowsNode('win-00', { build: '10.0.20348', address: hostAddress(0), unmanaged: true })],
    host: () => ({
      hostname: 'WIN-0',
      services: { containerd: { status: 'Running', binaryPathName: `"${LAYOUT.containerdExe}" --run-service` } },
      files: {
        [LAYOUT.containerdConfig]: containerdConfig(1),
        ...Object.fromEntries(Object.entries(OLD_MIRROR_TREE).map(([p, c]) => [`${MIRROR_ROOT}\\${p}`, c])),
      },
    }),
  });
}

/**
 * One push as `mirrors apply` runs it; its node's run, as the walks read it, from the plan's events and the node's
 * result (what the CLI's table prints is the state: rolled back or not).
 */
export async function pushMirrors(
  r: Rig,
  options: Run,
  hostFor = (): WindowsHost => r.hostFor(0, { retries: 2, backoffMs: 20 }),
): Promise<RunResult> {
  const events: RunEvent[] = [];
  const out = await mirrorsApply({
    kube: r.kube,
    objects: MIRROR_OBJECTS,
    hostFor,
    ...(options.signal ? { signal: options.signal } : {}),
    onEvent: (_t, e) => {
      events.push(e);
      options.onEvent?.(e);
    },
  });
  const node = out.nodes[0]!;
  const end = events.find((e) => e.type === 'plan-end');
  const steps = events.flatMap((e) =>
    e.type === 'step-end' ? [{ id: e.stepId, title: e.stepId, outcome: e.outcome, durationMs: 0, attempts: 1 }] : [],
  );
  const stopped = steps.find((s) => s.outcome === 'cancelled' || s.outcome === 'failed');
  const outcome = end?.type === 'plan-end' ? end.outcome : 'failed';
  return {
    planId: 'mirrors-push',
    outcome: node.status === 'changed' || node.status === 'unchanged' ? 'done' : outcome,
    steps,
    durationMs: 0,
    ...(node.reason ? { error: { stepId: stopped?.id ?? '', message: node.reason } } : {}),
    ...(outcome !== 'done' && stopped
      ? { aftermath: { stoppedAt: { id: stopped.id, title: stopped.title }, changed: false, state: node.reason ?? '' } }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Graceful reboot and drain

export const REBOOT_NODE = 'win-a';

function workload(name: string): KubeObject {
  const p = pod(name, 'default', REBOOT_NODE, { windows: true, labels: { app: 'web' } });
  (p.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-rs`, uid: 'u1', controller: true },
  ];
  return p;
}

/** A Windows node (on AWS: with the metadata route step; else BYOH) with two workload pods, and a stand-in kubelet. */
export async function rebootWorld(aws: boolean): Promise<CancelWorld> {
  const rig = await startRig({
    hosts: 1,
    objects: [
      windowsNode(REBOOT_NODE, { build: '10.0.20348', address: hostAddress(0), byoh: !aws }),
      workload('web-1'),
      workload('web-2'),
    ],
    host: () => ({
      hostname: 'WIN-A',
      services: {
        kubelet: { status: 'Running' },
        containerd: { status: 'Running' },
        'kube-proxy': { status: 'Running' },
      },
    }),
  });
  const kubelet = startKubeletStandin(rig.emu, rig.sims, { tickMs: 15, readyAfterMs: 100 });
  return {
    rig,
    async stop() {
      kubelet.stop();
      await rig.stop();
    },
  };
}

/** One graceful reboot as `kube-windows nodes reboot` runs it. */
export function runReboot(w: CancelWorld, options: Run, host = w.rig.hostFor(0)): Promise<RunResult> {
  const node = w.rig.emu.get('Node', REBOOT_NODE) as unknown as RebootNode;
  const opts = {
    kube: w.rig.kube,
    host,
    node,
    pollMs: 20,
    timeoutMs: 10_000,
    evictionRetryMs: 0,
    drainTimeoutMs: 3000,
  };
  const ctx: RebootContext = { opts, state: {} };
  return withHost(host, () => runPlan(buildRebootPlan(opts), ctx, options));
}

/** One drain as `kube-windows nodes drain` runs it (the cluster only: it never reaches the host). */
export function runDrain(w: CancelWorld, options: Run, kube = w.rig.kube): Promise<RunResult> {
  const node = w.rig.emu.get('Node', REBOOT_NODE) as unknown as NodeObject;
  return schedulingPlanFor('drain', { kube, node, pollMs: 20, evictionRetryMs: 0 }).run(options);
}

export const unschedulable = (r: Rig): boolean =>
  Boolean((r.emu.get('Node', REBOOT_NODE)?.spec as { unschedulable?: boolean }).unschedulable);
export const workloadPodsLeft = (r: Rig): number =>
  r.emu.list('Pod').filter((p) => p.metadata.namespace === 'default').length;
