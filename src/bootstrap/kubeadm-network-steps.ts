// The Windows networking part of a kubeadm join: the DaemonSets of the cluster's CNI for Windows
// (and HostProcess kube-proxy), the wait for their pods on the node, the RuntimeClass of the node's
// build and the probe pod that proves a container runs there. Steps of the plan in kubeadm.ts.

import {
  createCall,
  createObject,
  deleteObject,
  getObject,
  networkingDaemonSets,
  objectPaths,
} from '../cluster/networking';
import { annotateNode, getNode, nodeCall, type NodeObject } from '../cluster/nodes';
import { podsOfNodeIn } from '../cluster/pods';
import type { ClusterEvaluation } from '../core/windows/kubeadm-cluster';
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
import { waitFor } from './follow';
import type { KubeadmContext, KubeadmOptions } from './kubeadm';
import type { Step } from './plan';

type KubeadmStep = Step<KubeadmContext>;

/** The Node of the join, once the preflight knows its name. */
export const nodeOf = (ctx: KubeadmContext, signal: AbortSignal): Promise<NodeObject | undefined> =>
  ctx.state.nodeName ? getNode(ctx.opts.kube, ctx.state.nodeName, signal) : Promise.resolve(undefined);

function networkingInput(
  cluster: ClusterEvaluation | undefined,
  endpoint: string | undefined,
): NetworkingInput | undefined {
  if (!cluster?.cni) return undefined;
  return {
    cni: cluster.cni,
    serverVersion: cluster.serverVersion,
    endpoint: endpoint ?? '<api host>:<port>',
    serviceSubnet: cluster.serviceSubnet,
  };
}

/** What the cluster lacks for Windows networking (read fresh: a second run creates nothing). */
async function networkingNeeds(ctx: KubeadmContext, signal: AbortSignal): Promise<NetworkingChanges> {
  const input = networkingInput(ctx.state.cluster, ctx.state.endpoint);
  if (!input)
    throw new Error('The cluster preflight found no CNI for Windows nodes; run the join again from the start.');
  const desired = windowsNetworkingObjects(input);
  const present = new Set<Manifest>();
  for (const o of desired) if (o.kind !== 'DaemonSet' && (await getObject(ctx.opts.kube, o, signal))) present.add(o);
  return networkingChanges(desired, await networkingDaemonSets(ctx.opts.kube, signal), (o) => present.has(o));
}

const KUBE_PROXY_CONFIG: Manifest = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: KUBE_PROXY_CONFIGMAP, namespace: 'kube-system' },
};

/** What made the Windows networking objects, said above each in the dry run. */
function madeFor(input: NetworkingInput): string {
  const cni = `${input.cni.kind}${input.cni.version ? ` ${input.cni.version}` : ''}`;
  return `Made by kube-windows join for the cluster's ${cni} (found: ${input.cni.via}) and Kubernetes ${input.serverVersion}.`;
}

/**
 * The Windows networking DaemonSets for the cluster's CNI (HostProcess kube-proxy, and Calico or
 * Flannel for Windows with their ConfigMaps), created when missing; what exists is reused.
 */
export function networkingStep(planned: KubeadmOptions['planned']): KubeadmStep {
  const input = networkingInput(planned?.cluster, planned?.endpoint);
  const desired = input ? windowsNetworkingObjects(input) : [];
  return {
    id: 'windows-networking',
    title: 'Create or verify the Windows networking DaemonSets (HostProcess kube-proxy and the CNI for Windows)',
    description:
      'Generated for the CNI the cluster runs, pinned to its versions; a DaemonSet that exists (by name, or running the same thing on Windows nodes) is reused, never duplicated.',
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
      ...(desired.length
        ? {
            notes: ['each object is created only when missing (a POST answered 409 is an existing one, kept as it is)'],
          }
        : {}),
    },
    check: async (ctx, signal) => {
      const needs = await networkingNeeds(ctx, signal);
      return needs.create.length === 0
        ? 'done'
        : {
            todo: `missing: ${needs.create.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`).join(', ')}`,
          };
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
        report(
          `${r === 'created' ? 'created' : 'kept the existing'} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`,
        );
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
async function daemonSetsToWatch(
  ctx: KubeadmContext,
  signal: AbortSignal,
): Promise<{ namespace: string; name: string }[]> {
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

export function networkingPodsStep(timeoutMs: number, poll: number): KubeadmStep {
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
        {
          signal,
          intervalMs: poll,
          timeoutMs,
          report,
          timeoutMessage: (last) => `After ${Math.round(timeoutMs / 60_000)} min, ${last}.`,
        },
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

export function runtimeClassStep(): KubeadmStep {
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
    description:
      'Handler runhcs-wcow-process, nodeSelector kubernetes.io/os and node.kubernetes.io/windows-build, the os=windows toleration; workloads name it in runtimeClassName.',
    preview: {
      check: 'a RuntimeClass of that name exists with the same handler and build',
      api: [
        {
          ...createCall(example),
          path: objectPaths(example).collection,
          comment:
            'Made by kube-windows join: workloads that name it in runtimeClassName run on nodes of this Windows build and tolerate their os=windows taint.',
        },
      ],
      notes: ['shown for a Windows Server 2022 node; the name and build follow the node'],
    },
    check: async (ctx, signal) => {
      const rc = await wanted(ctx, signal);
      const existing = await getObject<RuntimeClassView>(ctx.opts.kube, rc, signal);
      if (!existing) return 'todo';
      return runtimeClassMatches(existing, rc)
        ? 'done'
        : { todo: `RuntimeClass ${rc.metadata.name} exists with other settings` };
    },
    apply: async (ctx, signal, report) => {
      const rc = await wanted(ctx, signal);
      const existing = await getObject<RuntimeClassView>(ctx.opts.kube, rc, signal);
      if (existing) {
        // Never replaced: workloads may rely on it. Said, so the user can delete it and run again.
        report(
          `kept the existing ${runtimeClassDifference(existing, rc)}; delete it and run the join again to have kube-windows create it`,
        );
        return;
      }
      report(
        `${(await createObject(ctx.opts.kube, rc, signal)) === 'created' ? 'created' : 'kept the existing'} RuntimeClass ${rc.metadata.name}`,
      );
    },
    verify: async (ctx, signal) =>
      (await getObject(ctx.opts.kube, await wanted(ctx, signal), signal)) ? true : 'the RuntimeClass is missing',
    retries: 2,
    timeoutMs: 60_000,
  };
}

/**
 * A tiny pod pinned to the node (nanoserver of its build, `cmd /c echo ok`) must succeed; then it is
 * deleted and the node is annotated, so a second run does not probe again.
 */
export function probeStep(timeoutMs: number, poll: number): KubeadmStep {
  const manifest = async (ctx: KubeadmContext, signal: AbortSignal): Promise<Manifest> =>
    probePod(ctx.state.nodeName as string, (await nodeBuild(ctx, signal)) ?? 20348);
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
    check: async (ctx, signal) =>
      (await nodeOf(ctx, signal))?.metadata.annotations?.[PROBED_ANNOTATION] ? 'done' : 'todo',
    apply: async (ctx, signal, report) => {
      const { kube } = ctx.opts;
      const pod = await manifest(ctx, signal);
      const node = ctx.state.nodeName as string;
      const left = await getObject<PodView>(kube, pod, signal);
      if (left && left.status?.phase !== 'Succeeded') await deleteObject(kube, pod, signal); // a failed probe from an earlier run
      await createObject(kube, pod, signal);
      report(
        `started ${pod.metadata.namespace}/${pod.metadata.name} (${JSON.stringify((pod as { spec?: { containers?: { image?: string }[] } }).spec?.containers?.[0]?.image)})`,
      );
      try {
        await waitFor(
          async () => {
            const s = probeState(await getObject<PodView>(kube, pod, signal), node);
            if ('failed' in s) throw new Error(`${s.failed}.`);
            return 'done' in s ? true : s;
          },
          {
            signal,
            intervalMs: poll,
            timeoutMs,
            report,
            timeoutMessage: (last) => `After ${Math.round(timeoutMs / 60_000)} min, ${last}.`,
          },
        );
      } finally {
        await deleteObject(kube, pod).catch(() => undefined);
      }
      await annotateNode(kube, node, { [PROBED_ANNOTATION]: new Date().toISOString() }, signal);
      report('the probe printed ok and succeeded');
    },
    verify: async (ctx, signal) =>
      (await nodeOf(ctx, signal))?.metadata.annotations?.[PROBED_ANNOTATION] ? true : 'the probe did not succeed',
    timeoutMs: timeoutMs + 60_000,
  };
}
