// "Reboot a Windows node gracefully" as a plan, in the order of the OKD procedure "Rebooting a node
// gracefully": cordon; drain through the Eviction API (PodDisruptionBudgets honoured, DaemonSet and
// mirror pods left alone, emptyDir data deleted only with consent, the disable-eviction path only
// when the caller says the user confirmed it); Restart-Computer over SSH; wait for NotReady; on AWS
// re-add the route to the instance metadata endpoint (169.254.169.254) through the default gateway,
// without which the node does not return to Ready; wait for Ready; uncordon; verify.
//
// Resumable: the host's boot time before the restart is kept in a node annotation, so a re-run (in
// this process or another) knows whether the restart already happened. Every failure after the
// cordon says that the node stays cordoned.

import { ApiError } from '../cluster/errors';
import type { KubeClient } from '../cluster/kube-client';
import { annotateNode, cordonCall, getNode, isReady, nodePath, readyCondition, readyMessage, setCordoned, uncordonAndAnnotate, type NodeObject } from '../cluster/nodes';
import { budgetsFor, deletePod, drainCalls, drainTargets, evictPod } from '../cluster/pods';
import { emptyDirLosses, evictionRefusal, podName, type DrainPod } from '../core/drain';
import { BOOT_ANNOTATION } from '../core/well-known';
import { restartComputer } from '../core/windows/host-ops';
import { addMetadataRoute, lastBootTime, METADATA_ADDRESS, metadataRouteState } from '../core/windows/node-ops';
import {
  blockedWaiting,
  cordonedNote,
  drainBlocked,
  durationText,
  emptyDirRefusal,
  isAwsProvider,
  notReadyObserved,
  REBOOT_REASON,
  restartProgress,
  type NodeOperation,
  severalBudgets,
  type BlockedEviction,
} from '../core/windows/reboot';
import { RemoteCommandError } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import { delay, waitFor } from './follow';
import type { Plan, Step } from './plan';
import type { RunResult } from './runner';

/** The setting kubeWindows.reboot.timeoutMinutes defaults to this. */
export const DEFAULT_REBOOT_TIMEOUT_MINUTES = 15;
export { drainTargets, podsWithEmptyDir } from '../cluster/pods';

export type RebootNode = NodeObject;

/** What the cordon, drain and uncordon steps read: the reboot's options are these and more. */
export interface NodeDrainOptions {
  kube: KubeClient;
  /** The Node as read when the plan is built. */
  node: RebootNode;
  /** Evict pods that use emptyDir volumes (their data is lost). Ask the user first. */
  deleteEmptyDirData?: boolean;
  /**
   * Delete pods directly instead of evicting them, bypassing PodDisruptionBudgets (the documented
   * `--disable-eviction` path). Set only after the user explicitly confirmed it.
   */
  disableEviction?: boolean;
  /** Waiting for the evicted pods to be gone (default 10 min). */
  drainTimeoutMs?: number;
  /** How long an eviction refused by a PodDisruptionBudget is retried before the step fails (default 60 s). */
  evictionRetryMs?: number;
  /** API polling interval (default 5 s). */
  pollMs?: number;
}

export interface RebootOptions extends NodeDrainOptions {
  host: WindowsHost;
  /** Waiting for NotReady, for the host to come back and for Ready (default 15 min each). */
  timeoutMs?: number;
}

export type { BlockedEviction };

/** What the drain step leaves for the caller. */
export interface DrainState {
  /** Set when the drain was stopped by PodDisruptionBudgets: the caller may offer disableEviction. */
  blockedBy?: BlockedEviction[];
  /** Pods skipped by the drain (DaemonSet and mirror pods), namespace/name. */
  skipped?: string[];
}

export interface RebootState extends DrainState {
  /** The host's LastBootUpTime after the restart. */
  bootAfter?: string;
  notReadySeen?: boolean;
}

/** The context of the steps a drain shares with the reboot. */
export interface DrainContext {
  opts: NodeDrainOptions;
  state: DrainState;
}

export interface RebootContext extends DrainContext {
  opts: RebootOptions;
  state: RebootState;
}

/** Adds "the node stays cordoned" to every failure of a step that runs after the cordon. */
export function cordoned<C extends DrainContext>(node: string, step: Step<C>, operation: NodeOperation = 'reboot'): Step<C> {
  const note = (err: unknown, signal: AbortSignal): unknown =>
    signal.aborted || !(err instanceof Error) ? err : Object.assign(new Error(`${err.message} ${cordonedNote(node, operation)}`), { cause: err });
  return {
    ...step,
    // The check reads the host too (boot time, routes): a connection lost there leaves the node cordoned as well.
    check: async (ctx, signal) => {
      try {
        return await step.check(ctx, signal);
      } catch (err) {
        throw note(err, signal);
      }
    },
    apply: async (ctx, signal, report) => {
      try {
        await step.apply(ctx, signal, report);
      } catch (err) {
        throw note(err, signal);
      }
    },
    verify: async (ctx, signal) => {
      const v = await step.verify(ctx, signal);
      return v === true ? true : `${v} ${cordonedNote(node, operation)}`;
    },
  };
}

export const isAwsNode = (node: RebootNode): boolean => isAwsProvider(node.spec?.providerID);

type RebootStep = Step<RebootContext>;
type DrainStep = Step<DrainContext>;

/** The timings every step reads, from the options with their defaults. */
export interface Timing {
  poll: number;
  timeout: number;
  drainTimeout: number;
  evictionRetry: number;
}

/** The Node, which must still exist. */
async function mustNode(ctx: DrainContext, signal: AbortSignal): Promise<NodeObject> {
  const n = await getNode(ctx.opts.kube, ctx.opts.node.metadata.name, signal);
  if (!n) throw new Error(`The Node ${ctx.opts.node.metadata.name} no longer exists.`);
  return n;
}

const bootAnnotation = (n: NodeObject | undefined): string | undefined => n?.metadata.annotations?.[BOOT_ANNOTATION];

/** Waits until the Node passes `ready` (else says what it reports), failing with `timeoutMessage`. */
async function waitForNode(
  ctx: RebootContext,
  signal: AbortSignal,
  report: (m: string) => void,
  t: Timing,
  ready: (n: NodeObject) => boolean,
  timeoutMessage: (last: string) => string,
): Promise<void> {
  await waitFor(
    async () => {
      const n = await mustNode(ctx, signal);
      return ready(n) ? true : { waiting: `the node reports ${readyMessage(n)}` };
    },
    { signal, intervalMs: Math.min(t.poll, 2000), timeoutMs: t.timeout, report, timeoutMessage: (last) => timeoutMessage(last.replace(/^waiting: /, '')) },
  );
}

export function cordonStep(nodeName: string): DrainStep {
  return {
    id: 'cordon',
    title: `Cordon ${nodeName} (mark it unschedulable)`,
    preview: { check: 'spec.unschedulable is true', api: [cordonCall(nodeName, true)] },
    check: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? 'done' : 'todo'),
    apply: async (ctx, signal) => setCordoned(ctx.opts.kube, nodeName, true, signal),
    verify: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? true : 'the node is still schedulable'),
    retries: 2,
    timeoutMs: 60_000,
  };
}

/** Evicts (or deletes) one round of pods; returns those a PodDisruptionBudget protects, and who protects them. */
async function evictRound(ctx: DrainContext, pods: DrainPod[], signal: AbortSignal, report: (m: string) => void): Promise<{ still: DrainPod[]; blocked: BlockedEviction[] }> {
  const { kube } = ctx.opts;
  const still: DrainPod[] = [];
  const blocked: BlockedEviction[] = [];
  for (const p of pods) {
    signal.throwIfAborted();
    try {
      if (ctx.opts.disableEviction) {
        await deletePod(kube, p, signal);
        report(`deleted ${podName(p)}`);
      } else {
        await evictPod(kube, p, signal);
        report(`evicted ${podName(p)}`);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) continue; // already gone
      if (err instanceof ApiError && err.status === 429) {
        const c = evictionRefusal(err.body as Parameters<typeof evictionRefusal>[0], err.message);
        const pdb = c.pdb ? `${p.metadata.namespace ?? ''}/${c.pdb}` : (await budgetsFor(kube, p, signal))[0];
        blocked.push({ pod: podName(p), ...(pdb ? { pdb } : {}), message: c.message });
        still.push(p);
        continue;
      }
      if (err instanceof ApiError && err.status === 500 && /more than one PodDisruptionBudget/.test(err.message)) throw new Error(severalBudgets(podName(p), await budgetsFor(kube, p, signal)));
      throw err;
    }
  }
  return { still, blocked };
}

export function drainStep(nodeName: string, opts: NodeDrainOptions, t: Timing, operation: NodeOperation = 'reboot'): DrainStep {
  return {
    id: 'drain',
    title: opts.disableEviction
      ? 'Drain: delete the pods directly (eviction disabled, PodDisruptionBudgets bypassed)'
      : 'Drain: evict the pods through the Eviction API (PodDisruptionBudgets honoured)',
    description: 'DaemonSet and static (mirror) pods stay, as with kubectl drain --ignore-daemonsets.',
    preview: {
      check: 'no pod other than DaemonSet and mirror pods runs on the node',
      api: drainCalls(nodeName, Boolean(opts.disableEviction)),
      notes: [
        opts.deleteEmptyDirData
          ? 'pods with emptyDir volumes are evicted and their emptyDir data is deleted (consented)'
          : 'pods with emptyDir volumes stop the drain unless their data may be deleted',
        `an eviction refused by a PodDisruptionBudget is retried for ${durationText(t.evictionRetry)}, then the step fails naming the budget`,
      ],
    },
    check: async (ctx, signal) => {
      const left = await drainTargets(ctx.opts.kube, nodeName, signal);
      ctx.state.skipped = left.skipped;
      return left.evict.length === 0 ? 'done' : { todo: `${left.evict.length} pod(s) to ${ctx.opts.disableEviction ? 'delete' : 'evict'}` };
    },
    apply: async (ctx, signal, report) => {
      const { kube } = ctx.opts;
      const targets = await drainTargets(kube, nodeName, signal);
      ctx.state.skipped = targets.skipped;
      for (const s of targets.skipped) report(`leaving ${s}`);
      const withData = emptyDirLosses(targets.evict);
      if (withData.length > 0 && !ctx.opts.deleteEmptyDirData) throw new Error(emptyDirRefusal(nodeName, withData, operation));
      let pending = targets.evict.filter((p) => !p.metadata.deletionTimestamp);
      const deadline = Date.now() + t.evictionRetry;
      let blocked: BlockedEviction[] = [];
      for (;;) {
        ({ still: pending, blocked } = await evictRound(ctx, pending, signal, report));
        if (pending.length === 0 || Date.now() + t.poll > deadline) break;
        report(blockedWaiting(blocked));
        await delay(Math.min(t.poll, 5000), signal);
      }
      if (blocked.length > 0) {
        ctx.state.blockedBy = blocked;
        throw new Error(drainBlocked(nodeName, blocked, operation));
      }
      ctx.state.blockedBy = undefined;
      // Evicted pods terminate with their grace period: the drain is over when they are gone.
      await waitFor(
        async () => {
          const left = (await drainTargets(kube, nodeName, signal)).evict;
          return left.length === 0 ? true : { waiting: `${left.length} pod(s) still terminating: ${left.slice(0, 5).map(podName).join(', ')}` };
        },
        {
          signal,
          intervalMs: Math.min(t.poll, 2000),
          timeoutMs: t.drainTimeout,
          report,
          timeoutMessage: (last) => `The evicted pods did not terminate within ${durationText(t.drainTimeout)} (${last.replace(/^waiting: /, '')}).`,
        },
      );
    },
    verify: async (ctx, signal) => {
      const left = (await drainTargets(ctx.opts.kube, nodeName, signal)).evict;
      return left.length === 0 ? true : `${left.length} pod(s) are still on the node: ${left.slice(0, 5).map(podName).join(', ')}.`;
    },
    timeoutMs: t.evictionRetry + t.drainTimeout + 120_000,
  };
}

/** shutdown.exe's "A system shutdown has already been scheduled.(1190)". */
const restartAlreadyScheduled = (err: unknown): boolean => err instanceof RemoteCommandError && /\b1190\b/.test(err.message);

function restartStep(nodeName: string, t: Timing): RebootStep {
  return {
    id: 'restart',
    title: 'Restart Windows (Restart-Computer -Force over SSH) and wait for SSH to come back',
    description: `The host's boot time before the restart is kept in the annotation ${BOOT_ANNOTATION}, so that a re-run does not restart twice.`,
    preview: {
      check: `the host's LastBootUpTime differs from the annotation ${BOOT_ANNOTATION}`,
      powershell: [lastBootTime().script, restartComputer(REBOOT_REASON).script],
      api: [{ verb: 'PATCH', path: nodePath(nodeName), body: { metadata: { annotations: { [BOOT_ANNOTATION]: '<LastBootUpTime>' } } } }],
      notes: [`waits up to ${durationText(t.timeout)} for the host to go down and accept SSH again`],
    },
    check: async (ctx, signal) => {
      const before = bootAnnotation(await mustNode(ctx, signal));
      if (!before) return 'todo';
      const now = (await ctx.opts.host.run(lastBootTime(), signal)).lastBoot;
      const progress = restartProgress(before, now);
      if (progress === 'done') ctx.state.bootAfter = now;
      return progress;
    },
    apply: async (ctx, signal, report) => {
      const { kube, host } = ctx.opts;
      const before = (await host.run(lastBootTime(), signal)).lastBoot;
      await annotateNode(kube, nodeName, { [BOOT_ANNOTATION]: before }, signal);
      try {
        await host.run(restartComputer(REBOOT_REASON), signal);
        report('restart scheduled; waiting for the host to go down and come back');
      } catch (err) {
        // A run whose answer was lost already scheduled it: wait for that restart rather than fail.
        if (!restartAlreadyScheduled(err)) throw err;
        report('a restart is already scheduled on the host; waiting for it');
      }
      await host.waitForRestart(signal, t.timeout, Math.min(2000, t.poll));
      ctx.state.bootAfter = (await host.run(lastBootTime(), signal)).lastBoot;
      report('the host is back (SSH answers)');
    },
    verify: async (ctx, signal) => {
      const before = bootAnnotation(await mustNode(ctx, signal));
      const now = (await ctx.opts.host.run(lastBootTime(), signal)).lastBoot;
      ctx.state.bootAfter = now;
      return restartProgress(before, now) === 'done' ? true : 'the host answers but its boot time did not change: it did not restart.';
    },
    timeoutMs: t.timeout + 180_000,
  };
}

function waitNotReadyStep(nodeName: string, t: Timing): RebootStep {
  return {
    id: 'wait-not-ready',
    title: 'Wait for the node to report NotReady',
    description: 'Proof that the kubelet went down with the host; if the node already went NotReady and came back Ready, this is done.',
    preview: { check: 'Ready is not True, or it turned True after the restart', api: [{ verb: 'GET', path: nodePath(nodeName) }] },
    check: async (ctx, signal) => {
      if (ctx.state.notReadySeen) return 'done';
      const c = readyCondition(await mustNode(ctx, signal));
      if (c?.status !== 'True') ctx.state.notReadySeen = true;
      return notReadyObserved(c, ctx.state.bootAfter) ? 'done' : 'todo';
    },
    apply: async (ctx, signal, report) => {
      await waitForNode(
        ctx,
        signal,
        report,
        t,
        (n) => !isReady(n),
        () => `The node ${nodeName} still reports Ready ${durationText(t.timeout)} after the restart: the restart may not have happened (look at the host).`,
      );
      ctx.state.notReadySeen = true;
      report('the node is NotReady, as expected during the restart');
    },
    verify: async () => true,
    timeoutMs: t.timeout + 60_000,
  };
}

function awsRouteStep(): RebootStep {
  return {
    id: 'aws-metadata-route',
    title: `Add the route to the instance metadata endpoint ${METADATA_ADDRESS} through the default gateway (AWS)`,
    description: 'On AWS the route is lost with the restart and the node does not return to Ready without it (route add 169.254.169.254 MASK 255.255.255.255 <gateway>).',
    preview: { check: `a ${METADATA_ADDRESS}/32 route through the default gateway exists`, powershell: [metadataRouteState().script, addMetadataRoute('<gateway>', 0).script] },
    check: async (ctx, signal) => {
      const s = await ctx.opts.host.run(metadataRouteState(), signal);
      return s.gateway && s.routes.includes(s.gateway) ? 'done' : 'todo';
    },
    apply: async (ctx, signal, report) => {
      const s = await ctx.opts.host.run(metadataRouteState(), signal);
      if (!s.gateway) throw new Error(`The host has no default route, so the gateway for ${METADATA_ADDRESS} is unknown: check its network configuration.`);
      const r = await ctx.opts.host.run(addMetadataRoute(s.gateway, s.ifIndex), signal);
      report(r.changed ? `route ${METADATA_ADDRESS}/32 via ${s.gateway} added` : `route ${METADATA_ADDRESS}/32 via ${s.gateway} already present`);
    },
    verify: async (ctx, signal) => {
      const s = await ctx.opts.host.run(metadataRouteState(), signal);
      return s.routes.includes(s.gateway) ? true : `no ${METADATA_ADDRESS} route through ${s.gateway} after adding it`;
    },
    retries: 1,
    timeoutMs: 120_000,
  };
}

function waitReadyStep(nodeName: string, t: Timing): RebootStep {
  return {
    id: 'wait-ready',
    title: 'Wait for the node to report Ready',
    preview: { check: 'the Ready condition is True', api: [{ verb: 'GET', path: nodePath(nodeName) }], notes: [`waits up to ${durationText(t.timeout)} (setting kubeWindows.reboot.timeoutMinutes)`] },
    check: async (ctx, signal) => (isReady(await mustNode(ctx, signal)) ? 'done' : 'todo'),
    apply: (ctx, signal, report) =>
      waitForNode(
        ctx,
        signal,
        report,
        t,
        isReady,
        (last) =>
          `The node ${nodeName} did not return to Ready within ${durationText(t.timeout)} after the restart (${last || 'no answer'}). Look at the kubelet on the host (kube-windows nodes services/logs).`,
      ),
    verify: async (ctx, signal) => (isReady(await mustNode(ctx, signal)) ? true : 'the node is not Ready'),
    timeoutMs: t.timeout + 60_000,
  };
}

/** Uncordons the node; `clearAnnotations` (the reboot's boot-time annotation) go in the same patch. */
export function uncordonStep(nodeName: string, clearAnnotations: readonly string[] = []): DrainStep {
  const cleared = Object.fromEntries(clearAnnotations.map((a) => [a, null]));
  return {
    id: 'uncordon',
    title: `Uncordon ${nodeName}`,
    preview: {
      check: 'spec.unschedulable is not set',
      api: [clearAnnotations.length > 0 ? { verb: 'PATCH', path: nodePath(nodeName), body: { spec: { unschedulable: null }, metadata: { annotations: cleared } } } : cordonCall(nodeName, false)],
    },
    check: async (ctx, signal) => {
      const n = await mustNode(ctx, signal);
      return !n.spec?.unschedulable && clearAnnotations.every((a) => n.metadata.annotations?.[a] === undefined) ? 'done' : 'todo';
    },
    apply: async (ctx, signal) => (clearAnnotations.length > 0 ? uncordonAndAnnotate(ctx.opts.kube, nodeName, cleared, signal) : setCordoned(ctx.opts.kube, nodeName, false, signal)),
    verify: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? 'the node is still unschedulable' : true),
    retries: 2,
    timeoutMs: 60_000,
  };
}

function verifyStep(nodeName: string): RebootStep {
  return {
    id: 'verify',
    title: 'Verify the node is Ready and schedulable',
    preview: { check: 'always runs', api: [{ verb: 'GET', path: nodePath(nodeName) }] },
    check: async () => 'todo',
    apply: async (ctx, signal) => {
      const n = await mustNode(ctx, signal);
      const problems = [...(isReady(n) ? [] : [readyMessage(n)]), ...(n.spec?.unschedulable ? ['still unschedulable'] : [])];
      if (problems.length > 0) throw new Error(`After the reboot the node ${nodeName} is not healthy: ${problems.join(', ')}.`);
    },
    verify: async () => true,
    timeoutMs: 60_000,
  };
}

/** The timings with their defaults (`timeout`: the reboot's waits; a drain has none of its own). */
export function timing(opts: NodeDrainOptions, timeout: number): Timing {
  return { poll: opts.pollMs ?? 5000, timeout, drainTimeout: opts.drainTimeoutMs ?? 10 * 60_000, evictionRetry: opts.evictionRetryMs ?? 60_000 };
}

/** Builds the plan for one node as named steps, in the documented order; read the Node first (getNode) and pass it in. */
export function buildRebootPlan(opts: RebootOptions): Plan<RebootContext> {
  const nodeName = opts.node.metadata.name;
  const t = timing(opts, opts.timeoutMs ?? DEFAULT_REBOOT_TIMEOUT_MINUTES * 60_000);
  const afterCordon = [drainStep(nodeName, opts, t), restartStep(nodeName, t), waitNotReadyStep(nodeName, t), ...(isAwsNode(opts.node) ? [awsRouteStep()] : []), waitReadyStep(nodeName, t)];
  const steps: RebootStep[] = [cordonStep(nodeName), ...afterCordon.map((s) => cordoned(nodeName, s)), uncordonStep(nodeName, [BOOT_ANNOTATION]), verifyStep(nodeName)];
  return { id: 'node-reboot', title: `Reboot ${nodeName} gracefully`, target: nodeName, steps };
}

/** Reads the Node and builds its reboot plan and context (what the CLI and VS Code call). */
export async function rebootPlanFor(opts: Omit<RebootOptions, 'node'> & { nodeName: string }, signal?: AbortSignal): Promise<{ plan: Plan<RebootContext>; ctx: RebootContext }> {
  const { nodeName, ...rest } = opts;
  const node = (await getNode(opts.kube, nodeName, signal)) as RebootNode | undefined;
  if (!node) throw new Error(`There is no Node named ${nodeName} in this cluster.`);
  const full: RebootOptions = { ...rest, node };
  return { plan: buildRebootPlan(full), ctx: { opts: full, state: {} } };
}

/**
 * One or two sentences for the end of a reboot run: done, or what stopped it and (when the cordon
 * happened) that the node stays cordoned.
 */
export function rebootSummary(result: RunResult, nodeName: string): string {
  if (result.outcome === 'done') return `${nodeName} was rebooted and is Ready and schedulable again.`;
  const cordon = result.steps.find((s) => s.id === 'cordon');
  const cordonedNow = (cordon?.outcome === 'applied' || cordon?.outcome === 'skipped') && result.error?.stepId !== 'cordon' && result.steps.find((s) => s.id === 'uncordon')?.outcome !== 'applied';
  const what =
    result.outcome === 'cancelled'
      ? `The reboot of ${nodeName} was cancelled at step ${result.error?.stepId ?? '?'}.`
      : `The reboot of ${nodeName} failed at step ${result.error?.stepId ?? '?'}: ${result.error?.message ?? ''}`;
  return cordonedNow && !what.includes('stays cordoned') ? `${what} ${cordonedNote(nodeName, 'reboot')}` : what;
}
